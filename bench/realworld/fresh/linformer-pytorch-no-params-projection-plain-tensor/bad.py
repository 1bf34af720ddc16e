"""Linformer with fixed (non-learned) E/F projections (reconstruction of linformer_pytorch/linformer_pytorch.py)."""

import torch
import torch.nn as nn


def get_EF(input_size, dim, method="learnable", bias=True):
    """The sequence-length projection: a Linear layer, or, for "no_params", a fixed random matrix."""
    assert method in ("learnable", "no_params")
    if method == "no_params":
        mat = torch.zeros((input_size, dim))
        torch.nn.init.normal_(mat, mean=0.0, std=1 / dim)
        return mat
    lin = nn.Linear(input_size, dim, bias)
    torch.nn.init.xavier_normal_(lin.weight)
    return lin


class LinearAttentionHead(nn.Module):
    def __init__(self, dim, dropout, E_proj, F_proj):
        super().__init__()
        self.E = E_proj
        self.F = F_proj
        self.dim = dim
        self.dropout = nn.Dropout(dropout)
        self.is_proj_tensor = isinstance(E_proj, torch.Tensor)

    def forward(self, Q, K, V):
        K = K.transpose(1, 2)
        if self.is_proj_tensor:
            K = torch.matmul(K, self.E)
        else:
            K = self.E(K)
        P_bar = (torch.matmul(Q, K) / self.dim ** 0.5).softmax(dim=-1)
        P_bar = self.dropout(P_bar)
        V = V.transpose(1, 2)
        if self.is_proj_tensor:
            V = torch.matmul(V, self.F)
        else:
            V = self.F(V)
        return torch.matmul(P_bar, V.transpose(1, 2))


class MHAttention(nn.Module):
    def __init__(self, input_size, dim, channels, dim_k, nhead, dropout, E_proj, F_proj):
        super().__init__()
        self.heads = nn.ModuleList()
        self.to_q = nn.ModuleList()
        self.to_k = nn.ModuleList()
        self.to_v = nn.ModuleList()
        for _ in range(nhead):
            self.heads.append(LinearAttentionHead(dim, dropout, E_proj, F_proj))
            self.to_q.append(nn.Linear(channels, dim, bias=False))
            self.to_k.append(nn.Linear(channels, dim, bias=False))
            self.to_v.append(nn.Linear(channels, dim, bias=False))
        self.w_o = nn.Linear(dim * nhead, channels)

    def forward(self, tensor):
        heads = [head(q(tensor), k(tensor), v(tensor))
                 for head, q, k, v in zip(self.heads, self.to_q, self.to_k, self.to_v)]
        return self.w_o(torch.cat(heads, dim=2))


class Linformer(nn.Module):
    def __init__(self, input_size, channels, dim_k=8, dim_ff=32, nhead=2, depth=2, dropout=0.1, method="learnable"):
        super().__init__()
        head_dim = channels // nhead
        E_proj = get_EF(input_size, dim_k, method)
        get_attn = lambda: MHAttention(input_size, head_dim, channels, dim_k, nhead, dropout, E_proj, E_proj)
        get_ff = lambda: nn.Sequential(nn.Linear(channels, dim_ff), nn.GELU(), nn.Linear(dim_ff, channels))
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(get_attn())
            self.layers.append(get_ff())
        self.norms = nn.ModuleList(nn.LayerNorm(channels) for _ in range(2 * depth))

    def forward(self, tensor):
        for layer, norm in zip(self.layers, self.norms):
            tensor = norm(tensor + layer(tensor))
        return tensor


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Linformer(input_size=16, channels=8, method="no_params").to(device)
    return model(torch.randn(2, 16, 8, device=device))


if __name__ == "__main__":
    main()
