"""Expected Utility Policy Gradient agent (reconstruction of single_policy/esr/eupg.py)."""

import numpy as np
import torch as th
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Categorical


class MOAgent:
    def __init__(self, env, device="auto", seed=None):
        self.env = env
        self.reward_dim = env.reward_dim
        self.obs_dim = env.obs_dim
        self.action_dim = env.action_dim
        self.device = th.device("cuda" if th.cuda.is_available() else "cpu") if device == "auto" else device
        self.seed = seed
        self.global_step = 0


class MOPolicy:
    def __init__(self, id=None, device="auto"):
        self.id = id
        self.device = th.device("cuda" if th.cuda.is_available() else "cpu") if device == "auto" else device


class PolicyNet(nn.Module):
    def __init__(self, obs_dim, action_dim, rew_dim, hidden):
        super().__init__()
        self.action_dim = action_dim
        self.net = nn.Sequential(nn.Linear(obs_dim + rew_dim, hidden), nn.Tanh(), nn.Linear(hidden, action_dim))

    def forward(self, obs, acc_reward):
        logits = self.net(th.cat((obs, acc_reward), dim=acc_reward.dim() - 1))
        probs = th.sigmoid(logits)
        return (probs / th.sum(probs)).view(-1, self.action_dim)

    def distribution(self, obs, acc_reward):
        return Categorical(self.forward(obs, acc_reward))


class EUPG(MOPolicy, MOAgent):
    def __init__(self, env, scalarization, hidden=50, gamma=0.99, learning_rate=1e-3, device="auto", seed=None):
        MOAgent.__init__(self, env, device, seed=seed)
        MOPolicy.__init__(self, None, device)
        self.scalarization = scalarization
        self.gamma = gamma
        self.episode = []
        self.net = PolicyNet(self.obs_dim, self.action_dim, self.reward_dim, hidden).to(self.device)
        self.optimizer = optim.Adam(self.net.parameters(), lr=learning_rate)

    @th.no_grad()
    def _choose_action(self, obs, accrued_reward):
        return self.net.distribution(obs, accrued_reward).sample().detach().item()

    def update(self):
        obs = th.stack([o for o, _, _, _ in self.episode]).to(self.device)
        accrued = th.stack([a for _, a, _, _ in self.episode]).to(self.device)
        actions = th.tensor([a for _, _, a, _ in self.episode]).to(self.device)
        rewards = th.tensor(np.array([r for _, _, _, r in self.episode])).float().to(self.device)
        scalarized_return = self.scalarization(th.sum(rewards, dim=0))
        log_probs = self.net.distribution(obs, accrued).log_prob(actions)
        loss = -th.mean(log_probs * scalarized_return)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def train(self, total_timesteps):
        obs, _ = self.env.reset()
        accrued_reward = th.zeros(self.reward_dim, dtype=th.float32).to(self.device)
        for _ in range(total_timesteps):
            self.global_step += 1
            obs_tensor = th.tensor(obs, dtype=th.float32).to(self.device)
            action = self._choose_action(obs_tensor, accrued_reward)
            next_obs, vec_reward, terminated, truncated, _ = self.env.step(action)
            self.episode.append((obs_tensor, accrued_reward.clone(), action, vec_reward))
            accrued_reward += th.from_numpy(vec_reward).float().to(self.device)
            if terminated or truncated:
                self.update()
                self.episode = []
                obs, _ = self.env.reset()
                accrued_reward = th.zeros(self.reward_dim).float().to(self.device)
            else:
                obs = next_obs


class ToyMOEnv:
    obs_dim, action_dim, reward_dim = 3, 2, 2

    def reset(self):
        self.t = 0
        return np.zeros(3, dtype=np.float32), {}

    def step(self, action):
        self.t += 1
        return np.full(3, self.t, dtype=np.float32), np.array([1.0, float(action)]), self.t >= 4, False, {}


def main(device="auto"):
    agent = EUPG(ToyMOEnv(), scalarization=lambda r: r.sum(), device=device)
    agent.train(total_timesteps=8)


if __name__ == "__main__":
    main()
