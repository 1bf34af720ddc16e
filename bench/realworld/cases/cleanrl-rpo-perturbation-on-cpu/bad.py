"""Robust Policy Optimization, single-file script (reconstruction of cleanrl/rpo_continuous_action.py)."""

import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.distributions.normal import Normal


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim, act_dim, rpo_alpha):
        super().__init__()
        self.rpo_alpha = rpo_alpha
        self.critic = nn.Sequential(layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(), layer_init(nn.Linear(64, 1), std=1.0))
        self.actor_mean = nn.Sequential(layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
                                        layer_init(nn.Linear(64, act_dim), std=0.01))
        self.actor_logstd = nn.Parameter(torch.zeros(1, act_dim))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        action_mean = self.actor_mean(x)
        action_std = torch.exp(self.actor_logstd.expand_as(action_mean))
        probs = Normal(action_mean, action_std)
        if action is None:
            action = probs.sample()
        else:  # perturb the mean again during the update
            z = torch.FloatTensor(action_mean.shape).uniform_(-self.rpo_alpha, self.rpo_alpha)
            action_mean = action_mean + z
            probs = Normal(action_mean, action_std)
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", type=lambda s: s.lower() == "true", default=True)
    parser.add_argument("--num-steps", type=int, default=8)
    parser.add_argument("--num-envs", type=int, default=2)
    parser.add_argument("--rpo-alpha", type=float, default=0.5)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")

    obs_dim, act_dim = 3, 1
    agent = Agent(obs_dim, act_dim, args.rpo_alpha).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4, eps=1e-5)
    obs = torch.zeros((args.num_steps, args.num_envs, obs_dim)).to(device)
    actions = torch.zeros((args.num_steps, args.num_envs, act_dim)).to(device)
    logprobs = torch.zeros((args.num_steps, args.num_envs)).to(device)

    next_obs = torch.Tensor(np.random.randn(args.num_envs, obs_dim)).to(device)
    for step in range(args.num_steps):
        obs[step] = next_obs
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(next_obs)
        actions[step], logprobs[step] = action, logprob
        next_obs = torch.Tensor(np.random.randn(args.num_envs, obs_dim)).to(device)

    b_obs, b_actions, b_logprobs = obs.reshape(-1, obs_dim), actions.reshape(-1, act_dim), logprobs.reshape(-1)
    _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs, b_actions)
    loss = -(newlogprob - b_logprobs).exp().mean() - 0.01 * entropy.mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
