"""Distributed ensemble mean (reconstruction of modulus/metrics/general/ensemble_metrics.py and a caller)."""

import os
from typing import List, Tuple, Union

import torch
import torch.distributed as dist
from torch import Tensor


class EnsembleMetrics:
    def __init__(self, input_shape: Union[Tuple[int, ...], List[int]], device="cpu", dtype=torch.float32):
        self.input_shape = list(input_shape)
        self.device = device
        self.dtype = dtype


class Mean(EnsembleMetrics):
    """Running mean over an ensemble spread across ranks."""

    def __init__(self, input_shape, **kwargs):
        super().__init__(input_shape, **kwargs)
        self.sum = torch.zeros(self.input_shape, dtype=self.dtype, device=self.device)
        self.n = torch.zeros(1, dtype=torch.int32, device=self.device)

    def __call__(self, inputs: Tensor) -> Tensor:
        self.sum = torch.sum(inputs, dim=0)
        self.n = torch.as_tensor([inputs.shape[0]], device=self.device)
        if dist.is_initialized():
            dist.all_reduce(self.sum, op=dist.ReduceOp.SUM)
            dist.all_reduce(self.n, op=dist.ReduceOp.SUM)
        return self.sum / self.n


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    ensemble = torch.randn(8, 4, 16, device=device)  # this rank's ensemble members
    mean = Mean((4, 16), device=device)
    return mean(ensemble)


if __name__ == "__main__":
    main()
