"""Callers of pytorch3d.ops.sample_farthest_points passed padded GPU point clouds with their per-cloud lengths on the
GPU and asked for a random start point; in bad the random start fractions are drawn on the CPU and multiplied with
the GPU lengths."""

import torch


def run(program, device):
    torch.manual_seed(0)
    clouds = torch.rand(2, 40, 3, device=device)
    lengths = torch.tensor([40, 25], device=device)
    sampled, idx = program["sample_farthest_points"](clouds, lengths=lengths, K=6, random_start_point=True)
    assert sampled.shape == (2, 6, 3) and idx.shape == (2, 6)
    assert bool((idx[1] < 25).all())
