"""von Mises-Fisher sampling by rejection (reconstruction of hyperspherical_vae/distributions/von_mises_fisher.py)."""

import math

import torch


class VonMisesFisher(torch.distributions.Distribution):
    arg_constraints = {}
    support = torch.distributions.constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.dtype = loc.dtype
        self.loc = loc
        self.scale = scale
        self.device = loc.device
        self.__m = loc.shape[-1]
        self.__e1 = torch.Tensor([1.0] + [0] * (loc.shape[-1] - 1)).to(self.device)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def rsample(self, shape=torch.Size()):
        shape = shape if isinstance(shape, torch.Size) else torch.Size([shape])
        w = self.__sample_w_rej(shape)
        v = torch.distributions.Normal(0, 1).sample(shape + torch.Size(self.loc.shape)).to(self.device)
        v = v.transpose(0, -1)[1:].transpose(0, -1)
        v = v / v.norm(dim=-1, keepdim=True)
        x = torch.cat((w, torch.sqrt(1 - w ** 2) * v), -1)
        return self.__householder_rotation(x).type(self.dtype)

    def __sample_w_rej(self, shape):
        c = torch.sqrt(4 * self.scale ** 2 + (self.__m - 1) ** 2)
        b_true = (-2 * self.scale + c) / (self.__m - 1)
        # switch smoothly to a Taylor approximation for large concentrations
        b_app = (self.__m - 1) / (4 * self.scale)
        s = torch.min(torch.max(torch.tensor([0.0], device=self.device), self.scale - 10),
                      torch.tensor([1.0], device=self.device))
        b = b_app * s + b_true * (1 - s)
        a = (self.__m - 1 + 2 * self.scale + c) / 4
        d = (4 * a * b) / (1 + b) - (self.__m - 1) * math.log(self.__m - 1)
        return self.__while_loop(b, a, d, shape)

    def __while_loop(self, b, a, d, shape):
        b, a, d = [e.repeat(*shape, *([1] * len(self.scale.shape))) for e in (b, a, d)]
        w = torch.zeros_like(b).to(self.device)
        pending = (torch.ones_like(b) == 1).to(self.device)
        shape = shape + torch.Size(self.scale.shape)
        beta = torch.distributions.Beta((self.__m - 1) / 2, (self.__m - 1) / 2)
        while pending.sum() != 0:
            e_ = beta.sample(shape[:-1]).reshape(shape).to(self.device)
            u = torch.distributions.Uniform(0, 1).sample(shape).to(self.device)
            w_ = (1 - (1 + b) * e_) / (1 - (1 - b) * e_)
            t = (2 * a * b) / (1 - (1 - b) * e_)
            accept = ((self.__m - 1) * t.log() - t + d) > torch.log(u)
            w[pending & accept] = w_[pending & accept]
            pending[pending & accept] = False
        return w

    def __householder_rotation(self, x):
        u = self.__e1 - self.loc
        u = u / (u.norm(dim=-1, keepdim=True) + 1e-5)
        return x - 2 * (x * u).sum(-1, keepdim=True) * u


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    encoder = torch.nn.Linear(16, 6).to(device)
    h = encoder(torch.rand(4, 16, device=device))
    loc = h[:, :5] / h[:, :5].norm(dim=-1, keepdim=True)
    scale = torch.nn.functional.softplus(h[:, 5:]) + 1
    return VonMisesFisher(loc, scale).rsample()


if __name__ == "__main__":
    main()
