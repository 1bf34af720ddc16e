"""Temporarily move a model for evaluation (reconstruction of neuralpredictors/training/context_managers.py
device_state, with an evaluation helper that uses it as downstream code does)."""

import warnings
from contextlib import contextmanager

import torch
from torch import nn


@contextmanager
def device_state(model, device):
    original_device = next(model.parameters()).device

    device = torch.device("cuda:0") if device == "cuda" else torch.device(device)
    if device.type == "cuda" and device.index >= torch.cuda.device_count():
        warnings.warn("Incompatible CUDA spec. Falling back to CPU usage")
        device = "cpu"

    try:
        model.to(device)
        yield model
    finally:
        model.to(original_device)


def model_predictions(model, loader, device="cuda"):
    outputs = []
    with device_state(model, device) as m, torch.no_grad():
        for images, _ in loader:
            outputs.append(m(images.to(device)).cpu())
    return torch.cat(outputs)


if __name__ == "__main__":
    net = nn.Linear(6, 2)
    batches = [(torch.randn(4, 6), torch.randn(4, 2)) for _ in range(2)]
    print(model_predictions(net, batches).shape)
