"""Farthest point sampling with per-cloud lengths (reconstruction of pytorch3d.ops.sample_farthest_points)."""

from typing import List, Optional, Union

import torch


def _fps_kernel(points, lengths, K, start_idxs, max_K):
    """Stands in for the compiled extension: iterative farthest point sampling."""
    N, P, _ = points.shape
    idx = torch.full((N, max_K), -1, dtype=torch.int64, device=points.device)
    for n in range(N):
        pts = points[n, : lengths[n]]
        dist = torch.full((pts.shape[0],), float("inf"), device=points.device)
        sel = start_idxs[n]
        for k in range(int(K[n])):
            idx[n, k] = sel
            dist = torch.minimum(dist, ((pts - pts[sel]) ** 2).sum(-1))
            sel = dist.argmax()
    return idx


def masked_gather(points, idx):
    safe = idx.clamp(min=0)
    out = points.gather(1, safe[..., None].expand(-1, -1, points.shape[-1]))
    out[idx < 0] = 0.0
    return out


def sample_farthest_points(
    points: torch.Tensor,
    lengths: Optional[torch.Tensor] = None,
    K: Union[int, List, torch.Tensor] = 50,
    random_start_point: bool = False,
):
    N, P, D = points.shape
    device = points.device
    constant_length = lengths is None
    if lengths is None:
        lengths = torch.full((N,), P, dtype=torch.int64, device=device)
    else:
        if lengths.shape != (N,):
            raise ValueError("points and lengths must have same batch dimension.")
        if lengths.max() > P:
            raise ValueError("A value in lengths was too large.")

    max_K = -1
    if isinstance(K, int):
        max_K = K
        K = torch.full((N,), K, dtype=torch.int64, device=device)
    elif isinstance(K, list):
        K = torch.tensor(K, dtype=torch.int64, device=device)
    if K.shape[0] != N:
        raise ValueError("K and points must have the same batch dimension")
    if max_K < 0:
        max_K = int(K.max())

    if random_start_point:
        if constant_length:
            start_idxs = torch.randint(high=P, size=(N,), device=device)
        else:
            start_idxs = (lengths * torch.rand(lengths.size(), device=device)).to(torch.int64)
    else:
        start_idxs = torch.zeros_like(lengths)

    with torch.no_grad():
        idx = _fps_kernel(points, lengths, K, start_idxs, max_K)
    return masked_gather(points, idx), idx


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    clouds = torch.rand(2, 100, 3, device=dev)
    sizes = torch.tensor([100, 60], device=dev)
    sample_farthest_points(clouds, lengths=sizes, K=8, random_start_point=True)
