"""LightGCN recommender (reconstruction of libreco/algorithms/lightgcn.py and torch_modules/lightgcn_module.py)."""

import numpy as np
import torch
from torch import nn


class LightGCNModel(nn.Module):
    def __init__(self, n_users, n_items, embed_size, n_layers, user_consumed, device=torch.device("cpu")):
        super().__init__()
        self.n_users = n_users
        self.n_items = n_items
        self.embed_size = embed_size
        self.n_layers = n_layers
        self.user_consumed = user_consumed
        self.device = device
        self.user_init_embeds, self.item_init_embeds = self.init_embeds()
        self.laplacian_matrix = self._build_laplacian_matrix()

    def init_embeds(self):
        user_embeds = nn.Embedding(self.n_users, self.embed_size)
        item_embeds = nn.Embedding(self.n_items, self.embed_size)
        nn.init.normal_(user_embeds.weight, 0.0, 0.1)
        nn.init.normal_(item_embeds.weight, 0.0, 0.1)
        return user_embeds.to(self.device), item_embeds.to(self.device)

    def _build_laplacian_matrix(self):
        n = self.n_users + self.n_items
        adj = np.zeros((n, n), dtype=np.float32)
        for u in range(self.n_users):
            for i in self.user_consumed[u]:
                adj[u, self.n_users + i] = adj[self.n_users + i, u] = 1.0
        deg = adj.sum(axis=1)
        inv = np.where(deg > 0, deg ** -0.5, 0.0)
        norm = inv[:, None] * adj * inv[None, :]
        rows, cols = np.nonzero(norm)
        indices = torch.from_numpy(np.array([rows, cols]))
        values = torch.from_numpy(norm[rows, cols])
        return torch.sparse_coo_tensor(indices, values, (n, n), dtype=torch.float32, device=self.device)

    def forward(self):
        return self.embedding_propagation()

    def embedding_propagation(self):
        all_embeddings = [torch.cat([self.user_init_embeds.weight, self.item_init_embeds.weight], dim=0)]
        for _ in range(self.n_layers):
            all_embeddings.append(torch.sparse.mm(self.laplacian_matrix, all_embeddings[-1]))
        mean = torch.stack(all_embeddings, dim=1).mean(dim=1)
        return torch.split(mean, [self.n_users, self.n_items])


class LightGCN:
    def __init__(self, n_users, n_items, user_consumed, embed_size=4, n_layers=2, device="cuda"):
        self.n_users, self.n_items = n_users, n_items
        self.user_consumed = user_consumed
        self.embed_size, self.n_layers = embed_size, n_layers
        self.device = torch.device(device if device == "cpu" or torch.cuda.is_available() else "cpu")

    def build_model(self):
        self.torch_model = LightGCNModel(self.n_users, self.n_items, self.embed_size, self.n_layers,
                                         self.user_consumed, self.device)

    def fit(self, pairs, epochs=1):
        self.build_model()
        optimizer = torch.optim.Adam(self.torch_model.parameters(), lr=1e-3)
        users = torch.tensor([u for u, _ in pairs], device=self.device)
        items = torch.tensor([i for _, i in pairs], device=self.device)
        for _ in range(epochs):
            user_embeds, item_embeds = self.torch_model()
            loss = -torch.log(torch.sigmoid((user_embeds[users] * item_embeds[items]).sum(-1))).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    consumed = {0: [0, 1], 1: [2], 2: [1, 3]}
    LightGCN(3, 4, consumed).fit([(0, 0), (1, 2), (2, 3)])
