"""Training entry of a transformer toolkit (reconstruction of sat/training/deepspeed_training.py
training_main() and setup_model_untrainable_params_and_optimizer(), driven as the CogVLM fine-tune demo does)."""

import argparse

import torch
import torch.distributed as dist
from torch import nn


class BaseModel(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.body = nn.Linear(args.hidden, args.hidden)
        self.head = nn.Linear(args.hidden, 2)
        for p in self.parameters():
            p.model_parallel = False

    def disable_untrainable_params(self):
        self.body.requires_grad_(False)


def get_model(args, model_cls):
    model = model_cls(args)
    if not hasattr(args, "device"):
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    return model.to(args.device)


def setup_model_untrainable_params_and_optimizer(args, model):
    if hasattr(model, "disable_untrainable_params"):
        model.disable_untrainable_params()
    param_groups = [{"params": [p for p in model.parameters() if p.requires_grad]}]
    if not args.zero3:
        for param_group in param_groups:
            for param in param_group["params"]:
                if not param.model_parallel:
                    dist.broadcast(param.data, src=0)
    optimizer = torch.optim.AdamW(param_groups, lr=args.lr)
    return model, optimizer


def training_main(args, model_cls):
    if isinstance(model_cls, type):
        model = get_model(args, model_cls)
    else:
        model = model_cls
    dist.barrier()
    if args.train_iters > 0:
        model, optimizer = setup_model_untrainable_params_and_optimizer(args, model)
    return model


def finetune_demo(args):
    dist.init_process_group(backend="nccl")
    args.device = torch.cuda.current_device()
    model = BaseModel(args)  # built by the caller (from_pretrained on the host), not via get_model
    return training_main(args, model_cls=model)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--train-iters", type=int, default=10)
    parser.add_argument("--zero3", action="store_true")
    finetune_demo(parser.parse_args())
