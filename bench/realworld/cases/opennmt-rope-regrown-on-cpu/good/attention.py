"""Self-attention with rotary embeddings (reconstruction of onmt/modules/multi_headed_attn.py)."""

import torch
from torch import nn


def rotaryembeddings(dim, maxseqlen=16, base=10000):
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
    tmax = torch.arange(maxseqlen, device=inv_freq.device)
    angles = torch.outer(tmax, inv_freq).float()
    rope = torch.polar(torch.ones_like(angles), angles)
    return torch.cat((rope, rope), dim=1)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_emb(query, key, rope):
    cos, sin = rope.real, rope.imag
    return query * cos + rotate_half(query) * sin, key * cos + rotate_half(key) * sin


class MultiHeadedAttention(nn.Module):
    def __init__(self, head_count, model_dim, max_relative_positions=-1):
        super().__init__()
        self.head_count = head_count
        self.dim_per_head = model_dim // head_count
        self.linear_query = nn.Linear(model_dim, model_dim)
        self.linear_keys = nn.Linear(model_dim, model_dim)
        self.linear_values = nn.Linear(model_dim, model_dim)
        self.final_linear = nn.Linear(model_dim, model_dim)
        self.max_relative_positions = max_relative_positions
        self.layer_cache = (False, {"keys": torch.tensor([]), "values": torch.tensor([])})
        if max_relative_positions == -1:
            self.rope = rotaryembeddings(self.dim_per_head)

    def _shape(self, x):
        b, l, _ = x.shape
        return x.view(b, l, self.head_count, self.dim_per_head).transpose(1, 2)

    def forward(self, query, step=0):
        q = self._shape(self.linear_query(query))
        k = self._shape(self.linear_keys(query))
        v = self._shape(self.linear_values(query))
        if self.max_relative_positions == -1:
            start_pos = step if self.layer_cache[0] else 0
            seqlen = q.size(2)
            if seqlen > self.rope.size(0):
                self.rope = rotaryembeddings(self.dim_per_head, maxseqlen=(seqlen + 16)).to(self.rope.device)
            rope = self.rope[start_pos: start_pos + seqlen]
            q, k = apply_rotary_emb(q, k, rope)
        if self.layer_cache[0]:
            if self.layer_cache[1]["keys"].numel() != 0:
                k = torch.cat((self.layer_cache[1]["keys"], k), dim=2)
                v = torch.cat((self.layer_cache[1]["values"], v), dim=2)
            self.layer_cache[1]["keys"], self.layer_cache[1]["values"] = k, v
        attn = torch.softmax(q @ k.transpose(2, 3) / self.dim_per_head ** 0.5, dim=-1)
        context = (attn @ v).transpose(1, 2).reshape(query.shape)
        return self.final_linear(context)
