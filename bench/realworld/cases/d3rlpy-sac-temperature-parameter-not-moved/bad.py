"""SAC implementation object of an offline-RL library (reconstruction of sac_impl.py, ddpg_impl.py and utility.py)."""

import copy
import math

import torch
import torch.nn as nn
from torch.optim import Adam


def to_cuda(impl):
    for key in dir(impl):
        module = getattr(impl, key)
        if isinstance(module, (torch.nn.Module, torch.nn.Parameter)):
            module.cuda()


def torch_api(f):
    def wrapper(self, *args, **kwargs):
        tensors = [torch.tensor(val, dtype=torch.float32, device=self.device) for val in args]
        return f(self, *tensors, **kwargs)

    return wrapper


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.mu = nn.Linear(obs_dim, act_dim)
        self.log_std = nn.Linear(obs_dim, act_dim)

    def forward(self, x, with_log_prob=False):
        mu, std = self.mu(x), self.log_std(x).clamp(-5, 2).exp()
        action = mu + std * torch.randn_like(mu)
        log_prob = (-((action - mu) ** 2) / (2 * std ** 2) - std.log()).sum(dim=1, keepdim=True)
        return (torch.tanh(action), log_prob) if with_log_prob else torch.tanh(action)


class QFunction(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.fc = nn.Linear(obs_dim + act_dim, 1)

    def forward(self, x, action):
        return self.fc(torch.cat([x, action], dim=1))


class DDPGImpl:
    def __init__(self, obs_dim, act_dim, actor_learning_rate, critic_learning_rate, use_gpu):
        self.obs_dim, self.act_dim = obs_dim, act_dim
        self.actor_learning_rate = actor_learning_rate
        self.critic_learning_rate = critic_learning_rate
        self._build_critic()
        self._build_actor()
        self.targ_q_func = copy.deepcopy(self.q_func)
        self.targ_policy = copy.deepcopy(self.policy)
        self.device = "cpu:0"
        if use_gpu:
            self.to_gpu()
        # optimizers are built after the parameters move to the GPU
        self.critic_optim = Adam(self.q_func.parameters(), lr=self.critic_learning_rate)
        self.actor_optim = Adam(self.policy.parameters(), lr=self.actor_learning_rate)

    def _build_critic(self):
        self.q_func = QFunction(self.obs_dim, self.act_dim)

    def _build_actor(self):
        self.policy = GaussianPolicy(self.obs_dim, self.act_dim)

    def to_gpu(self):
        to_cuda(self)
        self.device = "cuda:0"


class SACImpl(DDPGImpl):
    def __init__(self, obs_dim, act_dim, actor_learning_rate, critic_learning_rate, temp_learning_rate,
                 initial_temperature, use_gpu):
        self.temp_learning_rate = temp_learning_rate
        self.initial_temperature = initial_temperature
        self._build_temperature()
        super().__init__(obs_dim, act_dim, actor_learning_rate, critic_learning_rate, use_gpu)
        self._build_temperature_optim()

    def _build_temperature(self):
        initial_val = math.log(self.initial_temperature)
        self.log_temp = nn.Parameter(torch.full((1, 1), initial_val))

    def _build_temperature_optim(self):
        self.temp_optim = Adam([self.log_temp], self.temp_learning_rate)

    @torch_api
    def update_actor(self, obs_t):
        action, log_prob = self.policy(obs_t, with_log_prob=True)
        entropy = self.log_temp.exp() * log_prob
        loss = (entropy - self.q_func(obs_t, action)).mean()
        self.actor_optim.zero_grad()
        loss.backward()
        self.actor_optim.step()
        return loss.cpu().detach().numpy()


if __name__ == "__main__":
    impl = SACImpl(3, 2, 3e-4, 3e-4, 3e-4, 1.0, use_gpu=torch.cuda.is_available())
    print(impl.update_actor([[0.1, 0.2, 0.3]]))
