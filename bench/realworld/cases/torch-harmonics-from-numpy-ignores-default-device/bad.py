"""Discrete-continuous convolution on the sphere built under a default device (reconstruction of
torch_harmonics/quadrature.py and the precomputation in convolution.py, driven as in the issue:
torch.set_default_device(...) and then DiscreteContinuousConvS2(...))."""

import math
from functools import lru_cache

import numpy as np
import torch
from torch import nn


def trapezoidal_weights(n, a=-1.0, b=1.0, periodic=False):
    xlg = torch.from_numpy(np.linspace(a, b, n, endpoint=periodic))
    wlg = (b - a) / (n - periodic * 1) * torch.ones(n, dtype=torch.float64, requires_grad=False)
    if not periodic:
        wlg[0] *= 0.5
        wlg[-1] *= 0.5
    return xlg, wlg


def legendre_gauss_weights(n, a=-1.0, b=1.0):
    xlg, wlg = np.polynomial.legendre.leggauss(n)
    xlg = torch.from_numpy(xlg).clone()
    wlg = torch.from_numpy(wlg).clone()
    return (b - a) * 0.5 * xlg + (b + a) * 0.5, wlg * (b - a) * 0.5


def _precompute_grid(n, grid="equidistant", a=-1.0, b=1.0, periodic=False):
    if grid == "equidistant":
        return trapezoidal_weights(n, a=a, b=b, periodic=periodic)
    elif grid == "legendre-gauss":
        return legendre_gauss_weights(n, a=a, b=b)
    raise ValueError(f"Unknown grid type {grid}")


@lru_cache(typed=True)
def _precompute_longitudes(nlon):
    return torch.linspace(0, 2 * math.pi, nlon + 1, dtype=torch.float64, requires_grad=False)[:-1]


@lru_cache(typed=True)
def _precompute_latitudes(nlat, grid="equidistant"):
    xlg, wlg = _precompute_grid(nlat, grid=grid, a=-1.0, b=1.0, periodic=False)
    lats = torch.flip(torch.arccos(xlg), dims=(0,)).clone()
    wlg = torch.flip(wlg, dims=(0,)).clone()
    return lats, wlg


def _precompute_convolution_tensor_s2(in_shape, out_shape, theta_cutoff, grid_in, grid_out):
    nlat_in, nlon_in = in_shape
    nlat_out, _ = out_shape
    lats_in, win = _precompute_latitudes(nlat_in, grid=grid_in)
    lats_out, _ = _precompute_latitudes(nlat_out, grid=grid_out)
    lons_in = _precompute_longitudes(nlon_in)
    quad_weights = win.reshape(-1, 1) / nlon_in / 2.0

    psi = []
    for t in range(nlat_out):
        alpha = -lats_out[t]
        beta = lons_in
        gamma = lats_in.reshape(-1, 1)
        x = torch.cos(alpha) * torch.cos(beta) * torch.sin(gamma) + torch.cos(gamma) * torch.sin(alpha)
        y = torch.sin(beta) * torch.sin(gamma)
        z = -torch.cos(beta) * torch.sin(alpha) * torch.sin(gamma) + torch.cos(alpha) * torch.cos(gamma)
        theta = torch.arccos(z / torch.sqrt(x * x + y * y + z * z))
        psi.append(torch.where(theta < theta_cutoff, 1.0 - theta / theta_cutoff, 0.0) * quad_weights)
    return torch.stack(psi).float()


class DiscreteContinuousConvS2(nn.Module):
    def __init__(self, in_channels, out_channels, in_shape, out_shape, grid_in="equidistant", grid_out="equidistant"):
        super().__init__()
        theta_cutoff = 2 * math.pi / (in_shape[0] - 1)
        psi = _precompute_convolution_tensor_s2(in_shape, out_shape, theta_cutoff, grid_in, grid_out)
        self.register_buffer("psi", psi, persistent=False)
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels) / in_channels)

    def forward(self, x):
        x = torch.einsum("bchw,thw->bct", x, self.psi)
        return torch.einsum("oc,bct->bot", self.weight, x)


def main(device):
    torch.set_default_device(device)
    conv = DiscreteContinuousConvS2(1, 1, in_shape=(18, 36), out_shape=(9, 18))
    return conv(torch.randn(2, 1, 18, 36))


def run(device):
    try:
        return main(device)
    finally:
        torch.set_default_device(None)


if __name__ == "__main__":
    main("cuda:0")
