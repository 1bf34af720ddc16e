"""Checkpoint helpers (reconstruction of network/network_utils.py)."""

import os

import torch


def restore_epoch(save_dir, resume_epoch, model, optimizer, device):
    """Load the model and optimizer of a saved epoch to continue training."""
    path = os.path.join(save_dir, "epoch-{}.pth.tar".format(resume_epoch - 1))
    snapshot = torch.load(path, map_location=lambda storage, loc: storage)
    model.load_state_dict(snapshot["state_dict"])
    optimizer.load_state_dict(snapshot["opt_dict"])
    # move every tensor of the restored optimizer state to the training device
    for per_param in optimizer.state.values():
        for key, value in per_param.items():
            if isinstance(value, torch.Tensor):
                per_param[key] = value.to(device)
