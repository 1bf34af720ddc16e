"""Preference model of preference-comparison reward learning (reconstruction of
src/imitation/algorithms/preference_comparisons.py, PreferenceModel)."""

import torch as th
from torch import nn


class RewardNet(nn.Module):
    def __init__(self, obs_dim=4):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU(), nn.Linear(16, 1))

    @property
    def device(self):
        return next(self.parameters()).device

    def preprocess(self, obs):
        return (th.as_tensor(obs, dtype=th.float32, device=self.device),)

    def forward(self, obs):
        return self.mlp(obs).squeeze(-1)


class PreferenceModel(nn.Module):
    def __init__(self, model, noise_prob=0.0, discount_factor=1.0, threshold=50):
        super().__init__()
        self.model = model
        self.noise_prob = noise_prob
        self.discount_factor = discount_factor
        self.threshold = threshold

    def forward(self, fragment_pairs):
        probs = th.empty(len(fragment_pairs), dtype=th.float32)
        for i, (frag1, frag2) in enumerate(fragment_pairs):
            rews1 = self.rewards(frag1)
            rews2 = self.rewards(frag2)
            probs[i] = self.probability(rews1, rews2)
        return probs

    def rewards(self, obs):
        preprocessed = self.model.preprocess(obs)
        rews = self.model(*preprocessed)
        assert rews.shape == (len(obs),)
        return rews

    def probability(self, rews1, rews2):
        assert rews1.ndim == rews2.ndim == 1
        if self.discount_factor == 1:
            returns_diff = (rews2 - rews1).sum(axis=0)
        else:
            discounts = self.discount_factor ** th.arange(len(rews1))
            returns_diff = (discounts * (rews2 - rews1)).sum(axis=0)
        returns_diff = th.clip(returns_diff, -self.threshold, self.threshold)
        model_probability = 1 / (1 + returns_diff.exp())
        return self.noise_prob * 0.5 + (1 - self.noise_prob) * model_probability


def train_reward(device, discount_factor=0.99):
    preference_model = PreferenceModel(RewardNet().to(device), discount_factor=discount_factor)
    pairs = [(th.randn(5, 4).numpy(), th.randn(5, 4).numpy()) for _ in range(3)]
    preferences = th.tensor([1.0, 0.0, 1.0])
    probs = preference_model(pairs)
    loss = nn.functional.binary_cross_entropy(probs, preferences)
    loss.backward()


if __name__ == "__main__":
    train_reward(th.device("cuda" if th.cuda.is_available() else "cpu"))
