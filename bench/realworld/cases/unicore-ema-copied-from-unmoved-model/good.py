"""Trainer with a flat-parameter EMA (reconstruction of unicore/trainer.py and unicore/ema.py)."""

import argparse
from copy import deepcopy

import torch
from torch import nn


class FlatEma:
    def __init__(self, model, decay):
        self.model_ema = deepcopy(model).float()
        self.decay = decay
        self.param = self.flatten_parameters(model)

    def flatten_parameters(self, model):
        names = [n for n, p in model.named_parameters() if p.requires_grad]
        by_name = dict(self.model_ema.named_parameters())
        params = [by_name[n] for n in names]
        flat = params[0].new_zeros(sum(p.numel() for p in params))
        offset = 0
        for p in params:
            flat[offset:offset + p.numel()].copy_(p.data.view(-1))
            p.data = flat.data[offset:offset + p.numel()].view(*p.shape)
            offset += p.numel()
        return nn.Parameter(flat)

    def update(self, new_param):
        with torch.no_grad():
            diff = self.param - new_param
            diff *= 1 - self.decay
            self.param -= diff


class DistributedWrapper(nn.Module):
    """Stand-in for DistributedUnicoreModel: wraps and moves the model."""

    def __init__(self, args, model, device):
        super().__init__()
        self.module = model.to(device)

    def forward(self, *inputs):
        return self.module(*inputs)


class Trainer:
    def __init__(self, args, model, loss, device_name=None):
        self.args = args
        self.cuda = torch.cuda.is_available()
        self.device = torch.device(device_name or ("cuda" if self.cuda else "cpu"))
        self._loss = loss
        self._model = model
        if not self.use_distributed_wrapper:
            # the distributed wrapper moves the model itself
            self._loss = self._loss.to(device=self.device)
            self._model = self._model.to(device=self.device)
        self._wrapped_model = None
        self._optimizer = None

        model = self.model
        if args.ema_decay > 0:
            self.ema = FlatEma(model, args.ema_decay)
        else:
            self.ema = None

    @property
    def use_distributed_wrapper(self):
        return self.args.distributed_world_size > 1

    @property
    def model(self):
        if self._wrapped_model is None:
            if self.use_distributed_wrapper:
                self._wrapped_model = DistributedWrapper(self.args, self._model, device=self.device)
            else:
                self._wrapped_model = self._model
        return self._wrapped_model

    @property
    def optimizer(self):
        if self._optimizer is None:
            self._optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        return self._optimizer

    def fp32_params(self):
        return torch.cat([p.detach().float().view(-1) for p in self.model.parameters() if p.requires_grad])

    def train_step(self, sample):
        self.model.train()
        net_input, target = sample
        loss = self._loss(self.model(net_input.to(self.device)), target.to(self.device))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        if self.ema is not None:
            self.ema.update(self.fp32_params())


def run(device):
    args = argparse.Namespace(ema_decay=0.999, distributed_world_size=2)
    trainer = Trainer(args, nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)), nn.MSELoss(),
                      device_name=str(device))
    trainer.train_step((torch.randn(3, 4), torch.randn(3, 1)))


if __name__ == "__main__":
    cli = argparse.Namespace(ema_decay=0.999, distributed_world_size=torch.cuda.device_count())
    Trainer(cli, nn.Linear(4, 1), nn.MSELoss()).train_step((torch.randn(3, 4), torch.randn(3, 1)))
