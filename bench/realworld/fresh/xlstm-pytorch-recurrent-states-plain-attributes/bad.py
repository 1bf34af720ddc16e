"""xLSTM stack of mLSTM blocks with carried states (reconstruction of xLSTM/mLSTMblock.py and xLSTM/xLSTM.py)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class mLSTMBlock(nn.Module):
    def __init__(self, x_example, factor):
        super().__init__()
        self.input_size = x_example.shape[2]
        self.hidden_size = int(self.input_size * factor)
        self.ln = nn.LayerNorm(self.input_size)
        self.left = nn.Linear(self.input_size, self.hidden_size)
        self.right = nn.Linear(self.input_size, self.hidden_size)
        self.wq = nn.Linear(self.hidden_size, self.hidden_size)
        self.wk = nn.Linear(self.hidden_size, self.hidden_size)
        self.wv = nn.Linear(self.hidden_size, self.hidden_size)
        self.i_gate = nn.Linear(self.hidden_size, self.hidden_size)
        self.f_gate = nn.Linear(self.hidden_size, self.hidden_size)
        self.o_gate = nn.Linear(self.hidden_size, self.hidden_size)
        self.ln_c = nn.LayerNorm(self.hidden_size)
        self.ln_n = nn.LayerNorm(self.hidden_size)
        self.proj = nn.Linear(self.hidden_size, self.input_size)
        self.init_states(x_example)

    def init_states(self, x_example):
        # cell and normaliser states, made where the example tensor happens to live
        self.ct_1 = torch.zeros([1, 1, self.hidden_size], device=x_example.device)
        self.nt_1 = torch.zeros([1, 1, self.hidden_size], device=x_example.device)

    def forward(self, x):
        x = self.ln(x)
        left = self.left(x)
        right = F.silu(self.right(x))
        q, k, v = self.wq(left), self.wk(left), self.wv(left)
        i = torch.exp(self.i_gate(left).clamp(max=5))
        f = torch.exp(self.f_gate(left).clamp(max=5))
        o = torch.sigmoid(self.o_gate(left))

        ct = f * self.ct_1 + i * v * k
        ct = torch.mean(self.ln_c(ct), [0, 1], keepdim=True)
        self.ct_1 = ct.detach()

        nt = f * self.nt_1 + i * k
        nt = torch.mean(self.ln_n(nt), [0, 1], keepdim=True)
        self.nt_1 = nt.detach()

        ht = o * ((ct * q) / torch.max(nt * q))
        return self.proj(ht * right)


class xLSTM(nn.Module):
    def __init__(self, layers, x_example, factor=2):
        super().__init__()
        self.layers = nn.ModuleList()
        for kind in layers:
            if kind != "m":
                raise ValueError(f"unknown layer kind {kind!r}")
            self.layers.append(mLSTMBlock(x_example, factor))

    def forward(self, x):
        skip = x.clone()
        for layer in self.layers:
            x = layer(x) + skip
        return x


def run(device):
    x_example = torch.zeros(1, 5, 8)
    model = xLSTM("mm", x_example).to(device)
    batch = torch.randn(2, 5, 8).to(device)
    return model(batch)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
