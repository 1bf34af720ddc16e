"""Fine-tuning entry point with one process per GPU (reconstruction of nnunetv2/run/run_training.py)."""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from load_pretrained_weights import load_pretrained_weights


class Trainer:
    def __init__(self, device):
        self.device = device
        self.was_initialized = False

    def initialize(self):
        net = nn.Sequential(nn.Conv3d(1, 8, 3, padding=1), nn.Conv3d(8, 2, 1)).to(self.device)
        self.network = DDP(net, device_ids=[self.device.index]) if dist.is_initialized() else net
        self.was_initialized = True

    def run_training(self):
        x = torch.rand(1, 1, 8, 8, 8, device=self.device)
        self.network(x).mean().backward()


def maybe_load_checkpoint(trainer, continue_training, pretrained_weights_file=None):
    if continue_training and pretrained_weights_file is not None:
        raise RuntimeError("Cannot both continue a training AND load pretrained weights.")
    if pretrained_weights_file is not None:
        if not trainer.was_initialized:
            trainer.initialize()
        load_pretrained_weights(trainer.network, pretrained_weights_file, verbose=True)


def run_ddp(rank, pretrained_weights, world_size):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(torch.device("cuda", dist.get_rank()))
    trainer = Trainer(torch.device("cuda", dist.get_rank()))
    maybe_load_checkpoint(trainer, False, pretrained_weights)
    trainer.run_training()
    dist.destroy_process_group()


def run_training(pretrained_weights, num_gpus=2):
    if num_gpus > 1:
        mp.spawn(run_ddp, args=(pretrained_weights, num_gpus), nprocs=num_gpus, join=True)
    else:
        trainer = Trainer(torch.device("cuda"))
        maybe_load_checkpoint(trainer, False, pretrained_weights)
        trainer.run_training()


if __name__ == "__main__":
    run_training("pretrained_checkpoint_final.pth", num_gpus=torch.cuda.device_count())
