"""The Model API's base (reconstruction of gradsflow/models/base.py)."""

from typing import Optional, Union

import torch
from torch import nn
from torchmetrics import Accuracy, MetricCollection

METRICS = {"accuracy": lambda: Accuracy(task="multiclass", num_classes=3, validate_args=False)}


def get_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class BaseModel:
    """Holds the learner, the optimizer, the loss and the metrics (a plain object, not an nn.Module)."""

    def __init__(self, learner: nn.Module, device: Optional[str] = None, use_accelerate: bool = True):
        self.accelerator = None
        self.device = None
        self._set_accelerator(device, use_accelerate)
        self.learner = self.prepare_model(learner)
        self.metrics: MetricCollection = MetricCollection([]).to(self.device)

    def _set_accelerator(self, device, use_accelerate):
        if use_accelerate:
            from accelerate import Accelerator

            self.accelerator = Accelerator(cpu=(device == "cpu"))
            self.device = self.accelerator.device
        else:
            self.device = device or get_device()

    def prepare_model(self, learner):
        """Sends the learner to the device (through Accelerate when it is used)."""
        if not self.accelerator:
            return learner.to(self.device)
        return self.accelerator.prepare_model(learner)

    def add_metrics(self, *metrics: Union[str, object]) -> None:
        for m in metrics:
            metric = METRICS[m]() if isinstance(m, str) else m
            self.metrics.add_metrics(metric)
        # metrics built here start on the CPU; they follow the learner's device
        self.metrics.to(self.device)
