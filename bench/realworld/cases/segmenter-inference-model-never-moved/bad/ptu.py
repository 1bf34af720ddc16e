"""Process-wide GPU settings (reconstruction of segm/utils/torch.py)."""

import os

import torch

use_gpu = False
gpu_id = 0
device = None


def set_gpu_mode(mode):
    global use_gpu, device, gpu_id
    gpu_id = int(os.environ.get("SLURM_LOCALID", 0))
    use_gpu = mode
    device = torch.device(f"cuda:{gpu_id}" if use_gpu else "cpu")
