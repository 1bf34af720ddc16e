"""Non-linear multi-objective PPO and its test (reconstruction of nl_mo_ppo.py and tests/test_algos.py)."""

import numpy as np
import torch
from torch import nn


class MOPolicy:
    def __init__(self, id=None, device="auto"):
        self.id = id
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device


class CriticActor(nn.Module):
    def __init__(self, obs_dim, num_objectives):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_dim + num_objectives, 16), nn.Tanh(), nn.Linear(16, num_objectives))

    def get_value(self, obs, acc_reward):
        return self.critic(torch.cat([obs, acc_reward], dim=-1))


class NLMOPPO(MOPolicy):
    def __init__(self, id, obs_dim, num_objectives, mc_k=4, device="auto", seed=0):
        super().__init__(id, device)
        self.num_objectives = num_objectives
        rng = np.random.default_rng(seed)
        self.init_obs = torch.as_tensor(rng.random((mc_k, obs_dim)), device=self.device, dtype=torch.float32)
        self.reset_agent()

    def reset_agent(self):
        self.agent = CriticActor(self.init_obs.shape[1], self.num_objectives).to(self.device)
        self.optimizer = torch.optim.Adam(self.agent.parameters(), lr=3e-4)
        self.u_func = None

    def _compute_loss_weights(self):
        zero_acc = torch.zeros((self.init_obs.shape[0], self.num_objectives), device=self.device)
        v0 = self.agent.get_value(self.init_obs, acc_reward=zero_acc).mean(0).detach().requires_grad_(True)
        u = self.u_func(v0)
        (w,) = torch.autograd.grad(u, v0)
        return w.detach()

    def update(self):
        loss_weights = self._compute_loss_weights()
        values = self.agent.get_value(self.init_obs, torch.zeros_like(self.init_obs[:, : self.num_objectives]))
        loss = -(values * loss_weights).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def train(self, u_func, iterations=2):
        self.u_func = u_func
        for _ in range(iterations):
            self.update()


def test_nlmoppo(device="auto"):
    weights = [1.0, 0.0]
    weights_th = torch.tensor(weights, dtype=torch.float32)

    def scalarization_th(reward):
        return torch.sum(reward * weights_th, dim=-1)

    agent = NLMOPPO(0, obs_dim=2, num_objectives=2, device=device)
    agent.train(u_func=scalarization_th)


def run(device):
    test_nlmoppo(device=device)


if __name__ == "__main__":
    test_nlmoppo()
