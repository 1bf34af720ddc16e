"""Segmentation training loop (reconstruction of dacapo's LocalTorch compute context, GunpowderTrainer.iterate
and train.py)."""

import numpy as np
import torch
from torch import nn


class LocalTorch:
    def __init__(self, device=None):
        self._device = device

    @property
    def device(self):
        if self._device is None:
            if torch.cuda.is_available():
                return torch.device("cuda")
            elif torch.backends.mps.is_available():
                return torch.device("mps")
            else:
                return torch.device("cpu")
        return torch.device(self._device)


class WeightedMSELoss:
    def compute(self, prediction, target, weight):
        return (weight * (prediction - target) ** 2).mean()


class GunpowderTrainer:
    def __init__(self, loss, shape=(1, 1, 8, 8)):
        self._loss = loss
        self.shape = shape
        self.iteration = 0

    def next(self):
        raw = np.random.rand(*self.shape)
        target = np.random.rand(*self.shape)
        weight = np.ones(self.shape)
        return raw, target, weight

    def iterate(self, num_iterations, model, optimizer, device):
        for iteration in range(self.iteration, self.iteration + num_iterations):
            raw, target, weight = self.next()
            for param in model.parameters():
                param.grad = None
            predicted = model.forward(torch.as_tensor(raw).to(device).float())
            loss = self._loss.compute(
                predicted,
                torch.as_tensor(target).to(device).float(),
                torch.as_tensor(weight).to(device).float(),
            )
            loss.backward()
            optimizer.step()
            yield iteration, loss.item()


def train_run(iterations=3):
    compute_context = LocalTorch()
    model = nn.Conv2d(1, 1, 3, padding=1).to(compute_context.device)
    optimizer = torch.optim.Adam(model.parameters())
    trainer = GunpowderTrainer(WeightedMSELoss())
    for stats in trainer.iterate(iterations, model, optimizer, compute_context.device):
        print(stats)


if __name__ == "__main__":
    train_run()
