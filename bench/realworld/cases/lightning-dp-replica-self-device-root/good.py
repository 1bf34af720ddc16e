"""DataParallel wrapper of a LightningModule (reconstruction of
pytorch_lightning/overrides/data_parallel.py) with a user training_step that creates tensors on
self.device."""

import torch
from torch import nn


class DeviceTrackingModule(nn.Module):
    """Stand-in for LightningModule's device property, updated only through .to()/.cuda()."""

    def __init__(self):
        super().__init__()
        self._device = torch.device("cpu")

    @property
    def device(self):
        return self._device

    def to(self, *args, **kwargs):
        device = torch._C._nn._parse_to(*args, **kwargs)[0]
        if device is not None:
            for module in self.modules():
                if isinstance(module, DeviceTrackingModule):
                    module._device = device
        return super().to(*args, **kwargs)


class LightningParallelModule(nn.Module):
    def __init__(self, pl_module):
        super().__init__()
        self.module = pl_module

    def forward(self, *inputs, **kwargs):
        self.update_replica_device_attributes(inputs)
        # forward call will redirect to training_step
        return self.module.training_step(*inputs, **kwargs)

    def update_replica_device_attributes(self, inputs):
        # replicas lose state changes, so read the current device from the inputs
        replica_device = None
        for tensor in inputs:
            if isinstance(tensor, torch.Tensor) and replica_device is None and tensor.device != torch.device("cpu"):
                replica_device = tensor.device
        if replica_device is not None:
            self.module.to(device=replica_device)


class WeightedRegressor(DeviceTrackingModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(8, 1)

    def training_step(self, x, y):
        weights = torch.ones(x.shape[0], 1, device=self.device)
        return ((self.layer(x) - y) ** 2 * weights).mean().unsqueeze(0)


def fit(device_ids=(0, 1)):
    model = WeightedRegressor().to(torch.device("cuda", device_ids[0]))
    dp_model = nn.DataParallel(LightningParallelModule(model), device_ids=list(device_ids))
    x, y = torch.randn(8, 8, device="cuda:0"), torch.randn(8, 1, device="cuda:0")
    loss = dp_model(x, y).mean()
    loss.backward()


if __name__ == "__main__":
    fit()
