"""Preference-comparison reward learning ran the preference model over fragment pairs with the reward net on the
GPU and a discount factor below one; in bad the discounts come from th.arange on the CPU and multiply the GPU
rewards."""

import torch


def run(program, device):
    torch.manual_seed(0)
    program["train_reward"](device, discount_factor=0.99)
