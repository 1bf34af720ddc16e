"""Autoregressive forecasting LightningModule (reconstruction of py4cast/lightning.py and the ACC
metric of py4cast/metrics.py)."""

import pytorch_lightning as pl
import torch
from torch import nn
from torchmetrics import Metric


class MetricACC(Metric):
    """Anomaly correlation per prediction step and feature, summed over the epoch."""

    def __init__(self, climate_means):
        super().__init__()
        self.climate_means = climate_means.to(self.device)
        self.add_state("sum_acc", default=torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("step_count", default=torch.tensor(0.0), dist_reduce_fx="sum")

    def update(self, preds, target):
        if self.step_count == 0 and self.climate_means.device != preds.device:
            self.climate_means = self.climate_means.to(preds.device)
        num = ((preds - self.climate_means) * (target - self.climate_means)).mean(dim=2)
        denom = ((preds - self.climate_means) ** 2).mean(dim=2) * ((target - self.climate_means) ** 2).mean(dim=2)
        res = torch.mean(num / torch.sqrt(denom), dim=0)
        if not self.sum_acc.ndim:
            self.sum_acc = torch.zeros(res.shape, device=self.device)
        self.sum_acc += res.to(device=self.device)
        self.step_count += 1

    def compute(self):
        return {"val_acc": self.sum_acc / self.step_count}


class AutoRegressiveLightning(pl.LightningModule):
    def __init__(self, n_features=3):
        super().__init__()
        self.model = nn.Linear(n_features, n_features)
        self.climate_means = torch.zeros(n_features)
        self.acc_metric = MetricACC(self.climate_means)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.l1_loss(self.model(x), y)

    def on_validation_start(self):
        """Add some observers when starting validation."""
        self.acc_metric = MetricACC(self.climate_means)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        prediction = self.model(x)
        self.log("val_mean_loss", nn.functional.l1_loss(prediction, y), sync_dist=True)
        self.acc_metric.update(prediction, y)

    def on_validation_epoch_end(self):
        dict_metrics = dict()
        dict_metrics.update(self.acc_metric.compute())
        self.log_dict({k: v.mean() for k, v in dict_metrics.items()}, sync_dist=True)
        self.acc_metric.reset()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    data = torch.utils.data.TensorDataset(torch.randn(16, 2, 5, 3), torch.randn(16, 2, 5, 3))
    loader = torch.utils.data.DataLoader(data, batch_size=4)
    trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=1)
    trainer.fit(AutoRegressiveLightning(), loader, loader)


if __name__ == "__main__":
    main()
