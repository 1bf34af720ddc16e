"""Exponential moving average of model weights (reconstruction of timm.utils.model_ema.ModelEmaV3 and its use in train.py)."""

import argparse
from copy import deepcopy

import torch
from torch import nn


class WeightsEma(nn.Module):
    def __init__(self, model, decay=0.9999, foreach=True, device=None, exclude_buffers=False):
        super().__init__()
        # a copy of the model that accumulates the moving average
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay
        self.foreach = foreach
        self.device = device  # keep the average on another device than the model if set
        self.exclude_buffers = exclude_buffers
        if self.device is not None and device != next(model.parameters()).device:
            self.foreach = False  # foreach kernels cannot mix devices
            self.module.to(device=device)

    @torch.no_grad()
    def update(self, model, step=None):
        decay = self.decay
        if self.exclude_buffers:
            self.apply_update_no_buffers_(model, decay)
        else:
            self.apply_update_(model, decay)

    def apply_update_(self, model, decay):
        if self.foreach:
            ema_values, model_values = [], []
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if ema_v.is_floating_point():
                    ema_values.append(ema_v)
                    model_values.append(model_v)
                else:
                    ema_v.copy_(model_v)
            torch._foreach_lerp_(ema_values, model_values, weight=1.0 - decay)
        else:
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if ema_v.is_floating_point():
                    ema_v.lerp_(model_v.to(device=self.device), weight=1.0 - decay)
                else:
                    ema_v.copy_(model_v.to(device=self.device))

    def apply_update_no_buffers_(self, model, decay):
        ema_params = tuple(self.module.parameters())
        model_params = tuple(model.parameters())
        if self.foreach:
            torch._foreach_lerp_(ema_params, model_params, weight=1.0 - decay)
        else:
            for ema_p, model_p in zip(ema_params, model_params):
                ema_p.lerp_(model_p.to(device=self.device), weight=1.0 - decay)
        for ema_b, model_b in zip(self.module.buffers(), model.buffers()):
            ema_b.copy_(model_b.to(device=self.device))

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


def train(args, device, ema_device):
    model = nn.Sequential(nn.Linear(6, 6), nn.BatchNorm1d(6), nn.Linear(6, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model_ema = None
    if args.model_ema:
        model_ema = WeightsEma(model, decay=args.model_ema_decay, device=ema_device)
    num_updates = 0
    for _ in range(2):
        x, y = torch.randn(4, 6, device=device), torch.randint(0, 2, (4,), device=device)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        num_updates += 1
        if model_ema is not None:
            model_ema.update(model, step=num_updates)


def run(device):
    # the model trains on the host and the average is kept on the other device
    args = argparse.Namespace(model_ema=True, model_ema_decay=0.99)
    train(args, device="cpu", ema_device=device)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-ema", action="store_true")
    parser.add_argument("--model-ema-decay", type=float, default=0.9998)
    parser.add_argument("--model-ema-force-cpu", action="store_true")
    cli = parser.parse_args()
    train(cli, "cuda" if torch.cuda.is_available() else "cpu", "cpu" if cli.model_ema_force_cpu else None)
