"""Early Lightning single-GPU training path (reconstruction of pytorch_lightning/trainer/dp_mixin.py)
with a user module whose configure_optimizers returns Adagrad."""

import torch
from torch import nn
from torch.optim import Optimizer


class TrainerDPMixin:
    def init_optimizers(self, optimizers):
        if isinstance(optimizers, Optimizer):
            return [optimizers], []
        elif len(optimizers) == 2 and isinstance(optimizers[0], list):
            optimizers, lr_schedulers = optimizers
            return optimizers, lr_schedulers
        elif isinstance(optimizers, (list, tuple)):
            return optimizers, []

    def single_gpu_train(self, model):
        # choose the optimizers (lr schedulers allowed too)
        self.optimizers, self.lr_schedulers = self.init_optimizers(model.configure_optimizers())

        model.cuda(self.root_gpu)

        self.run_pretrain_routine(model)


class Trainer(TrainerDPMixin):
    def __init__(self, gpus=1, max_steps=3):
        self.root_gpu = 0
        self.max_steps = max_steps

    def run_pretrain_routine(self, model):
        for step in range(self.max_steps):
            x, y = torch.randn(8, 4).cuda(self.root_gpu), torch.randn(8, 1).cuda(self.root_gpu)
            loss = model.training_step((x, y), step)
            for optimizer in self.optimizers:
                optimizer.zero_grad()
            loss.backward()
            for optimizer in self.optimizers:
                optimizer.step()

    def fit(self, model):
        self.single_gpu_train(model)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.mse_loss(self.layer(x), y)

    def configure_optimizers(self):
        return torch.optim.Adagrad(self.parameters(), lr=0.02)


if __name__ == "__main__":
    Trainer(gpus=1).fit(Regressor())
