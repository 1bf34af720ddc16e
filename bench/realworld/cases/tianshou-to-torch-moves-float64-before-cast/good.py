"""Imitation policy learning step (reconstruction of tianshou's to_torch converter and ImitationPolicy.learn)."""

from numbers import Number

import numpy as np
import torch
from torch import nn


def to_torch(x, dtype=None, device="cpu"):
    """Turn numpy data into a tensor on ``device``."""
    if isinstance(x, np.ndarray) and issubclass(x.dtype.type, (np.bool_, np.number)):
        x = torch.from_numpy(x)
        if dtype is not None:
            x = x.type(dtype)
        return x.to(device)
    if isinstance(x, torch.Tensor):
        if dtype is not None:
            x = x.type(dtype)
        return x.to(device)
    if isinstance(x, (np.number, np.bool_, Number)):
        return to_torch(np.asanyarray(x), dtype, device)
    if isinstance(x, (list, tuple)):
        return to_torch(np.asarray(x), dtype, device)
    raise TypeError(f"object {x} cannot be converted to torch.")


class ImitationPolicy(nn.Module):
    def __init__(self, actor, optim, action_type, device):
        super().__init__()
        self.actor = actor
        self.optim = optim
        self.action_type = action_type
        self.device = device

    def forward(self, obs):
        obs = to_torch(obs, dtype=torch.float32, device=self.device)
        return self.actor(obs)

    def learn(self, batch):
        self.optim.zero_grad()
        if self.action_type == "continuous":
            act = self(batch["obs"])
            act_target = to_torch(batch["act"], dtype=torch.float32, device=act.device)
            loss = nn.functional.mse_loss(act, act_target)
        else:
            act = nn.functional.log_softmax(self(batch["obs"]), dim=-1)
            act_target = to_torch(batch["act"], dtype=torch.long, device=act.device)
            loss = nn.functional.nll_loss(act, act_target)
        loss.backward()
        self.optim.step()
        return loss.item()


def main(device="mps"):
    actor = nn.Linear(4, 2).to(device)
    policy = ImitationPolicy(actor, torch.optim.Adam(actor.parameters()), "continuous", device)
    batch = {"obs": np.random.randn(16, 4), "act": np.random.randn(16, 2)}
    return policy.learn(batch)


if __name__ == "__main__":
    print(main())
