"""Segmentation training entry point (reconstruction of train.py)."""

import argparse

import torch
from torch import nn, optim

import snapshot_utils


class EncoderDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Conv2d(3, 8, 3, padding=1)
        self.decoder = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        return self.decoder(torch.relu(self.encoder(x)))

    def train_params(self, lrs):
        return [{"params": self.encoder.parameters(), "lr": lrs[0]},
                {"params": self.decoder.parameters(), "lr": lrs[1]}]

    def step(self, loader, device, optimizer, criterion):
        for image, label in loader:
            image, label = image.to(device), label.to(device)
            optimizer.zero_grad()
            loss = criterion(self(image), label)
            loss.backward()
            optimizer.step()


def make_optimizer(name, params, lr):
    if name == "sgd":
        return optim.SGD(params, lr=lr, momentum=0.9)
    return optim.Adam(params, lr=lr)


def train_model(args, device):
    model = EncoderDecoder()
    optimizer = make_optimizer(args["optimizer"], model.train_params((1e-3, 1e-2)), 1e-3)
    criterion = nn.CrossEntropyLoss()

    if args["resume_epoch"] == 0:
        print("training from scratch")
    else:
        print("resuming from epoch", args["resume_epoch"])
        snapshot_utils.restore_epoch(args["save_dir"], args["resume_epoch"], model, optimizer)

    model.to(device)
    criterion.to(device)
    loader = [(torch.randn(2, 3, 8, 8), torch.randint(0, 2, (2, 8, 8)))]
    for epoch in range(args["resume_epoch"], args["epochs"]):
        model.train()
        model.step(loader, device, optimizer, criterion)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_dir", default="./models")
    parser.add_argument("--resume_epoch", type=int, default=0)
    cli = parser.parse_args()
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_model({"optimizer": "adam", "save_dir": cli.save_dir, "resume_epoch": cli.resume_epoch, "epochs": 5}, dev)
