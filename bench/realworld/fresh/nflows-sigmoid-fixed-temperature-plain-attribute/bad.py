"""Sigmoid transform with an optional learnable temperature (reconstruction of nflows/transforms/nonlinearities.py)."""

import torch
from torch import nn
from torch.nn import functional as F


def sum_except_batch(x):
    return x.reshape(x.shape[0], -1).sum(-1)


class Transform(nn.Module):
    def forward(self, inputs, context=None):
        raise NotImplementedError

    def inverse(self, inputs, context=None):
        raise NotImplementedError


class CompositeTransform(Transform):
    def __init__(self, transforms):
        super().__init__()
        self._transforms = nn.ModuleList(transforms)

    def forward(self, inputs, context=None):
        total = inputs.new_zeros(inputs.shape[0])
        for transform in self._transforms:
            inputs, logabsdet = transform(inputs, context)
            total = total + logabsdet
        return inputs, total


class Sigmoid(Transform):
    def __init__(self, temperature=1, eps=1e-6, learn_temperature=False):
        super().__init__()
        self.eps = eps
        if learn_temperature:
            self.temperature = nn.Parameter(torch.Tensor([temperature]))
        else:
            self.temperature = torch.Tensor([temperature])

    def forward(self, inputs, context=None):
        inputs = self.temperature * inputs
        outputs = torch.sigmoid(inputs)
        logabsdet = sum_except_batch(torch.log(self.temperature) - F.softplus(-inputs) - F.softplus(inputs))
        return outputs, logabsdet

    def inverse(self, inputs, context=None):
        inputs = torch.clamp(inputs, self.eps, 1 - self.eps)
        outputs = (1 / self.temperature) * (torch.log(inputs) - torch.log1p(-inputs))
        logabsdet = -sum_except_batch(
            torch.log(self.temperature)
            - F.softplus(-self.temperature * outputs)
            - F.softplus(self.temperature * outputs)
        )
        return outputs, logabsdet


class ElementwiseAffine(Transform):
    def __init__(self, features):
        super().__init__()
        self.shift = nn.Parameter(torch.zeros(features))
        self.log_scale = nn.Parameter(torch.zeros(features))

    def forward(self, inputs, context=None):
        return inputs * torch.exp(self.log_scale) + self.shift, self.log_scale.sum().expand(inputs.shape[0])


def run(device):
    transform = CompositeTransform([ElementwiseAffine(3), Sigmoid(temperature=2.0)]).to(device)
    outputs, logabsdet = transform(torch.randn(4, 3, device=device))
    return outputs, logabsdet


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
