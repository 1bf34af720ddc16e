"""Resuming training state (reconstruction of accelerate/checkpointing.py load_accelerator_state)."""

import os

import torch

MODEL_NAME = "pytorch_model"
OPTIMIZER_NAME = "optimizer"
SCHEDULER_NAME = "scheduler"


def current_device():
    return torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")


def load_accelerator_state(input_dir, models, optimizers, schedulers, process_index, map_location=None):
    if map_location not in [None, "cpu", "on_device"]:
        raise TypeError("Unsupported optimizer map location passed")
    if map_location is None:
        map_location = "cpu"
    elif map_location == "on_device":
        map_location = current_device()

    for i, model in enumerate(models):
        weights_name = f"{MODEL_NAME}.bin" if i == 0 else f"{MODEL_NAME}_{i}.bin"
        models[i].load_state_dict(torch.load(os.path.join(input_dir, weights_name), map_location=map_location))

    for i, opt in enumerate(optimizers):
        optimizer_name = f"{OPTIMIZER_NAME}.bin" if i == 0 else f"{OPTIMIZER_NAME}_{i}.bin"
        optimizer_state = torch.load(os.path.join(input_dir, optimizer_name), map_location=map_location)
        optimizers[i].load_state_dict(optimizer_state)

    for i, scheduler in enumerate(schedulers):
        scheduler_name = f"{SCHEDULER_NAME}.bin" if i == 0 else f"{SCHEDULER_NAME}_{i}.bin"
        scheduler.load_state_dict(torch.load(os.path.join(input_dir, scheduler_name)))


def resume(rank, checkpoint_dir):
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(16, 16).cuda(rank)
    optimizer = torch.optim.AdamW(model.parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)
    load_accelerator_state(checkpoint_dir, [model], [optimizer], [scheduler], rank)
