"""The RPO script set its module-global `device` to CUDA, moved the agent and rollout buffers there and, in the
update, re-evaluated stored actions; in bad the perturbation of the action mean is drawn on the CPU."""

import numpy as np
import torch


def run(program, device):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    Agent = program["Agent"]
    # the script assigns `device` at module level under __main__; get_action_and_value reads that global
    Agent.get_action_and_value.__globals__["device"] = device
    num_steps, num_envs, obs_dim, act_dim = 4, 2, 3, 1
    agent = Agent(obs_dim, act_dim, 0.5).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4, eps=1e-5)
    obs = torch.zeros((num_steps, num_envs, obs_dim)).to(device)
    actions = torch.zeros((num_steps, num_envs, act_dim)).to(device)
    logprobs = torch.zeros((num_steps, num_envs)).to(device)
    next_obs = torch.Tensor(rng.standard_normal((num_envs, obs_dim))).to(device)
    for step in range(num_steps):
        obs[step] = next_obs
        with torch.no_grad():
            action, logprob, _, _ = agent.get_action_and_value(next_obs)
        actions[step], logprobs[step] = action, logprob
        next_obs = torch.Tensor(rng.standard_normal((num_envs, obs_dim))).to(device)
    b_obs, b_actions, b_logprobs = obs.reshape(-1, obs_dim), actions.reshape(-1, act_dim), logprobs.reshape(-1)
    _, newlogprob, entropy, _ = agent.get_action_and_value(b_obs, b_actions)
    loss = -(newlogprob - b_logprobs).exp().mean() - 0.01 * entropy.mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    assert torch.isfinite(loss)
