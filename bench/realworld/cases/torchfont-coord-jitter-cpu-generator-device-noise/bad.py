"""Random outline augmentation for glyph data (reconstruction of torchfont/transforms/geometric.py
random_coord_jitter, driven as a GPU augmentation pipeline with a seeded generator)."""

import math

import torch


def _active_pairs(types):
    active = types > 0
    return active, active, active


def random_coord_jitter(types, coords, std=0.01, generator=None):
    if not math.isfinite(std) or std < 0:
        raise ValueError("std must be non-negative and finite")
    if std == 0.0:
        return types, coords
    active = torch.stack(list(_active_pairs(types)), dim=1).unsqueeze(-1)
    pts = coords.reshape(-1, 3, 2)
    noise = torch.empty_like(pts).normal_(std=std, generator=generator)
    return types, torch.where(active, pts + noise, pts).reshape_as(coords)


class Augment:
    def __init__(self, std, seed):
        self.std = std
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, types, coords):
        return random_coord_jitter(types, coords, std=self.std, generator=self.generator)


def main(device="cuda"):
    augment = Augment(std=0.05, seed=99)
    types = torch.randint(0, 3, (10,)).to(device)
    coords = torch.rand(10, 6).to(device)
    for _ in range(3):
        types, coords = augment(types, coords)
    return coords


if __name__ == "__main__":
    main()
