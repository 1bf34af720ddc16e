"""FluxGAT's script ran main(), which picks CUDA when it is available, moves each fold and model there and
rebuilds the BCE pos_weight from the fold's label counts; in bad that weight is created on the CPU, so the loss
mixes it with the GPU logits."""

import torch


def run(program, device):
    # main() chooses its own device from torch.cuda.is_available(), as the real script did; on the GPU machine
    # that is CUDA, matching `device`
    torch.manual_seed(0)
    program["main"]()
