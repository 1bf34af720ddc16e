"""Solving many entropic OT problems at once (reconstruction of ot/batch/_linear.py: solve_batch)."""

import torch

from batch_utils import bregman_log_projection_batch, get_backend


def solve_batch(M, reg, a=None, b=None, max_iter=1000, tol=1e-5):
    nx = get_backend(a, b, M)
    B, n, m = M.shape
    # uniform marginals when none are given
    if a is None:
        a = nx.ones((B, n)) / n
    if b is None:
        b = nx.ones((B, m)) / m
    out = bregman_log_projection_batch(-M / reg, a, b, nx=nx, max_iter=max_iter, tol=tol)
    T = out["T"]
    value_linear = torch.sum(M * T, dim=(1, 2))
    return T, value_linear


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    X = torch.randn(5, 10, 3, device=device)
    Y = torch.randn(5, 15, 3, device=device)
    M = torch.cdist(X, Y) ** 2
    return solve_batch(M, reg=0.1)


if __name__ == "__main__":
    main()
