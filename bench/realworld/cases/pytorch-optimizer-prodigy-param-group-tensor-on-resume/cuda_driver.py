"""A Lightning-style run trained with pytorch_optimizer's Prodigy on the GPU and saved a checkpoint; the resume path
loads it with map_location="cpu" and calls load_state_dict, so in bad the d_numerator kept in the param group stays
on the CPU and the first step adds GPU dot products into it."""

import os
import tempfile

import torch


def run(program, device):
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        # the earlier run: train on the device and checkpoint model and optimizer the way Lightning lays them out
        model = torch.nn.Linear(3, 1).to(device)
        optimizer = program["Prodigy"](model.parameters())
        program["train"](model, optimizer, device)
        checkpoint_path = os.path.join(tmp, "last.ckpt")
        torch.save({"state_dict": model.state_dict(), "optimizer_states": [optimizer.state_dict()]}, checkpoint_path)
        program["resume"](checkpoint_path, device)
