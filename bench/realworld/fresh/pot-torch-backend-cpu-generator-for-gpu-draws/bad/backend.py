"""The torch backend of an optimal-transport library (reconstruction of ot/backend.py: TorchBackend)."""

import torch


class TorchBackend:
    __name__ = "torch"

    def __init__(self):
        self.rng_ = torch.Generator()
        self.rng_.seed()

    def device_type(self, type_as):
        return type_as.device.type.replace("cuda", "gpu").upper()

    def seed(self, seed=None):
        if isinstance(seed, int):
            self.rng_.manual_seed(seed)
        elif isinstance(seed, torch.Generator):
            self.rng_ = seed
        else:
            raise ValueError("Non compatible seed : {}".format(seed))

    def rand(self, *size, type_as=None):
        if type_as is not None:
            return torch.rand(size=size, generator=self.rng_, dtype=type_as.dtype, device=type_as.device)
        return torch.rand(size=size, generator=self.rng_)

    def randn(self, *size, type_as=None):
        if type_as is not None:
            return torch.randn(size=size, dtype=type_as.dtype, generator=self.rng_, device=type_as.device)
        return torch.randn(size=size, generator=self.rng_)

    def sqrt(self, a):
        return torch.sqrt(a)

    def sum(self, a, axis=None, keepdims=False):
        return torch.sum(a) if axis is None else torch.sum(a, axis, keepdim=keepdims)


def get_backend(*args):
    return TorchBackend()
