"""Experimental v2 base model with logging metrics (reconstruction of models/base/_base_model_v2.py and a DLinear-style model)."""

import lightning.pytorch as pl
import torch
from torch import nn
from torchmetrics import MeanAbsoluteError, MeanSquaredError


class BaseModel(pl.LightningModule):
    def __init__(self, loss, logging_metrics=None, optimizer="adam", optimizer_params=None):
        super().__init__()
        self.loss = loss
        self.logging_metrics = logging_metrics if logging_metrics is not None else []
        self.optimizer = optimizer
        self.optimizer_params = optimizer_params if optimizer_params is not None else {}

    def training_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        loss = self.loss(y_hat, y)
        self.log("train_loss", loss)
        self.log_metrics(y_hat, y, prefix="train")
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        self.log("val_loss", self.loss(y_hat, y))
        self.log_metrics(y_hat, y, prefix="val")

    def log_metrics(self, y_hat, y, prefix="val"):
        for metric in self.logging_metrics:
            metric_value = metric(y_hat, y)
            self.log(f"{prefix}_{metric.__class__.__name__}", metric_value, on_step=False, on_epoch=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), **self.optimizer_params)


class DLinear(BaseModel):
    def __init__(self, context_length, prediction_length, **kwargs):
        super().__init__(**kwargs)
        self.trend = nn.Linear(context_length, prediction_length)
        self.seasonal = nn.Linear(context_length, prediction_length)

    def forward(self, x):
        trend = x.unfold(1, 3, 1).mean(-1)
        trend = nn.functional.pad(trend, (1, 1), mode="replicate")
        return self.trend(trend) + self.seasonal(x - trend)


def main():
    x, y = torch.randn(32, 12), torch.randn(32, 4)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    model = DLinear(12, 4, loss=nn.MSELoss(), logging_metrics=[MeanAbsoluteError(), MeanSquaredError()])
    trainer = pl.Trainer(max_epochs=1, accelerator="auto", logger=False, enable_checkpointing=False)
    trainer.fit(model, loader, loader)


if __name__ == "__main__":
    main()
