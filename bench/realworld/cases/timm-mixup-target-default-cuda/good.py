"""Mixup / CutMix batch augmentation (reconstruction of timm/data/mixup.py) used from a training loop
that runs on a device other than the default CUDA one."""

import numpy as np
import torch
from torch import nn


def one_hot(x, num_classes, on_value=1.0, off_value=0.0, device="cuda"):
    x = x.long().view(-1, 1)
    return torch.full((x.size()[0], num_classes), off_value, device=device).scatter_(1, x, on_value)


def mixup_target(target, num_classes, lam=1.0, smoothing=0.0, device="cuda"):
    off_value = smoothing / num_classes
    on_value = 1.0 - smoothing + off_value
    y1 = one_hot(target, num_classes, on_value=on_value, off_value=off_value, device=device)
    y2 = one_hot(target.flip(0), num_classes, on_value=on_value, off_value=off_value, device=device)
    return y1 * lam + y2 * (1.0 - lam)


class Mixup:
    def __init__(self, mixup_alpha=1.0, prob=1.0, label_smoothing=0.1, num_classes=1000):
        self.mixup_alpha = mixup_alpha
        self.mix_prob = prob
        self.label_smoothing = label_smoothing
        self.num_classes = num_classes
        self.mode = "batch"

    def _params_per_batch(self):
        lam = 1.0
        if np.random.rand() < self.mix_prob:
            lam = float(np.random.beta(self.mixup_alpha, self.mixup_alpha))
        return lam

    def _mix_batch(self, x):
        lam = self._params_per_batch()
        if lam == 1.0:
            return 1.0
        x_flipped = x.flip(0).mul_(1.0 - lam)
        x.mul_(lam).add_(x_flipped)
        return lam

    def __call__(self, x, target):
        assert len(x) % 2 == 0, "Batch size should be even when using this"
        lam = self._mix_batch(x)
        target = mixup_target(target, self.num_classes, lam, self.label_smoothing, x.device)
        return x, target


def soft_target_cross_entropy(x, target):
    return torch.sum(-target * torch.log_softmax(x, dim=-1), dim=-1).mean()


def train_one_epoch(model, loader, optimizer, device, mixup_fn=None):
    model.train()
    for input, target in loader:
        input, target = input.to(device), target.to(device)
        if mixup_fn is not None:
            input, target = mixup_fn(input, target)
        loss = soft_target_cross_entropy(model(input), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main(device="cpu"):
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = [(torch.randn(4, 3, 8, 8), torch.randint(0, 10, (4,)))]
    train_one_epoch(model, loader, optimizer, device, mixup_fn=Mixup(num_classes=10))


if __name__ == "__main__":
    main("cpu")
