"""Sinusoidal positional encoding with a per-shape cache (reconstruction of torch_encodings.py) and a model using it."""

import torch
from torch import nn


def interleave(sin_inp):
    return torch.flatten(torch.stack((sin_inp.sin(), sin_inp.cos()), dim=-1), -2, -1)


class PositionalEncoding1D(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.org_channels = channels
        channels = (channels + 1) // 2 * 2
        self.channels = channels
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, channels, 2).float() / channels)))
        self.cached_penc = None

    def forward(self, tensor):
        if self.cached_penc is not None and self.cached_penc.shape == tensor.shape:
            return self.cached_penc

        self.cached_penc = None
        batch_size, length, orig_ch = tensor.shape
        pos = torch.arange(length, device=tensor.device).type(self.inv_freq.type())
        emb = torch.zeros((length, self.channels), device=tensor.device).type(tensor.type())
        emb[:, : self.channels] = interleave(torch.einsum("i,j->ij", pos, self.inv_freq))
        self.cached_penc = emb[None, :, :orig_ch].repeat(batch_size, 1, 1)
        return self.cached_penc


class SequenceModel(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.pos = PositionalEncoding1D(dim)
        self.mix = nn.Linear(dim, dim)

    def forward(self, x):
        return self.mix(x + self.pos(x))


def main(device):
    model = SequenceModel(dim=6)
    sample = torch.rand(2, 5, 6)
    print("output shape:", model(sample).shape)  # quick check on the CPU before training
    model.to(device)
    return model(sample.to(device))


def run(device):
    main(device)


if __name__ == "__main__":
    main(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
