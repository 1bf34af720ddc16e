"""Invertible 1x1 convolution of the Glow post-net (reconstruction of PortaSpeech/Glow.py)."""

import torch
from torch import nn
from torch.nn import functional as F


class InvConvNear(nn.Module):
    def __init__(self, channels, n_split=4):
        super().__init__()
        self.channels = channels
        self.n_split = n_split
        w_init = torch.linalg.qr(torch.randn(n_split, n_split))[0]
        p, l, u = torch.linalg.lu(w_init)
        s = torch.diagonal(u)
        self.register_buffer("p", p)
        self.register_buffer("sign_s", torch.sign(s))
        self.register_buffer("l_mask", torch.tril(torch.ones(n_split, n_split), -1))
        self.register_buffer("eye", torch.eye(n_split))
        self.l = nn.Parameter(l)
        self.log_s = nn.Parameter(torch.log(torch.abs(s)))
        self.u = nn.Parameter(torch.triu(u, diagonal=1))

    def _get_weight(self):
        l = self.l * self.l_mask + self.eye
        u = self.u * self.l_mask.transpose(0, 1) + torch.diag(self.sign_s * torch.exp(self.log_s))
        return torch.matmul(self.p, torch.matmul(l, u)), self.log_s

    def forward(self, x, reverse=False):
        b, c, t = x.size()
        x = x.view(b, 2, c // self.n_split, self.n_split // 2, t).permute(0, 1, 3, 2, 4)
        x = x.contiguous().view(b, self.n_split, c // self.n_split, t)
        if reverse:
            if hasattr(self, "weight_inv"):
                weight = self.weight_inv
            else:
                weight = torch.inverse(self._get_weight()[0].float())
        else:
            weight = self._get_weight()[0]
        weight = weight.view(self.n_split, self.n_split, 1, 1).to(x.device)
        z = F.conv2d(x, weight)
        z = z.view(b, 2, self.n_split // 2, c // self.n_split, t).permute(0, 1, 3, 2, 4)
        return z.contiguous().view(b, c, t)

    def store_inverse(self):
        weight, _ = self._get_weight()
        self.weight_inv = torch.inverse(weight.float()).to(next(self.parameters()).device)
