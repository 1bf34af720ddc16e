"""Cascading decoder (reconstruction of the Decoder in dalle2_pytorch/dalle2_pytorch.py)."""

from contextlib import contextmanager, nullcontext

import torch
from torch import nn


class TinyUnet(nn.Module):
    def __init__(self, channels=3):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


class Decoder(nn.Module):
    def __init__(self, unets, image_sizes):
        super().__init__()
        self.unets = nn.ModuleList(unets)
        self.image_sizes = image_sizes
        self.scale = nn.Parameter(torch.ones(1))

    @contextmanager
    def one_unet_in_gpu(self, unet):
        # keep only the unet being sampled on the GPU to save memory
        self.cuda()
        self.unets.cpu()
        unet.cuda()
        yield
        unet.cpu()

    @torch.no_grad()
    def sample(self, batch_size=1):
        img = None
        is_cuda = next(self.parameters()).is_cuda
        for unet, image_size in zip(self.unets, self.image_sizes):
            context = self.one_unet_in_gpu(unet) if is_cuda else nullcontext()
            with context:
                device = next(unet.parameters()).device
                img = torch.randn(batch_size, 3, image_size, image_size, device=device)
                img = unet(img) * self.scale.to(device)
        return img

    def forward(self, images, unet_number):
        unet = self.unets[unet_number - 1]
        return ((unet(images) * self.scale - images) ** 2).mean()
