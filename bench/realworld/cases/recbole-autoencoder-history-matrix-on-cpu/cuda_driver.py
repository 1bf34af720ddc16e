"""RecBole's trainer built the auto-encoder model from a config whose "device" was the GPU, moved the model there
and moved every batch of user ids to that device; in bad the user-history matrix stays on the CPU and is indexed
with those device user ids."""

import torch


def run(program, device):
    torch.manual_seed(0)
    program["train"]({"device": device})
