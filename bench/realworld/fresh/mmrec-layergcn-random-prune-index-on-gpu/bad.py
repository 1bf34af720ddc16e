"""Edge pruning between epochs of a graph recommender (reconstruction of src/models/layergcn.py: LayerGCN)."""

import random

import torch
import torch.nn as nn


class LayerGCN(nn.Module):
    def __init__(self, config, interactions, n_users, n_items):
        super().__init__()
        self.device = config["device"]
        self.dropout = config["dropout"]
        self.n_users, self.n_items = n_users, n_items
        self.user_embeddings = nn.Parameter(nn.init.xavier_uniform_(torch.empty(n_users, config["embedding_size"])))
        self.item_embeddings = nn.Parameter(nn.init.xavier_uniform_(torch.empty(n_items, config["embedding_size"])))
        self.interactions = interactions  # (rows, cols) of the user-item matrix
        self.masked_adj = None
        self.pruning_random = False
        # the edge list and its normalised weights stay on the CPU
        self.edge_indices, self.edge_values = self.get_edge_info()

    def _normalize_adj_m(self, indices, adj_size):
        adj = torch.sparse_coo_tensor(indices, torch.ones_like(indices[0]), adj_size)
        row_sum = 1e-7 + torch.sparse.sum(adj, -1).to_dense()
        col_sum = 1e-7 + torch.sparse.sum(adj.t(), -1).to_dense()
        return torch.pow(row_sum, -0.5)[indices[0]] * torch.pow(col_sum, -0.5)[indices[1]]

    def get_edge_info(self):
        rows, cols = self.interactions
        edges = torch.stack([torch.as_tensor(rows), torch.as_tensor(cols)]).long()
        return edges, self._normalize_adj_m(edges, torch.Size((self.n_users, self.n_items)))

    def pre_epoch_processing(self):
        keep_len = int(self.edge_values.size(0) * (1.0 - self.dropout))
        if self.pruning_random:
            keep_idx = torch.tensor(random.sample(range(self.edge_values.size(0)), keep_len)).to(self.device)
        else:
            keep_idx = torch.multinomial(self.edge_values, keep_len)  # prune high-degree nodes
        self.pruning_random = True ^ self.pruning_random  # alternate the two strategies
        keep_indices = self.edge_indices[:, keep_idx]
        keep_values = self._normalize_adj_m(keep_indices, torch.Size((self.n_users, self.n_items)))
        all_values = torch.cat((keep_values, keep_values))
        keep_indices[1] += self.n_users
        all_indices = torch.cat((keep_indices, torch.flip(keep_indices, [0])), 1)
        n = self.n_users + self.n_items
        self.masked_adj = torch.sparse_coo_tensor(all_indices, all_values, (n, n)).to(self.device)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rows = [random.randrange(20) for _ in range(200)]
    cols = [random.randrange(30) for _ in range(200)]
    model = LayerGCN({"device": device, "dropout": 0.2, "embedding_size": 8}, (rows, cols), 20, 30).to(device)
    for epoch in range(3):  # the trainer calls this before every epoch
        model.pre_epoch_processing()
    return model.masked_adj


if __name__ == "__main__":
    main()
