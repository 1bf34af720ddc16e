"""Hyperspherical distributions (reconstruction of hyperspherical_vae/distributions/
hyperspherical_uniform.py and von_mises_fisher.py, with the vMF reduced to the 2-sphere)."""

import math

import torch
from torch.distributions.kl import register_kl


class HypersphericalUniform(torch.distributions.Distribution):
    arg_constraints = {}
    support = torch.distributions.constraints.real

    def __init__(self, dim, validate_args=None, device="cpu"):
        super().__init__(torch.Size([dim]), validate_args=validate_args)
        self._dim = dim
        self.device = device if isinstance(device, torch.device) else torch.device(device)

    def sample(self, shape=torch.Size()):
        shape = shape if isinstance(shape, torch.Size) else torch.Size([shape])
        out = torch.distributions.Normal(0, 1).sample(shape + torch.Size([self._dim + 1])).to(self.device)
        return out / out.norm(dim=-1, keepdim=True)

    def entropy(self):
        return self.__log_surface_area()

    def log_prob(self, x):
        return -torch.ones(x.shape[:-1], device=self.device) * self.__log_surface_area()

    def __log_surface_area(self):
        half = (self._dim + 1) / 2
        return math.log(2) + half * math.log(math.pi) - torch.lgamma(torch.Tensor([half], device=self.device))


class VonMisesFisher(torch.distributions.Distribution):
    arg_constraints = {}
    support = torch.distributions.constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = loc, scale
        self.device = loc.device
        super().__init__(loc.size(), validate_args=validate_args)

    def entropy(self):
        k = self.scale.squeeze(-1)
        # closed form on the 2-sphere
        return -k / torch.tanh(k) + 1 + torch.log(4 * math.pi * torch.sinh(k) / k)


@register_kl(VonMisesFisher, HypersphericalUniform)
def _kl_vmf_uniform(vmf, hyu):
    return -vmf.entropy() + hyu.entropy()
