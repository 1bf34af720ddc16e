"""NeRF ray sampler with a CPU ray cache (reconstruction of pytorch3d projects/nerf/nerf/raysampler.py)."""

from typing import NamedTuple

import torch


class RayBundle(NamedTuple):
    origins: torch.Tensor
    directions: torch.Tensor
    lengths: torch.Tensor


class Camera:
    def __init__(self, R, T):
        self.R, self.T = R, T
        self.device = R.device


class GridRaysampler(torch.nn.Module):
    def __init__(self, size, n_pts):
        super().__init__()
        self.size, self.n_pts = size, n_pts

    def forward(self, cameras):
        b, dev = cameras.R.shape[0], cameras.device
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, self.size, device=dev), torch.linspace(-1, 1, self.size, device=dev), indexing="ij")
        dirs = torch.stack([xs, ys, torch.ones_like(xs)], -1).view(1, -1, 3).expand(b, -1, -1) @ cameras.R
        origins = cameras.T[:, None, :].expand_as(dirs)
        lengths = torch.linspace(0.1, 4.0, self.n_pts, device=dev).expand(b, dirs.shape[1], -1)
        return RayBundle(origins, dirs, lengths)


class NeRFRaysampler(torch.nn.Module):
    def __init__(self, size=8, n_pts=4, n_rays_per_image=16):
        super().__init__()
        self._grid_raysampler = GridRaysampler(size, n_pts)
        self._n_rays_per_image = n_rays_per_image
        self._ray_cache = {}

    def _normalize(self, bundle):
        return bundle._replace(directions=torch.nn.functional.normalize(bundle.directions, dim=-1))

    def precache_rays(self, cameras, camera_hashes):
        for camera, camera_hash in zip(cameras, camera_hashes):
            bundle = self.forward(camera, caching=True)
            if camera_hash in self._ray_cache:
                raise ValueError("There are redundant cameras!")
            self._ray_cache[camera_hash] = RayBundle(*[v.to("cpu").detach() for v in bundle])

    def forward(self, cameras, chunksize=None, chunk_idx=0, camera_hash=None, caching=False):
        batch_size = cameras.R.shape[0]
        device = cameras.device
        if camera_hash is not None:
            if batch_size != 1:
                raise NotImplementedError("Ray caching works only for batches with a single camera!")
            full = self._ray_cache[camera_hash]
        else:
            full = self._normalize(self._grid_raysampler(cameras))
        n_pixels = full.directions.shape[:-1].numel()
        if self.training and not caching:
            sel_rays = torch.randperm(n_pixels, device=full.lengths.device)[: self._n_rays_per_image]
        else:
            if chunksize is None:
                chunksize = n_pixels * batch_size
            start = chunk_idx * chunksize * batch_size
            end = min(start + chunksize, n_pixels)
            sel_rays = torch.arange(start, end, dtype=torch.long, device=full.lengths.device)
        return RayBundle(
            *[v.view(n_pixels, -1)[sel_rays].view(batch_size, sel_rays.numel() // batch_size, -1).to(device) for v in full]
        )


def train_epoch(raysampler, cameras, hashes):
    raysampler.train()
    for camera, camera_hash in zip(cameras, hashes):
        raysampler(camera, camera_hash=camera_hash)


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    cams = [Camera(torch.eye(3, device=dev)[None], torch.zeros(1, 3, device=dev)) for _ in range(2)]
    sampler = NeRFRaysampler()
    sampler.precache_rays(cams, ["a", "b"])
    train_epoch(sampler, cams, ["a", "b"])
