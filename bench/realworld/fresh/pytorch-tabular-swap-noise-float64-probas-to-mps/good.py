"""Denoising auto-encoder with swap noise (reconstruction of pytorch_tabular/ssl_models/common/noise_generators.py
and ssl_models/dae/dae.py)."""

import numpy as np
import torch
import torch.nn as nn


class SwapNoiseCorrupter(nn.Module):
    """Each value is swapped, with its column's probability, for the same column of another row."""

    def __init__(self, probas):
        super().__init__()
        self.probas = torch.from_numpy(np.array(probas, dtype=np.float32))

    def forward(self, x):
        should_swap = torch.bernoulli(self.probas.to(x.device) * torch.ones(x.shape).to(x.device))
        corrupted = torch.where(should_swap == 1, x[torch.randperm(x.shape[0])], x)
        return corrupted, (corrupted != x).float()


class DenoisingAutoEncoderFeaturizer(nn.Module):
    def __init__(self, categorical_cardinality, continuous_cols, noise_probabilities, default_noise=0.8):
        super().__init__()
        self.categorical_cardinality = categorical_cardinality
        self.continuous_cols = continuous_cols
        self.noise_probabilities = noise_probabilities
        self.default_noise = default_noise
        self._build_network()

    def _noise(self, name):
        return self.noise_probabilities.get(name, self.default_noise)

    def _build_network(self):
        swap_probabilities = []
        for name, cardinality in self.categorical_cardinality.items():
            if cardinality == 2:
                swap_probabilities += [self._noise(name)]
            else:
                swap_probabilities += [self._noise(name)] * cardinality
        for name in self.continuous_cols:
            swap_probabilities.append(self._noise(name))
        self.swap_noise = SwapNoiseCorrupter(swap_probabilities)
        width = len(swap_probabilities)
        self.encoder = nn.Sequential(nn.Linear(width, 16), nn.ReLU())
        self.decoder = nn.Linear(16, width)

    def forward(self, x, perturb=True):
        mask = None
        if perturb:
            with torch.no_grad():
                x, mask = self.swap_noise(x)
        return self.decoder(self.encoder(x)), mask


def main():
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = DenoisingAutoEncoderFeaturizer({"colour": 3, "flag": 2}, ["age", "income"], {"age": 0.3}).to(device)
    batch = torch.rand(8, 6, device=device)
    reconstruction, mask = model(batch)
    return nn.functional.mse_loss(reconstruction, batch)


if __name__ == "__main__":
    main()
