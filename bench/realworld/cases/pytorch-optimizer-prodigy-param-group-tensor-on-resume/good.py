"""Prodigy optimizer resumed from a checkpoint (reconstruction of pytorch_optimizer/optimizer/prodigy.py
and the resume path of a training harness)."""

import math

import torch
from torch.optim import Optimizer


class Prodigy(Optimizer):
    def __init__(self, params, lr=1.0, betas=(0.9, 0.999), beta3=None, d0=1e-6, d_coef=1.0,
                 growth_rate=float("inf"), eps=1e-8):
        defaults = dict(lr=lr, betas=betas, beta3=beta3, d=d0, d0=d0, d_max=d0, d_coef=d_coef,
                        growth_rate=growth_rate, eps=eps, step=1)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        group = self.param_groups[0]
        device = group["params"][0].device
        d_de_nom = torch.tensor([0.0], device=device)
        beta1, beta2 = group["betas"]
        beta3 = group["beta3"] if group["beta3"] is not None else math.sqrt(beta2)
        d, d0 = group["d"], group["d0"]
        d_lr = d * group["lr"]

        if "d_numerator" not in group:
            group["d_numerator"] = torch.tensor([0.0], device=device)
        elif group["d_numerator"].device != device:
            group["d_numerator"] = group["d_numerator"].to(device)

        d_numerator = group["d_numerator"]
        d_numerator.mul_(beta3)

        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["s"] = torch.zeros_like(p)
                    state["p0"] = p.clone()
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                p0, exp_avg, exp_avg_sq, s = state["p0"], state["exp_avg"], state["exp_avg_sq"], state["s"]
                d_numerator.add_(torch.dot(grad.flatten(), (p0 - p).flatten()), alpha=(d / d0) * d_lr)
                exp_avg.mul_(beta1).add_(grad, alpha=d * (1.0 - beta1))
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=d * d * (1.0 - beta2))
                s.mul_(beta3).add_(grad, alpha=(d / d0) * d_lr)
                d_de_nom.add_(s.abs().sum())

        d_hat = (group["d_coef"] * d_numerator / d_de_nom).item()
        d = max(d, d_hat) if d == group["d0"] else d
        for group in self.param_groups:
            group["step"] += 1
            group["d_numerator"] = d_numerator
            group["d"] = d
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                de_nom = state["exp_avg_sq"].sqrt().add_(d * group["eps"])
                p.addcdiv_(state["exp_avg"], de_nom, value=-d_lr)


def train(model, optimizer, device, steps=2):
    for _ in range(steps):
        x = torch.randn(4, 3, device=device)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def resume(checkpoint_path, device):
    model = torch.nn.Linear(3, 1).to(device)
    optimizer = Prodigy(model.parameters())
    checkpoint = torch.load(checkpoint_path, map_location="cpu")
    model.load_state_dict(checkpoint["state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_states"][0])
    train(model, optimizer, device)


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    resume("last.ckpt", dev)
