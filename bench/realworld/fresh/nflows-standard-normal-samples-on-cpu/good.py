"""A normalizing flow sampled through its base distribution (reconstruction of nflows/distributions/normal.py,
nflows/distributions/base.py and nflows/flows/base.py)."""

import numpy as np
import torch
from torch import nn


class Distribution(nn.Module):
    def log_prob(self, inputs, context=None):
        return self._log_prob(inputs, context)

    def sample(self, num_samples, context=None):
        return self._sample(num_samples, context)


class StandardNormal(Distribution):
    """Zero mean, unit covariance; no parameters of its own."""

    def __init__(self, shape):
        super().__init__()
        self._shape = torch.Size(shape)
        self._log_z = 0.5 * np.prod(shape) * np.log(2 * np.pi)
        # an empty buffer that moves with the module and tells where to sample
        self.register_buffer("_dummy_buffer", torch.empty(0))

    def _log_prob(self, inputs, context):
        return -0.5 * (inputs ** 2).flatten(1).sum(-1) - self._log_z

    def _sample(self, num_samples, context):
        if context is None:
            return torch.randn(num_samples, *self._shape, device=self._dummy_buffer.device)
        context_size = context.shape[0]
        samples = torch.randn(context_size * num_samples, *self._shape, device=context.device)
        return samples.reshape(context_size, num_samples, *self._shape)


class PointwiseAffine(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.shift = nn.Parameter(torch.zeros(features))
        self.log_scale = nn.Parameter(torch.zeros(features))

    def forward(self, inputs, context=None):
        return (inputs - self.shift) * torch.exp(-self.log_scale), -self.log_scale.sum().expand(inputs.shape[0])

    def inverse(self, inputs, context=None):
        return inputs * torch.exp(self.log_scale) + self.shift, self.log_scale.sum().expand(inputs.shape[0])


class Flow(Distribution):
    def __init__(self, transform, distribution):
        super().__init__()
        self._transform = transform
        self._distribution = distribution

    def _log_prob(self, inputs, context):
        noise, logabsdet = self._transform(inputs, context=context)
        return self._distribution.log_prob(noise, context=context) + logabsdet

    def _sample(self, num_samples, context):
        noise = self._distribution.sample(num_samples, context=context)
        samples, _ = self._transform.inverse(noise, context=context)
        return samples


def run(device):
    flow = Flow(PointwiseAffine(2), StandardNormal([2])).to(device)
    data = torch.randn(8, 2, device=device)
    loss = -flow.log_prob(data).mean()
    loss.backward()
    return flow.sample(5)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
