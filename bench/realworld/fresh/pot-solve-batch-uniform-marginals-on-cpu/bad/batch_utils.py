"""Batched Bregman (log-Sinkhorn) projections (reconstruction of ot/batch/_utils.py, with a minimal torch backend)."""

import torch


class TorchBackend:
    def ones(self, shape, type_as=None):
        if type_as is None:
            return torch.ones(shape)
        return torch.ones(shape, dtype=type_as.dtype, device=type_as.device)

    def zeros(self, shape, type_as=None):
        if type_as is None:
            return torch.zeros(shape)
        return torch.zeros(shape, dtype=type_as.dtype, device=type_as.device)

    def log(self, a):
        return torch.log(a)

    def exp(self, a):
        return torch.exp(a)

    def logsumexp(self, a, axis):
        return torch.logsumexp(a, dim=axis)

    def sum(self, a, axis):
        return torch.sum(a, dim=axis)

    def max(self, a):
        return torch.max(a)


def get_backend(*arrays):
    return TorchBackend()


def bregman_log_projection_batch(K, a=None, b=None, nx=None, max_iter=10000, tol=1e-5):
    if nx is None:
        nx = get_backend(a, b, K)
    B, n, m = K.shape
    if a is None:
        a = nx.ones((B, n)) / n
    if b is None:
        b = nx.ones((B, m)) / m
    u = nx.zeros((B, n), type_as=K)
    v = nx.zeros((B, m), type_as=K)
    loga, logb = nx.log(a), nx.log(b)
    for n_iters in range(max_iter):
        u = loga - nx.logsumexp(K + v[:, None, :], axis=2)
        v = logb - nx.logsumexp(K + u[:, :, None], axis=1)
        if n_iters % 10 == 0:  # check convergence every 10 iterations
            marginal = nx.sum(nx.exp(K + u[:, :, None] + v[:, None, :]), axis=2)
            if nx.max(torch.linalg.norm(marginal - a, dim=1)) < tol:
                break
    log_T = K + u[:, :, None] + v[:, None, :]
    return {"T": nx.exp(log_T), "potentials": (u, v), "n_iters": n_iters}
