"""An ignite evaluator ran a GPU model over CPU batches moved to the device and fed the outputs to
PearsonCorrelation created with its default (CPU) device; in bad the GPU sums are added in place into the CPU
accumulators."""

import torch


def run(program, device):
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 1).to(device)
    batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(2)]
    r = program["evaluate"](net, batches, device)
    assert -1.0 - 1e-5 <= r <= 1.0 + 1e-5
