"""train_generator.py was run with its argparse defaults and moves the model and every batch to the GPU with a
hard-coded .cuda(); in bad the decoder's accuracy tensors stay on the GPU and the loop packs them into np.array for
its meters, which cannot read CUDA memory."""

import argparse

import numpy as np
import torch


def run(program, device):
    # The script hard-codes .cuda(); it takes no device, so this needs a CUDA machine.
    torch.manual_seed(0)
    args = argparse.Namespace(feat=12, hidden=16, vocab=5, steps=2)
    meters = program["main"](args)
    assert isinstance(meters, np.ndarray) and meters.shape == (6,)
    assert np.isfinite(meters).all()
