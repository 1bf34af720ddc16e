"""Behavioural cloning training loop (reconstruction of src/imitation/algorithms/bc.py) and the
safe_to_tensor helper of src/imitation/util/util.py."""

from typing import Union

import numpy as np
import torch as th
from torch import nn


def safe_to_tensor(array: Union[np.ndarray, th.Tensor], **kwargs) -> th.Tensor:
    """Convert a NumPy array to a tensor, copying non-writable arrays."""
    if isinstance(array, np.ndarray) and not array.flags.writeable:
        array = array.copy()

    return th.as_tensor(array, **kwargs)


def map_maybe_dict(fn, maybe_dict):
    if isinstance(maybe_dict, dict):
        return {k: fn(v) for k, v in maybe_dict.items()}
    return fn(maybe_dict)


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=3, device="cpu"):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.device = th.device(device)
        self.to(self.device)

    def evaluate_actions(self, obs, acts):
        logits = self.net(obs)
        return th.log_softmax(logits, dim=-1).gather(1, acts.unsqueeze(1)).squeeze(1)


def behavior_cloning_loss(policy, obs, acts):
    return -policy.evaluate_actions(obs, acts.long()).mean()


class BC:
    def __init__(self, policy, batch_size=8, minibatch_size=8):
        self.policy = policy
        self.batch_size = batch_size
        self.minibatch_size = minibatch_size
        self.optimizer = th.optim.Adam(policy.parameters(), lr=1e-3)

    def train(self, batches):
        self.optimizer.zero_grad()
        for batch in batches:
            obs_tensor = map_maybe_dict(lambda x: safe_to_tensor(x, device=self.policy.device), batch["obs"])
            acts = safe_to_tensor(batch["acts"], device=self.policy.device)
            loss = behavior_cloning_loss(self.policy, obs_tensor, acts) * self.minibatch_size / self.batch_size
            loss.backward()
        self.optimizer.step()


def run(device):
    # the demonstrations data loader collates transitions into CPU tensors
    batches = [{"obs": th.randn(8, 4), "acts": th.randint(0, 3, (8,))}]
    BC(Policy(device=device)).train(batches)
