"""Text classification task on top of a Hugging Face model (reconstruction of
lightning_transformers/core/model.py and task/huggingface/text_classification/model.py)."""

from typing import Any, Dict

import pytorch_lightning as pl
import torch
from transformers import AutoModelForSequenceClassification


class TaskTransformer(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def setup(self, stage):
        # the task builds its metrics once the datamodule (and its label count) is known
        self.configure_metrics(stage)

    def configure_metrics(self, stage):
        pass

    def configure_optimizers(self):
        return torch.optim.AdamW(self.model.parameters(), lr=2e-5)


class TextClassificationTransformer(TaskTransformer):
    def __init__(self, backbone: str):
        super().__init__(AutoModelForSequenceClassification.from_pretrained(backbone))
        self.metrics = {}

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        loss = self.model(**batch)[0]
        self.log("train_loss", loss)
        return loss

    def common_step(self, prefix: str, batch: Any) -> torch.Tensor:
        loss, logits = self.model(**batch)[:2]
        preds = torch.argmax(logits, dim=1)
        self.log_dict(self.compute_metrics(preds, batch["labels"], mode=prefix), prog_bar=True)
        self.log(f"{prefix}_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        return self.common_step("val", batch)

    def configure_metrics(self, stage) -> None:
        self.metrics = {
            "precision": pl.metrics.Precision(num_classes=self.num_classes),
            "recall": pl.metrics.Recall(num_classes=self.num_classes),
            "acc": pl.metrics.Accuracy(),
        }

    @property
    def num_classes(self) -> int:
        return self.trainer.datamodule.num_classes

    def compute_metrics(self, preds, labels, mode="val") -> Dict[str, torch.Tensor]:
        return {f"{mode}_{name}": metric(preds, labels) for name, metric in self.metrics.items()}


def main(datamodule):
    model = TextClassificationTransformer("bert-base-cased")
    trainer = pl.Trainer(gpus=1, max_epochs=1)
    trainer.fit(model, datamodule=datamodule)
