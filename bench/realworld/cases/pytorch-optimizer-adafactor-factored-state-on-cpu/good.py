"""AdaFactor optimizer (reconstruction of pytorch_optimizer/optimizer/adafactor.py) and a training loop using it."""

import math

import torch
from torch import nn
from torch.optim import Optimizer


class AdaFactor(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), decay_rate=-0.8, weight_decay=0.0,
                 clip_threshold=1.0, relative_step=True, eps1=1e-30):
        self.betas = betas
        self.decay_rate = decay_rate
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step
        self.eps1 = eps1
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay})

    @staticmethod
    def get_options(shape):
        return len(shape) >= 2

    @staticmethod
    def get_rms(x):
        return x.norm(2) / (x.numel() ** 0.5)

    def get_lr(self, lr, step):
        return min(1e-2, 1.0 / math.sqrt(step)) if self.relative_step else lr

    @staticmethod
    def approximate_sq_grad(exp_avg_sq_row, exp_avg_sq_col, output):
        r_factor = (exp_avg_sq_row / exp_avg_sq_row.mean(dim=-1, keepdim=True)).rsqrt_().unsqueeze(-1)
        c_factor = exp_avg_sq_col.unsqueeze(-2).rsqrt()
        torch.mul(r_factor, c_factor, out=output)

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                grad_shape = grad.shape
                factored = self.get_options(grad_shape)

                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    if factored:
                        state["exp_avg_sq_row"] = torch.zeros(grad_shape[:-1], dtype=grad.dtype, device=grad.device)
                        state["exp_avg_sq_col"] = torch.zeros(
                            grad_shape[:-2] + grad_shape[-1:], dtype=grad.dtype, device=grad.device
                        )
                    else:
                        state["exp_avg_sq"] = torch.zeros_like(grad)

                state["step"] += 1
                lr = self.get_lr(group["lr"], state["step"])
                beta2_t = 1.0 - math.pow(state["step"], self.decay_rate)
                update = torch.mul(grad, grad).add_(self.eps1)

                if factored:
                    exp_avg_sq_row, exp_avg_sq_col = state["exp_avg_sq_row"], state["exp_avg_sq_col"]
                    exp_avg_sq_row.mul_(beta2_t).add_(update.mean(dim=-1), alpha=1.0 - beta2_t)
                    exp_avg_sq_col.mul_(beta2_t).add_(update.mean(dim=-2), alpha=1.0 - beta2_t)
                    self.approximate_sq_grad(exp_avg_sq_row, exp_avg_sq_col, update)
                else:
                    exp_avg_sq = state["exp_avg_sq"]
                    exp_avg_sq.mul_(beta2_t).add_(update, alpha=1.0 - beta2_t)
                    torch.rsqrt(exp_avg_sq, out=update)

                update.mul_(grad)
                update.div_((self.get_rms(update) / self.clip_threshold).clamp_(min=1.0)).mul_(lr)
                exp_avg = state["exp_avg"]
                exp_avg.mul_(self.betas[0]).add_(update, alpha=1.0 - self.betas[0])
                p.add_(-exp_avg)


def fit(model, batches, device):
    model.to(device)
    optimizer = AdaFactor(model.parameters())
    for x, y in batches:
        x, y = x.to(device), y.to(device)
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def run(device):
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
    fit(model, [(torch.randn(4, 6), torch.randn(4, 1))], device)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
