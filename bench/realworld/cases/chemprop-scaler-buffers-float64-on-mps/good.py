"""Training CLI for a message-passing regressor (reconstruction of chemprop/cli/train.py, train_model())."""

import numpy as np
import torch
from lightning import pytorch as pl
from sklearn.preprocessing import StandardScaler
from torch import nn


class RegressionFFN(nn.Module):
    def __init__(self, d_in, n_tasks):
        super().__init__()
        self.ffn = nn.Linear(d_in, n_tasks)
        self.register_buffer("loc", torch.zeros(1, n_tasks))
        self.register_buffer("scale", torch.ones(1, n_tasks))

    def forward(self, x):
        return self.ffn(x)

    def predict(self, x):
        return self.ffn(x) * self.scale + self.loc


class MPNN(pl.LightningModule):
    def __init__(self, d_in, n_tasks):
        super().__init__()
        self.encoder = nn.Linear(d_in, d_in)
        self.predictor = RegressionFFN(d_in, n_tasks)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.mse_loss(self.predictor(self.encoder(x)), y)

    def test_step(self, batch, batch_idx):
        x, y = batch
        preds = self.predictor.predict(self.encoder(x))
        self.log("test_mse", nn.functional.mse_loss(preds, y))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def train_model(args, train_loader, val_loader, test_loader, scaler):
    for model_idx in range(args.ensemble_size):
        torch.manual_seed(args.seed + model_idx)
        model = MPNN(args.d_in, args.n_tasks)
        trainer = pl.Trainer(accelerator=args.accelerator, devices=args.devices, max_epochs=args.epochs)
        trainer.fit(model, train_loader, val_loader)

        if test_loader is not None:
            if args.task_type == "regression":
                model.predictor.register_buffer("loc", torch.tensor(scaler.mean_).view(1, -1).float())
                model.predictor.register_buffer("scale", torch.tensor(scaler.scale_).view(1, -1).float())
            results = trainer.test(model, test_loader)[0]
            print(results)


def fit_target_scaler(targets):
    scaler = StandardScaler().fit(targets)
    return scaler, scaler.transform(targets).astype(np.float32)
