"""Diffusion-convolution GRU (reconstruction of nn/recurrent/dcrnn.py)."""

import torch
from torch import nn


def dense_adjacency(edge_index, edge_weight, num_nodes):
    """Stands in for torch_geometric.utils.to_dense_adj (keeps the device of its inputs)."""
    adj = torch.zeros(1, num_nodes, num_nodes, device=edge_index.device)
    adj[0, edge_index[0], edge_index[1]] = edge_weight
    return adj


class DiffusionConv(nn.Module):
    def __init__(self, in_channels, out_channels, hops):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, hops, in_channels, out_channels) * 0.1)
        self.bias = nn.Parameter(torch.zeros(out_channels))

    def propagate(self, edge_index, x, norm):
        row, col = edge_index
        out = torch.zeros_like(x)
        return out.index_add(0, col, norm.view(-1, 1) * x[row])

    def forward(self, x, edge_index, edge_weight):
        adj = dense_adjacency(edge_index, edge_weight, x.size(0))
        adj = adj.reshape(adj.size(1), adj.size(2))
        deg_out = torch.matmul(adj, torch.ones(size=(adj.size(0), 1)).to(x.device)).flatten()
        deg_in = torch.matmul(torch.ones(size=(1, adj.size(0))).to(x.device), adj).flatten()
        norm_out = torch.reciprocal(deg_out)[edge_index[0]]
        norm_in = torch.reciprocal(deg_in)[edge_index[0]]

        out = torch.matmul(x, self.weight[0][0]) + torch.matmul(x, self.weight[1][0])
        if self.weight.size(1) > 1:
            hop_out = self.propagate(edge_index, x, norm_out)
            hop_in = self.propagate(edge_index, x, norm_in)
            out = out + torch.matmul(hop_out, self.weight[0][1]) + torch.matmul(hop_in, self.weight[1][1])
        return out + self.bias


class DCRNN(nn.Module):
    def __init__(self, in_channels, out_channels, hops):
        super().__init__()
        self.out_channels = out_channels
        self.conv_x_z = DiffusionConv(in_channels + out_channels, out_channels, hops)
        self.conv_x_r = DiffusionConv(in_channels + out_channels, out_channels, hops)
        self.conv_x_h = DiffusionConv(in_channels + out_channels, out_channels, hops)

    def _set_hidden_state(self, X, H):
        if H is None:
            H = torch.zeros(X.shape[0], self.out_channels).to(X.device)
        return H

    def forward(self, X, edge_index, edge_weight, H=None):
        H = self._set_hidden_state(X, H)
        Z = torch.sigmoid(self.conv_x_z(torch.cat([X, H], dim=1), edge_index, edge_weight))
        R = torch.sigmoid(self.conv_x_r(torch.cat([X, H], dim=1), edge_index, edge_weight))
        H_tilde = torch.tanh(self.conv_x_h(torch.cat([X, H * R], dim=1), edge_index, edge_weight))
        return Z * H + (1 - Z) * H_tilde


def main(device):
    model = DCRNN(in_channels=4, out_channels=8, hops=2).to(device)
    edge_index = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]], device=device)
    edge_weight = torch.ones(4, device=device)
    x = torch.rand(4, 4, device=device)
    return model(x, edge_index, edge_weight)


if __name__ == "__main__":
    main(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
