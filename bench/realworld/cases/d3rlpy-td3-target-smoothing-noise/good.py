"""TD3 implementation object (reconstruction of d3rlpy/algos/torch/td3_impl.py over ddpg_impl.py)."""

import copy

import torch
from torch import nn
from torch.optim import Adam


def torch_api(f):
    def wrapper(self, *args, **kwargs):
        tensors = [torch.tensor(val, dtype=torch.float32, device=self.device) for val in args]
        return f(self, *tensors, **kwargs)

    return wrapper


class EnsembleQ(nn.Module):
    def __init__(self, obs_dim, act_dim, n_ensembles):
        super().__init__()
        self.q_funcs = nn.ModuleList([nn.Linear(obs_dim + act_dim, 1) for _ in range(n_ensembles)])

    def forward(self, x, action):
        h = torch.cat([x, action], dim=1)
        return torch.stack([q(h) for q in self.q_funcs]).min(0).values

    def compute_target(self, x, action):
        return self.forward(x, action)


class DDPGImpl:
    def __init__(self, obs_dim, act_dim, gamma, use_gpu):
        self.obs_dim, self.act_dim, self.gamma = obs_dim, act_dim, gamma
        self._build_critic()
        self.policy = nn.Sequential(nn.Linear(obs_dim, act_dim), nn.Tanh())
        self.targ_q_func = copy.deepcopy(self.q_func)
        self.targ_policy = copy.deepcopy(self.policy)
        self.device = "cpu:0"
        if use_gpu:
            self.to_gpu()
        self.critic_optim = Adam(self.q_func.parameters(), lr=1e-3)

    def _build_critic(self):
        self.q_func = EnsembleQ(self.obs_dim, self.act_dim, 1)

    def to_gpu(self):
        for module in (self.q_func, self.policy, self.targ_q_func, self.targ_policy):
            module.cuda()
        self.device = "cuda:0"

    @torch_api
    def update_critic(self, obs_t, act_t, rew_tp1, obs_tp1, ter_tp1):
        q_tp1 = self.compute_target(obs_tp1) * (1.0 - ter_tp1)
        loss = ((self.q_func(obs_t, act_t) - (rew_tp1 + self.gamma * q_tp1)) ** 2).mean()
        self.critic_optim.zero_grad()
        loss.backward()
        self.critic_optim.step()
        return loss.cpu().detach().numpy()

    def compute_target(self, x):
        with torch.no_grad():
            action = self.targ_policy(x)
            return self.targ_q_func.compute_target(x, action.clamp(-1.0, 1.0))


class TD3Impl(DDPGImpl):
    def __init__(self, obs_dim, act_dim, gamma, n_critics, target_smoothing_sigma, target_smoothing_clip, use_gpu):
        self.n_critics = n_critics
        self.target_smoothing_sigma = target_smoothing_sigma
        self.target_smoothing_clip = target_smoothing_clip
        super().__init__(obs_dim, act_dim, gamma, use_gpu)

    def _build_critic(self):
        self.q_func = EnsembleQ(self.obs_dim, self.act_dim, self.n_critics)

    def compute_target(self, x):
        with torch.no_grad():
            action = self.targ_policy(x)
            noise = torch.randn(action.shape, device=x.device)
            scaled_noise = self.target_smoothing_sigma * noise
            clipped_noise = scaled_noise.clamp(-self.target_smoothing_clip, self.target_smoothing_clip)
            smoothed_action = action + clipped_noise
            return self.targ_q_func.compute_target(x, smoothed_action.clamp(-1.0, 1.0))


if __name__ == "__main__":
    impl = TD3Impl(3, 2, 0.99, 2, 0.2, 0.5, use_gpu=torch.cuda.is_available())
    batch = ([[0.1, 0.2, 0.3]], [[0.0, 1.0]], [[1.0]], [[0.2, 0.1, 0.0]], [[0.0]])
    print(impl.update_critic(*batch))
