"""A run resumed from a checkpoint with the EMA algorithm on a GPU trainer and called trainer.eval() before fit();
in bad the EMA weights loaded onto the CPU are swapped into the device model at EVAL_START and its forward fails."""

import os
import tempfile

import torch
from torch import nn


def run(program, device):
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ep1.pt")
        saved = nn.Linear(4, 2)
        ema_state = {
            "named_parameters_dict": {n: p.detach().clone() for n, p in saved.named_parameters()},
            "named_buffers_dict": {n: b.detach().clone() for n, b in saved.named_buffers()},
        }
        torch.save({"algorithms": {"EMA": ema_state}}, path)
        model = nn.Linear(4, 2)
        trainer = program["Trainer"](model, [program["EMA"]()], device, load_path=path)
        trainer.eval([torch.randn(3, 4), torch.randn(2, 4)])
    # after EVAL_END the training weights are back in the model
    assert all(p.device.type == device.type for p in model.parameters())
