"""Running center of features (reconstruction of lightly/models/modules/center.py)."""

import torch
from torch import Tensor
from torch.nn import Module


class Center(Module):
    def __init__(self, size, mode="mean", momentum=0.9, _register_buffer=True):
        super().__init__()
        if mode != "mean":
            raise ValueError(f"Unknown mode '{mode}'.")
        self.size = size
        self.dim = tuple(i for i, s in enumerate(size) if s == 1)
        center = torch.zeros(self.size)
        if _register_buffer:
            self.register_buffer("center", center)
        else:
            # the owner registers the buffer itself, so keep a plain reference here
            self.center = center
        self.momentum = momentum

    @property
    def value(self) -> Tensor:
        return self.center

    @torch.no_grad()
    def update(self, x: Tensor) -> None:
        batch_center = torch.mean(x, dim=self.dim, keepdim=True)
        self.center.copy_(self.center * self.momentum + batch_center * (1 - self.momentum))
