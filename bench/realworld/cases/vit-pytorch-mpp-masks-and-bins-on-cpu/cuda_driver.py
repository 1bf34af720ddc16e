"""vit-pytorch's MPP wrapper was moved to the GPU with its encoder and trained on image batches sent there; in bad the
random-patch probability mask is drawn on the CPU and multiplied with the GPU patch mask (and the loss's bucket
boundaries are CPU tensors too)."""

import torch
from torch import nn


def run(program, device):
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(4 * 4 * 3, 16), nn.GELU())
    mpp = program["MPP"](encoder, patch_size=4, dim=16).to(device)
    optimizer = torch.optim.Adam(mpp.parameters(), lr=1e-3)
    images = torch.rand(2, 3, 16, 16)
    loss = program["train_step"](mpp, optimizer, images, device)
    assert torch.isfinite(loss).item()
