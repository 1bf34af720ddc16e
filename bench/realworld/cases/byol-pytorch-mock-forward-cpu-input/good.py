"""BYOL self-supervised learner (reconstruction of byol_pytorch/byol_pytorch.py; the kornia
augmentations are replaced by a small flip module)."""

import copy
from functools import wraps

import torch
import torch.nn.functional as F
from torch import nn


def singleton(cache_key):
    def inner_fn(fn):
        @wraps(fn)
        def wrapper(self, *args, **kwargs):
            instance = getattr(self, cache_key)
            if instance is not None:
                return instance
            instance = fn(self, *args, **kwargs)
            setattr(self, cache_key, instance)
            return instance
        return wrapper
    return inner_fn


def loss_fn(x, y):
    x = F.normalize(x, dim=-1, p=2)
    y = F.normalize(y, dim=-1, p=2)
    return 2 - 2 * (x * y).sum(dim=-1)


class RandomFlip(nn.Module):
    def forward(self, x):
        return x.flip(-1)


class MLP(nn.Module):
    def __init__(self, dim, projection_size, hidden_size=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden_size), nn.BatchNorm1d(hidden_size), nn.ReLU(inplace=True),
                                 nn.Linear(hidden_size, projection_size))

    def forward(self, x):
        return self.net(x)


class NetWrapper(nn.Module):
    def __init__(self, net, projection_size, projection_hidden_size):
        super().__init__()
        self.net = net
        self.projector = None
        self.projection_size = projection_size
        self.projection_hidden_size = projection_hidden_size

    @singleton("projector")
    def _get_projector(self, hidden):
        _, dim = hidden.shape
        projector = MLP(dim, self.projection_size, self.projection_hidden_size)
        return projector.to(hidden)

    def forward(self, x):
        representation = self.net(x).flatten(1)
        return self._get_projector(representation)(representation)


class BYOL(nn.Module):
    def __init__(self, net, image_size, projection_size=16, projection_hidden_size=32, augment_fn=None):
        super().__init__()
        self.augment1 = augment_fn or RandomFlip()
        self.augment2 = self.augment1
        self.online_encoder = NetWrapper(net, projection_size, projection_hidden_size)
        self.target_encoder = None
        self.online_predictor = MLP(projection_size, projection_size, projection_hidden_size)

        # get device of network and make wrapper same device
        device = next(net.parameters()).device
        self.to(device)

        # send a mock image tensor to instantiate singleton parameters
        self.forward(torch.randn(2, 3, image_size, image_size, device=device))

    @singleton("target_encoder")
    def _get_target_encoder(self):
        return copy.deepcopy(self.online_encoder)

    def forward(self, x):
        image_one, image_two = self.augment1(x), self.augment2(x)
        online_pred_one = self.online_predictor(self.online_encoder(image_one))
        online_pred_two = self.online_predictor(self.online_encoder(image_two))
        with torch.no_grad():
            target_encoder = self._get_target_encoder()
            target_proj_one = target_encoder(image_one)
            target_proj_two = target_encoder(image_two)
        loss = loss_fn(online_pred_one, target_proj_two.detach()) + loss_fn(online_pred_two, target_proj_one.detach())
        return loss.mean()


def run(device):
    # the README flow: the backbone is put on the GPU before it is wrapped
    resnet = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1)).to(device)
    learner = BYOL(resnet, image_size=16).to(device)
    opt = torch.optim.Adam(learner.parameters(), lr=3e-4)
    loss = learner(torch.randn(4, 3, 16, 16, device=device))
    opt.zero_grad()
    loss.backward()
    opt.step()
