"""The NeRF trainer put the training cameras on the GPU, precached their rays (the cache keeps them on the CPU)
and then trained with camera hashes; in bad the random ray selection is drawn on the cameras' GPU and used to
index the CPU cache."""

import torch


def run(program, device):
    torch.manual_seed(0)
    Camera = program["Camera"]
    cameras = [Camera(torch.eye(3, device=device)[None], torch.zeros(1, 3, device=device)) for _ in range(2)]
    hashes = ["cam0", "cam1"]
    sampler = program["NeRFRaysampler"](size=8, n_pts=4, n_rays_per_image=16)
    sampler.precache_rays(cameras, hashes)
    program["train_epoch"](sampler, cameras, hashes)
