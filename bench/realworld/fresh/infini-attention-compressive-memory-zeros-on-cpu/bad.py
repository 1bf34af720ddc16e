"""Infini-attention layer with a compressive memory (reconstruction of infini_attention/infini_attention.py)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class InfiniAttention(nn.Module):
    def __init__(self, seq_len, emb_dim, d_head, n_head, n_segments, is_causal=True,
                 update="linear", device="cpu"):
        super().__init__()
        if update not in ("linear", "delta"):
            raise ValueError("update is 'linear' or 'delta'")
        self.seq_len = seq_len
        self.n_segments = n_segments
        self.n_head = n_head
        self.emb_dim = emb_dim
        self.d_head = d_head
        self.is_causal = is_causal
        self.update = update
        self.device = device
        self.beta = nn.Parameter(torch.ones((1,), device=device))
        self.q = nn.Linear(emb_dim, emb_dim, device=device)
        self.k = nn.Linear(emb_dim, emb_dim, device=device)
        self.v = nn.Linear(emb_dim, emb_dim, device=device)
        self.o = nn.Linear(emb_dim, emb_dim, device=device)
        self.elu = nn.ELU()
        seg = seq_len // n_segments
        self.register_buffer("causal", torch.tril(torch.ones(seg, seg, device=device)))

    def forward(self, x):
        batch = x.size(0)
        # the memory and its normaliser start empty for every sequence
        memory = torch.zeros((self.n_head, self.d_head, self.d_head))
        z = torch.zeros((self.n_head, self.d_head, 1))

        shape = (batch, self.n_head, self.n_segments, self.seq_len // self.n_segments, self.d_head)
        query = self.q(x).view(shape)
        key = self.k(x).view(shape)
        value = self.v(x).view(shape)

        pieces = []
        for idx in range(self.n_segments):
            sq = self.elu(query[:, :, idx]) + 1.0
            sk = self.elu(key[:, :, idx]) + 1.0
            from_memory = (sq @ memory) / ((sq @ z) + 1e-6)

            local = query[:, :, idx] @ key[:, :, idx].transpose(-2, -1)
            if self.is_causal:
                local = local.masked_fill(self.causal == 0, float("-inf"))
            local = F.softmax(local / self.d_head ** 0.5, dim=-1) @ value[:, :, idx]

            gate = torch.sigmoid(self.beta)
            pieces.append(gate * from_memory + (1 - gate) * local)

            if self.update == "linear":
                memory = memory + sk.transpose(-2, -1) @ value[:, :, idx]
            else:
                retrieved = (sk @ memory) / ((sk @ z) + 1e-6)
                memory = memory + sk.transpose(-2, -1) @ (value[:, :, idx] - retrieved)
            z = z + sk.sum(dim=-2, keepdim=True)

        out = torch.cat(pieces, dim=2).view(batch, self.seq_len, self.emb_dim)
        return self.o(out)


def run(device):
    layer = InfiniAttention(seq_len=8, emb_dim=16, d_head=4, n_head=4, n_segments=2, device=device)
    x = torch.randn(2, 8, 16, device=device)
    return layer(x)


if __name__ == "__main__":
    run("cuda" if torch.cuda.is_available() else "cpu")
