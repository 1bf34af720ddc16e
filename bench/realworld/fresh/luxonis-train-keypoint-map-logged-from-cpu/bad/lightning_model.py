"""Evaluation epoch end of the training module (reconstruction of luxonis_train/models/luxonis_lightning.py)."""

from collections import defaultdict

import pytorch_lightning as pl
import torch
from torch import nn

from keypoint_metric import MeanAveragePrecisionKeypoints


class LuxonisLightningModule(pl.LightningModule):
    def __init__(self, n_keypoints=17):
        super().__init__()
        self.head = nn.Linear(32, n_keypoints * 3 + 1)
        self.metrics = nn.ModuleDict({"kpt_head": MeanAveragePrecisionKeypoints(sigmas=[0.05] * n_keypoints)})
        self.validation_losses = []

    def validation_step(self, batch, batch_idx):
        features, target_keypoints = batch
        out = self.head(features)
        pred_keypoints, pred_scores = out[:, None, :-1], out[:, None, -1].sigmoid()
        self.metrics["kpt_head"].update(pred_keypoints, pred_scores, target_keypoints)
        loss = nn.functional.mse_loss(pred_keypoints, target_keypoints)
        self.validation_losses.append(loss)
        return loss

    def compute_metrics(self):
        results = {}
        for node_name, metric in self.metrics.items():
            main, extra = metric.compute()
            results[node_name] = {"map": main, **extra}
            metric.reset()
        return results

    def on_validation_epoch_end(self):
        self.log("val/loss", torch.stack(self.validation_losses).mean(), sync_dist=True)
        self.validation_losses.clear()
        metric_results = defaultdict(dict)
        for node_name, metrics in self.compute_metrics().items():
            for metric_name, metric_value in metrics.items():
                metric_results[node_name][metric_name] = metric_value.cpu().item()
                self.log(f"val/metric/{node_name}/{metric_name}", metric_value, sync_dist=True)


def main(train_loader, val_loader):
    trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=1)
    trainer.fit(LuxonisLightningModule(), train_loader, val_loader)
