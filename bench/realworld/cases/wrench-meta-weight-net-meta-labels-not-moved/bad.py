"""Meta-Weight-Net training loop (reconstruction of wrench/metalearning/meta_weight_net.py)."""

import contextlib
import copy

import torch
import torch.nn.functional as F
from torch import nn


def soft_cross_entropy(logits, target, reduction="mean"):
    if target.dim() == 1:
        return F.cross_entropy(logits, target.long(), reduction=reduction)
    return -(target * F.log_softmax(logits, dim=-1)).sum(-1).mean()


class Backbone(nn.Module):
    def __init__(self, n_features, n_class):
        super().__init__()
        self.fc = nn.Linear(n_features, n_class)

    def forward(self, batch):
        device = next(self.parameters()).device
        return self.fc(batch["features"].to(device))


class WeightNet(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)


@contextlib.contextmanager
def inner_loop(model, optimizer, device):
    """Stand-in for higher.innerloop_ctx: a differentiable copy of the model."""
    fmodel = copy.deepcopy(model).to(device)
    yield fmodel, optimizer


def endless(loader):
    while True:
        for batch in loader:
            yield batch


class MetaWeightNet:
    def fit(self, train_batches, meta_batches, y_train, n_steps, device):
        y_train = torch.Tensor(y_train).to(device)
        model = Backbone(4, 3)
        self.model = model.to(device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        vnet = WeightNet(8)
        self.vnet = vnet.to(device)
        optimizer_vnet = torch.optim.Adam(vnet.parameters(), lr=1e-3)
        meta_stream = endless(meta_batches)

        model.train()
        for step, batch in enumerate(train_batches[:n_steps]):
            batch_idx = batch["ids"].to(device)
            target = y_train[batch_idx]

            optimizer_vnet.zero_grad()
            with inner_loop(model, optimizer, device=device) as (meta_model, diffopt):
                cost = soft_cross_entropy(meta_model(batch), target, reduction="none")
                weights = vnet(cost.reshape(-1, 1).detach())
                inner_loss = (cost.reshape(-1, 1) * weights).sum() / len(cost)

                meta_batch = next(meta_stream)
                outputs = meta_model(meta_batch)
                meta_target = meta_batch["labels"]
                meta_loss = soft_cross_entropy(outputs, meta_target)
                (meta_loss + 0 * inner_loss).backward()
            optimizer_vnet.step()

            optimizer.zero_grad()
            cost = soft_cross_entropy(model(batch), target, reduction="none").reshape(-1, 1)
            with torch.no_grad():
                w_new = vnet(cost.detach())
            loss = (cost * w_new).sum() / len(cost)
            loss.backward()
            optimizer.step()
        return self


def make_batches(n):
    return [{"ids": torch.arange(i * 4, i * 4 + 4), "features": torch.randn(4, 4),
             "labels": torch.randint(0, 3, (4,))} for i in range(n)]


def run(device):
    y_train = torch.randint(0, 3, (8,)).tolist()
    MetaWeightNet().fit(make_batches(2), make_batches(1), y_train, n_steps=2, device=device)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
