"""Evaluation agent for a recurrent actor-critic (reconstruction of utils/agent.py, model.py and scripts/evaluate.py)."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions.categorical import Categorical


class ACModel(nn.Module):
    def __init__(self, obs_dim, n_actions, use_memory=False):
        super().__init__()
        self.use_memory = use_memory
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU())
        if self.use_memory:
            self.memory_rnn = nn.LSTMCell(16, self.semi_memory_size)
        self.actor = nn.Sequential(nn.Linear(self.semi_memory_size, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.critic = nn.Sequential(nn.Linear(self.semi_memory_size, 32), nn.Tanh(), nn.Linear(32, 1))

    @property
    def recurrent(self):
        return self.use_memory

    @property
    def memory_size(self):
        return 2 * self.semi_memory_size

    @property
    def semi_memory_size(self):
        return 16

    def forward(self, obs, memory):
        x = self.encoder(obs)
        if self.use_memory:
            hidden = (memory[:, : self.semi_memory_size], memory[:, self.semi_memory_size:])
            hidden = self.memory_rnn(x, hidden)
            embedding = hidden[0]
            memory = torch.cat(hidden, dim=1)
        else:
            embedding = x
        dist = Categorical(logits=F.log_softmax(self.actor(embedding), dim=1))
        return dist, self.critic(embedding).squeeze(1), memory


class Agent:
    def __init__(self, obs_dim, n_actions, state_dict, device=None, argmax=False, num_envs=1, use_memory=False):
        self.acmodel = ACModel(obs_dim, n_actions, use_memory=use_memory)
        self.device = device
        self.argmax = argmax
        self.num_envs = num_envs
        if self.acmodel.recurrent:
            self.memories = torch.zeros(self.num_envs, self.acmodel.memory_size)
        self.acmodel.load_state_dict(state_dict)
        self.acmodel.to(self.device)
        self.acmodel.eval()

    def get_actions(self, obss):
        obss = torch.tensor(np.array(obss), dtype=torch.float, device=self.device)
        with torch.no_grad():
            if self.acmodel.recurrent:
                dist, _, self.memories = self.acmodel(obss, self.memories)
            else:
                dist, _ = self.acmodel(obss)
        actions = dist.probs.max(1, keepdim=True)[1] if self.argmax else dist.sample()
        return actions.cpu().numpy()

    def analyze_feedbacks(self, rewards, dones):
        if self.acmodel.recurrent:
            masks = 1 - torch.tensor(dones, dtype=torch.float).unsqueeze(1)
            self.memories *= masks


def evaluate(procs=2, episodes_steps=3):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    state_dict = ACModel(4, 3, use_memory=True).state_dict()  # stands in for the saved training status
    agent = Agent(4, 3, state_dict, device=device, num_envs=procs, use_memory=True)
    log_return = torch.zeros(procs, device=device)
    obss = [np.zeros(4, dtype=np.float32) for _ in range(procs)]
    for _ in range(episodes_steps):
        actions = agent.get_actions(obss)
        rewards, dones = [float(a) for a in actions.ravel()], [False] * procs
        agent.analyze_feedbacks(rewards, dones)
        log_return += torch.tensor(rewards, device=device, dtype=torch.float)


if __name__ == "__main__":
    evaluate()
