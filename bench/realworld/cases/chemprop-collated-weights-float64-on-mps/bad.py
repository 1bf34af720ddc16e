"""Datapoints, collation and training of a molecule regressor (reconstruction of chemprop's
cli/utils/parsing.py make_datapoints, data/collate.py collate_batch and the Lightning fit)."""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch
from lightning import pytorch as pl
from torch import nn
from torch.utils.data import DataLoader


@dataclass
class MoleculeDatapoint:
    features: np.ndarray
    y: np.ndarray
    weight: float = 1.0


class TrainingBatch(NamedTuple):
    X: torch.Tensor
    Y: torch.Tensor
    w: torch.Tensor


def make_datapoints(feature_rows, Y, weights=None):
    N = len(feature_rows)
    weights = np.ones(N) if weights is None else weights
    return [MoleculeDatapoint(feature_rows[i], Y[i], weight=weights[i]) for i in range(N)]


def collate_batch(batch):
    xs, ys, weights = zip(*((d.features, d.y, d.weight) for d in batch))
    return TrainingBatch(
        torch.from_numpy(np.array(xs)).float(),
        torch.from_numpy(np.array(ys)).float(),
        torch.tensor(weights).unsqueeze(1),
    )


class Regressor(pl.LightningModule):
    def __init__(self, d_in, n_tasks):
        super().__init__()
        self.ffn = nn.Linear(d_in, n_tasks)

    def training_step(self, batch, batch_idx):
        preds = self.ffn(batch.X)
        return (batch.w * (preds - batch.Y) ** 2).mean()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main(accelerator="mps"):
    feats = np.random.rand(32, 8).astype(np.float32)
    targets = np.random.rand(32, 1).astype(np.float32)
    data = make_datapoints(feats, targets)
    loader = DataLoader(data, batch_size=8, collate_fn=collate_batch)
    trainer = pl.Trainer(accelerator=accelerator, devices=1, max_epochs=1)
    trainer.fit(Regressor(8, 1), loader)


if __name__ == "__main__":
    main()
