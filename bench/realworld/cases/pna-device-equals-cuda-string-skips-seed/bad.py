"""Molecule regression benchmark driver (reconstruction of realworld_benchmark/main_molecules.py)."""

import argparse
import os
import random

import numpy as np
import torch
from torch import nn


def gpu_setup(use_gpu, gpu_id):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu_id)
    if torch.cuda.is_available() and use_gpu:
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    return device


class PNANet(nn.Module):
    def __init__(self, net_params):
        super().__init__()
        self.readout = nn.Linear(net_params["hidden_dim"], 1)

    def forward(self, h):
        return self.readout(h)


def train_val_pipeline(params, net_params):
    device = net_params["device"]

    random.seed(params["seed"])
    np.random.seed(params["seed"])
    torch.manual_seed(params["seed"])
    if device == "cuda":
        torch.cuda.manual_seed(params["seed"])

    model = PNANet(net_params).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=params["init_lr"])
    for _ in range(params["epochs"]):
        h = torch.randn(8, net_params["hidden_dim"], device=device)
        loss = model(h).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main(args):
    config = {"gpu": {"use": True, "id": 0}, "params": {"seed": 41, "epochs": 2, "init_lr": 1e-3},
              "net_params": {"hidden_dim": 16}}
    if args.gpu_id is not None:
        config["gpu"]["id"] = int(args.gpu_id)
        config["gpu"]["use"] = True
    device = gpu_setup(config["gpu"]["use"], config["gpu"]["id"])
    params = config["params"]
    if args.seed is not None:
        params["seed"] = int(args.seed)
    net_params = config["net_params"]
    net_params["device"] = device
    return train_val_pipeline(params, net_params)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu_id")
    parser.add_argument("--seed")
    main(parser.parse_args())
