"""Causal effect VAE training (reconstruction of pyro/contrib/cevae/__init__.py, CEVAE.fit)."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class PreWhitener(nn.Module):
    def __init__(self, data):
        super().__init__()
        self.loc = data.mean(0)
        self.inv_scale = data.std(0).clamp(min=1e-6).reciprocal()

    def forward(self, data):
        return (data - self.loc) * self.inv_scale


class CEVAE(nn.Module):
    def __init__(self, feature_dim, latent_dim=4):
        super().__init__()
        self.feature_dim = feature_dim
        self.encoder = nn.Linear(feature_dim + 2, latent_dim)
        self.decoder = nn.Linear(latent_dim + 1, feature_dim + 1)

    def loss(self, x, t, y):
        z = self.encoder(torch.cat([x, t[:, None], y[:, None]], dim=-1))
        recon = self.decoder(torch.cat([z, t[:, None]], dim=-1))
        return (recon - torch.cat([x, y[:, None]], dim=-1)).pow(2).mean()

    def fit(self, x, t, y, num_epochs=2, batch_size=10, learning_rate=1e-3):
        assert x.dim() == 2 and x.size(-1) == self.feature_dim
        self.whiten = PreWhitener(x)
        dataset = TensorDataset(x, t, y)
        dataloader = DataLoader(
            dataset,
            batch_size=batch_size,
            shuffle=True,
            generator=torch.Generator(device=x.device),
        )
        optim = torch.optim.Adam(self.parameters(), lr=learning_rate)
        losses = []
        for epoch in range(num_epochs):
            for x, t, y in dataloader:
                x = self.whiten(x)
                loss = self.loss(x, t, y)
                optim.zero_grad()
                loss.backward()
                optim.step()
                losses.append(loss.item())
        return losses
