"""Fully connected edge index for the n-body GNN baseline (reconstruction of gatr/utils/misc.py and nbody/wrappers.py)."""

from functools import lru_cache
from itertools import product

import torch
from torch import nn


@lru_cache()
@torch.no_grad()
def make_full_edge_index(num_nodes, batchsize=1, self_loops=False, device=torch.device("cpu")):
    src, dst = [], []
    for i, j in product(range(num_nodes), repeat=2):
        if not self_loops and i == j:
            continue
        src.append(i)
        dst.append(j)
    edge_index_per_batch = torch.LongTensor([src, dst], device=device)
    if batchsize > 1:
        edge_index = torch.cat([edge_index_per_batch + k * num_nodes for k in range(batchsize)], dim=1)
    else:
        edge_index = edge_index_per_batch
    return edge_index


class MessagePassingNet(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.message = nn.Linear(2 * channels, channels)

    def forward(self, x, edge_index):
        src, dst = edge_index
        messages = self.message(torch.cat([x[src], x[dst]], dim=-1))
        return x + torch.zeros_like(x).index_add(0, dst, messages)


class NBodyGNNWrapper(nn.Module):
    def __init__(self, net, geometric_batching=True):
        super().__init__()
        self.net = net
        self._geometric_batching = geometric_batching

    def forward(self, inputs):
        if self._geometric_batching:
            edge_index = self.make_edge_index(inputs)
            flat = inputs.reshape(-1, inputs.shape[-1])
            return self.net(flat, edge_index=edge_index).view_as(inputs)
        return self.net(inputs)

    @staticmethod
    def make_edge_index(inputs):
        batchsize, num_items, _ = inputs.shape
        return make_full_edge_index(num_items, batchsize, False, inputs.device)


def run(device):
    model = NBodyGNNWrapper(MessagePassingNet(channels=4)).to(device)
    inputs = torch.randn(2, 5, 4, device=device)
    return model(inputs)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
