"""Device/dtype tracking mixin of LightningModule (reconstruction of
pytorch_lightning/core/mixins/device_dtype_mixin.py) and a per-rank script that calls .cuda()."""

from typing import Optional, Union

import torch
from torch.nn import Module


class DeviceDtypeModuleMixin(Module):
    def __init__(self):
        super().__init__()
        self._dtype = torch.get_default_dtype()
        self._device = torch.device("cpu")

    @property
    def device(self):
        device = self._device
        if device.type == "cuda" and device.index is None:
            return torch.device(f"cuda:{torch.cuda.current_device()}")
        return device

    def to(self, *args, **kwargs):
        out = torch._C._nn._parse_to(*args, **kwargs)
        self._update_properties(device=out[0], dtype=out[1])
        return super().to(*args, **kwargs)

    def cuda(self, device: Optional[Union[torch.device, int]] = None):
        if device is None:
            device = torch.device("cuda", torch.cuda.current_device())
        elif isinstance(device, int):
            device = torch.device("cuda", index=device)
        self._update_properties(device=device)
        return super().cuda(device=device)

    def _update_properties(self, device=None, dtype=None):
        def apply_fn(module):
            if not isinstance(module, DeviceDtypeModuleMixin):
                return
            if device is not None:
                module._device = device
            if dtype is not None:
                module._dtype = dtype

        self.apply(apply_fn)


class Classifier(DeviceDtypeModuleMixin):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.layer(x)


def worker(local_rank):
    torch.cuda.set_device(local_rank)
    model = Classifier().cuda()
    batch = torch.randn(4, 8, device=torch.cuda.current_device())
    return model(batch)


if __name__ == "__main__":
    worker(1)
