"""Looking up which partition owns each node (reconstruction of graphlearn_torch/python/distributed/dist_graph.py
and the neighbour sampler that queries it)."""

from typing import Dict, Optional, Union

import torch


class DistGraph:
    """A graph partition plus the partition books (node id -> owning partition), kept on the CPU."""

    def __init__(self, num_partitions: int, partition_idx: int,
                 node_pb: Union[torch.Tensor, Dict[str, torch.Tensor]],
                 edge_pb: Union[torch.Tensor, Dict[str, torch.Tensor]]):
        self.num_partitions = num_partitions
        self.partition_idx = partition_idx
        self.data_cls = "hetero" if isinstance(node_pb, dict) else "homo"
        self.node_pb = node_pb
        self.edge_pb = edge_pb

    def get_node_partitions(self, ids: torch.Tensor, ntype: Optional[str] = None):
        if self.data_cls == "hetero":
            assert ntype is not None
            return self.node_pb[ntype][ids]
        return self.node_pb[ids]

    def get_edge_partitions(self, eids: torch.Tensor, etype: Optional[str] = None):
        if self.data_cls == "hetero":
            assert etype is not None
            return self.edge_pb[etype][eids]
        return self.edge_pb[eids]


class DistNeighborSampler:
    def __init__(self, dist_graph: DistGraph, device: torch.device):
        self.dist_graph = dist_graph
        self.device = device

    def sample_one_hop(self, seeds: torch.Tensor):
        nodes = seeds.to(self.device)
        partition_ids = self.dist_graph.get_node_partitions(nodes)
        local = nodes[partition_ids == self.dist_graph.partition_idx]
        remote = nodes[partition_ids != self.dist_graph.partition_idx]
        return local, remote


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    node_pb = torch.randint(0, 2, (100,))  # loaded from the partition files, on the CPU
    edge_pb = torch.randint(0, 2, (400,))
    sampler = DistNeighborSampler(DistGraph(2, 0, node_pb, edge_pb), device)
    return sampler.sample_one_hop(torch.randint(0, 100, (16,)))


if __name__ == "__main__":
    main()
