"""A VulcanAI user built a DenseNet with the default device ("cuda:0", which the device setter honours whenever CUDA
is available) and passed it to display_receptive_fields; in bad the loop calls .numpy() on each layer's GPU kernel
weight."""

import numpy as np
import torch


def run(program, device):
    # The network is left on its default device, as the real user did; on the GPU machine that is cuda:0.
    torch.manual_seed(0)
    net = program["DenseNet"]("dnn", dims=[16, 9, 4])
    importance = program["display_receptive_fields"](net, top_k=2)
    assert sorted(importance) == ["DenseUnit_0", "DenseUnit_1"]
    assert isinstance(importance["DenseUnit_0"]["grid"], np.ndarray)
