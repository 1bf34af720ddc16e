"""Two-stream adaptive GCN block (reconstruction of nn/attention/tsagcn.py)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def to_dense_adj(edge_index, num_nodes):
    """Stands in for torch_geometric.utils.to_dense_adj (keeps edge_index's device)."""
    adj = torch.zeros(1, num_nodes, num_nodes, device=edge_index.device)
    adj[0, edge_index[0], edge_index[1]] = 1.0
    return adj


class GraphAAGCN:
    """Self, inward and outward adjacency of the skeleton graph, stacked to (3, num_nodes, num_nodes)."""

    def __init__(self, edge_index, num_nodes):
        self.num_nodes = num_nodes
        self.edge_index = edge_index
        self.A = self.get_spatial_graph(self.num_nodes)

    def get_spatial_graph(self, num_nodes):
        self_mat = torch.eye(num_nodes, device=self.edge_index.device)
        inward_mat = torch.squeeze(to_dense_adj(self.edge_index, num_nodes))
        inward_mat_norm = F.normalize(inward_mat, dim=0, p=1)
        outward_mat_norm = F.normalize(inward_mat.transpose(0, 1), dim=0, p=1)
        return torch.stack((self_mat, inward_mat_norm, outward_mat_norm))


class UnitGCN(nn.Module):
    def __init__(self, in_channels, out_channels, A, num_subset=3):
        super().__init__()
        self.num_subset = num_subset
        self.PA = nn.Parameter(A)
        self.alpha = nn.Parameter(torch.zeros(1))
        self.conv_d = nn.ModuleList([nn.Conv2d(in_channels, out_channels, 1) for _ in range(num_subset)])

    def forward(self, x):
        N, C, T, V = x.size()
        y = None
        for i in range(self.num_subset):
            z = self.conv_d[i](torch.matmul(x.view(N, C * T, V), self.PA[i]).view(N, C, T, V))
            y = z + y if y is not None else z
        return torch.relu(y)


class AAGCN(nn.Module):
    def __init__(self, in_channels, out_channels, edge_index, num_nodes):
        super().__init__()
        self.edge_index = edge_index
        self.num_nodes = num_nodes
        self.graph = GraphAAGCN(self.edge_index, self.num_nodes)
        self.A = self.graph.A
        self.gcn1 = UnitGCN(in_channels, out_channels, self.A)
        self.tcn1 = nn.Conv2d(out_channels, out_channels, (3, 1), padding=(1, 0))

    def forward(self, x):
        return torch.relu(self.tcn1(self.gcn1(x)))


def run(device):
    edge_index = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]]).to(device)
    model = AAGCN(in_channels=2, out_channels=4, edge_index=edge_index, num_nodes=5).to(device)
    return model(torch.randn(3, 2, 6, 5, device=device))


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
