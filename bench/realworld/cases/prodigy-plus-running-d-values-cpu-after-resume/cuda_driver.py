"""A trainer trained with the Prodigy schedule-free optimiser on the GPU, saved its state, and on resume loaded
that state with map_location="cpu" before load_state_dict; in bad the running d numerator/denominator in the
param groups stay CPU tensors and the first step adds GPU values into them."""

import os
import tempfile

import torch


def run(program, device):
    torch.manual_seed(0)
    Optimiser = program["CoreOptimiser"]
    with tempfile.TemporaryDirectory() as tmp:
        # the earlier run: train on the device and save the optimizer state, as the trainer's checkpointing did
        model = torch.nn.Linear(8, 8).to(device)
        optimizer = Optimiser(model.parameters())
        for _ in range(2):
            loss = model(torch.randn(4, 8, device=device)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        state_path = os.path.join(tmp, "optimizer.bin")
        torch.save(optimizer.state_dict(), state_path)
        weights = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        # the resumed run: a fresh model with the saved weights, handed to the resume path with the device
        resumed = torch.nn.Linear(8, 8)
        resumed.load_state_dict(weights)
        program["resume_training"](resumed, state_path, device)
