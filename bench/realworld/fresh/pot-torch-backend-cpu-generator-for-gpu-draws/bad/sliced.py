"""Sliced Wasserstein distance (reconstruction of ot/sliced.py and the gradient-flow example that calls it)."""

import torch

from backend import get_backend


def get_random_projections(d, n_projections, seed=None, backend=None, type_as=None):
    nx = backend
    if seed is not None:
        nx.seed(seed)
    projections = nx.randn(d, n_projections, type_as=type_as)
    return projections / nx.sqrt(nx.sum(projections ** 2, 0, keepdims=True))


def sliced_wasserstein_distance(X_s, X_t, n_projections=50, seed=None):
    nx = get_backend(X_s, X_t)
    projections = get_random_projections(X_s.shape[1], n_projections, seed, backend=nx, type_as=X_s)
    proj_s = torch.sort(X_s @ projections, dim=0)[0]
    proj_t = torch.sort(X_t @ projections, dim=0)[0]
    return torch.sqrt(torch.mean((proj_s - proj_t) ** 2))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x1 = torch.randn(100, 2, device=device, requires_grad=True)
    x2 = torch.randn(100, 2, device=device) + 3
    loss = sliced_wasserstein_distance(x1, x2, n_projections=20, seed=42)
    loss.backward()
    return loss


if __name__ == "__main__":
    main()
