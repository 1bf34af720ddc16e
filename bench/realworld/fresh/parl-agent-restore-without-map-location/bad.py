"""Saving and restoring a PARL agent's model (reconstruction of parl/core/torch/agent.py and an evaluation script)."""

import os

import torch
from torch import nn


class Algorithm:
    def __init__(self, model):
        self.model = model


class Agent:
    def __init__(self, algorithm):
        assert isinstance(algorithm, Algorithm)
        self.alg = algorithm

    def save(self, save_path, model=None):
        if model is None:
            model = self.alg.model
        dirname = os.sep.join(save_path.split(os.sep)[:-1])
        if dirname != "" and not os.path.exists(dirname):
            os.makedirs(dirname)
        torch.save(model.state_dict(), save_path)

    def restore(self, save_path, model=None):
        """Load parameters previously written by save() into the model."""
        if model is None:
            model = self.alg.model
        checkpoint = torch.load(save_path)
        model.load_state_dict(checkpoint)


class CartpoleModel(nn.Module):
    def __init__(self, obs_dim=4, act_dim=2):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim, 64)
        self.fc2 = nn.Linear(64, act_dim)

    def forward(self, obs):
        return self.fc2(torch.tanh(self.fc1(obs)))


def evaluate(checkpoint="./model.ckpt"):
    # the checkpoint was written by a run on a GPU machine; evaluation happens on a laptop
    agent = Agent(Algorithm(CartpoleModel()))
    agent.restore(checkpoint)
    return agent.alg.model(torch.zeros(1, 4))


if __name__ == "__main__":
    evaluate()
