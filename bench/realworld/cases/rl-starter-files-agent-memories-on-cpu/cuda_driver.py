"""scripts/evaluate.py built a recurrent Agent with the CUDA device and stepped it over parallel envs; in bad the
agent's LSTM memories (and the done-masks) are created on the CPU and fed to the actor-critic moved to the device."""

import numpy as np
import torch


def run(program, device):
    torch.manual_seed(0)
    procs = 2
    state_dict = program["ACModel"](4, 3, use_memory=True).state_dict()
    agent = program["Agent"](4, 3, state_dict, device=device, num_envs=procs, use_memory=True)
    log_return = torch.zeros(procs, device=device)
    obss = [np.zeros(4, dtype=np.float32) for _ in range(procs)]
    for step in range(3):
        actions = agent.get_actions(obss)
        rewards = [float(a) for a in actions.ravel()]
        dones = [step == 1] * procs
        agent.analyze_feedbacks(rewards, dones)
        log_return += torch.tensor(rewards, device=device, dtype=torch.float)
    assert log_return.shape == (procs,)
