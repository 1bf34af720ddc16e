"""Distributed ImageNet validation (reconstruction of imagenet/main.py: validate() and AverageMeter)."""

import argparse

import torch
import torch.distributed as dist
from torch import nn


class AverageMeter(object):
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def all_reduce(self):
        device = "cuda" if torch.cuda.is_available() else "cpu"
        total = torch.tensor([self.sum, self.count], dtype=torch.float32, device=device)
        dist.all_reduce(total, dist.ReduceOp.SUM, async_op=False)
        self.sum, self.count = total.tolist()
        self.avg = self.sum / self.count


def accuracy(output, target):
    return (output.argmax(dim=1) == target).float().mean() * 100


def validate(val_loader, model, criterion, args):
    def run_validate(loader):
        with torch.no_grad():
            for images, target in loader:
                if args.gpu is not None:
                    images = images.cuda(args.gpu, non_blocking=True)
                if torch.cuda.is_available():
                    target = target.cuda(args.gpu, non_blocking=True)
                output = model(images)
                loss = criterion(output, target)
                losses.update(loss.item(), images.size(0))
                top1.update(accuracy(output, target).item(), images.size(0))

    losses = AverageMeter("Loss")
    top1 = AverageMeter("Acc@1")
    model.eval()
    run_validate(val_loader)
    if args.distributed:
        top1.all_reduce()
    return top1.avg


def main_worker(gpu, args):
    args.gpu = gpu
    if args.distributed:
        dist.init_process_group(backend=args.dist_backend, init_method=args.dist_url,
                                world_size=args.world_size, rank=args.rank)
    model = nn.Linear(8, 10)
    torch.cuda.set_device(args.gpu)
    model.cuda(args.gpu)
    model = nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    val_loader = [(torch.randn(4, 8), torch.randint(0, 10, (4,))) for _ in range(2)]
    return validate(val_loader, model, nn.CrossEntropyLoss().cuda(args.gpu), args)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-backend", default="nccl", type=str)
    parser.add_argument("--dist-url", default="tcp://127.0.0.1:23456", type=str)
    parser.add_argument("--world-size", default=1, type=int)
    parser.add_argument("--rank", default=0, type=int)
    args = parser.parse_args()
    args.distributed = True
    main_worker(0, args)
