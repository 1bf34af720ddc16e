"""EUPG was built with device="auto" (CUDA on a GPU machine) and trained on a small multi-objective env; in bad
the policy network stays on the CPU while the observation and accrued reward fed to it at the first step are on the device."""

import torch


def run(program, device):
    torch.manual_seed(0)
    agent = program["EUPG"](program["ToyMOEnv"](), scalarization=lambda r: r.sum(), device=device)
    agent.train(total_timesteps=8)
    assert agent.global_step == 8
