"""The training script built Model with gpu_ids=0 and fed it host batches of (signal, target, weight map) from its
data provider; in bad the weight map is passed to the loss still on the CPU next to the device prediction."""

import torch


def run(program, device):
    torch.manual_seed(0)
    gpu_ids = (device.index or 0) if device.type == "cuda" else -1
    model = program["Model"](gpu_ids=gpu_ids)
    data = [(torch.randn(2, 1, 4, 8, 8), torch.randn(2, 1, 4, 8, 8), torch.rand(2, 1, 4, 8, 8))]
    program["train"](model, data, n_iter=3)
    assert model.count_iter == 3
