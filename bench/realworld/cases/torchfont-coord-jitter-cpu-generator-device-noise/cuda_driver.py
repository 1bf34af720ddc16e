"""A GPU augmentation pipeline held a seeded (CPU) torch.Generator in its Augment object and jittered glyph
coordinates already on the device; in bad the noise is drawn on the coordinates' CUDA device with that CPU generator."""

import torch


def run(program, device):
    torch.manual_seed(0)
    coords = program["main"](device=device)
    assert coords.shape == (10, 6) and coords.device.type == device.type
