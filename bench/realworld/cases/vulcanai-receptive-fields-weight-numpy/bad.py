"""Feature-importance plot of a dense network (reconstruction of vulcanai BaseNetwork's device property,
DenseNet and plotters/visualization.py display_receptive_fields)."""

from math import ceil, floor, sqrt

import numpy as np
import torch
from torch import nn


class DenseUnit(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self._kernel = nn.Linear(in_dim, out_dim)

    def forward(self, x):
        return torch.relu(self._kernel(x))


class BaseNetwork(nn.Module):
    def __init__(self, name, device="cuda:0"):
        super().__init__()
        self.name = name
        self.optim = None
        self._create_network()
        self.device = device

    @property
    def device(self):
        return next(self.network.parameters()).device

    @device.setter
    def device(self, device):
        device = torch.device(device if torch.cuda.is_available() else "cpu")
        if self.network:
            self.network.to(device=device)


class DenseNet(BaseNetwork):
    def __init__(self, name, dims, device="cuda:0"):
        self.dims = dims
        super().__init__(name, device=device)

    def _create_network(self):
        self.network = nn.Sequential(*[DenseUnit(a, b) for a, b in zip(self.dims[:-1], self.dims[1:])])


def display_receptive_fields(network, top_k=5):
    feature_importance = {}
    num_layers = len(network._modules["network"])
    for i, layer in enumerate(network._modules["network"]):
        raw_field = layer._kernel._parameters["weight"].detach().numpy()
        field = np.abs(np.average(raw_field, axis=0))
        field_shape = [floor(sqrt(field.shape[0])), ceil(sqrt(field.shape[0]))]
        order = np.argsort(field)
        feature_importance["{}_{}".format(type(layer).__name__, i)] = {
            "top": order[-top_k:], "bottom": order[:top_k], "grid": np.resize(field, field_shape), "layers": num_layers}
    return feature_importance


if __name__ == "__main__":
    net = DenseNet("dnn", dims=[16, 9, 4])
    print(display_receptive_fields(net, top_k=2))
