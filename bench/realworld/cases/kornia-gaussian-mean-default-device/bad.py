"""Separable Gaussian blur with per-sample sigma (reconstruction of kornia.filters gaussian / kernels)."""

from typing import Optional

import torch
import torch.nn.functional as F


def gaussian(window_size: int, sigma, *, mean=None, device: Optional[torch.device] = None, dtype=None):
    if isinstance(sigma, float):
        sigma = torch.tensor([[sigma]], device=device, dtype=dtype)
    batch = sigma.shape[0]

    mean = float(window_size // 2) if mean is None else mean
    if isinstance(mean, float):
        mean = torch.tensor([[mean]], device=device, dtype=dtype)

    x = (torch.arange(window_size, device=sigma.device, dtype=sigma.dtype) - mean).expand(batch, -1)
    if window_size % 2 == 0:
        x = x + 0.5
    g = torch.exp(-x.pow(2.0) / (2 * sigma.pow(2.0)))
    return g / g.sum(-1, keepdim=True)


def gaussian_kernel1d(kernel_size: int, sigma, force_even: bool = False, *, device=None, dtype=None):
    if not force_even and kernel_size % 2 == 0:
        raise ValueError("kernel_size must be odd")
    return gaussian(kernel_size, sigma, device=device, dtype=dtype)


def filter_separable(image, kernel_x, kernel_y):
    b, c, h, w = image.shape
    out = image.reshape(1, b * c, h, w)
    kx = kernel_x.repeat_interleave(c, 0)[:, None, None, :]
    ky = kernel_y.repeat_interleave(c, 0)[:, None, :, None]
    out = F.conv2d(F.pad(out, (kx.shape[-1] // 2,) * 2 + (0, 0), mode="reflect"), kx, groups=b * c)
    out = F.conv2d(F.pad(out, (0, 0) + (ky.shape[-2] // 2,) * 2, mode="reflect"), ky, groups=b * c)
    return out.view(b, c, h, w)


def gaussian_blur2d(image, kernel_size, sigma):
    if isinstance(sigma, tuple):
        sigma = torch.tensor([sigma], device=image.device, dtype=image.dtype)
    else:
        sigma = sigma.to(device=image.device, dtype=image.dtype)
    ky, kx = kernel_size
    bs = sigma.shape[0]
    kernel_x = gaussian_kernel1d(kx, sigma[:, 1].view(bs, 1))
    kernel_y = gaussian_kernel1d(ky, sigma[:, 0].view(bs, 1))
    return filter_separable(image, kernel_x, kernel_y)


def run(device):
    images = torch.rand(2, 3, 16, 16, device=device)
    gaussian_blur2d(images, (5, 5), torch.tensor([[1.5, 1.5], [0.7, 0.9]]))


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
