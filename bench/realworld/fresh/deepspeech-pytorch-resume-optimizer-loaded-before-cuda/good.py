"""Resuming DeepSpeech training from a checkpoint (reconstruction of train.py)."""

import argparse

import torch
from torch import nn


class DeepSpeech(nn.Module):
    def __init__(self, hidden_size=32, labels="_abc"):
        super().__init__()
        self.labels = labels
        self.conv = nn.Conv1d(16, hidden_size, 3, padding=1)
        self.rnn = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, len(labels))

    def forward(self, x):
        h = torch.relu(self.conv(x)).transpose(1, 2)
        return self.fc(self.rnn(h)[0])

    @classmethod
    def load_model_package(cls, package):
        model = cls(package["hidden_size"], package["labels"])
        model.load_state_dict(package["state_dict"])
        return model


def parse_args(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--continue-from", default="")
    parser.add_argument("--finetune", action="store_true")
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--epochs", type=int, default=1)
    return parser.parse_args(argv)


def main(argv=None, batches=()):
    args = parse_args(argv)
    start_epoch = 0
    if args.continue_from:
        package = torch.load(args.continue_from, map_location=lambda storage, loc: storage)
        model = DeepSpeech.load_model_package(package)
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, nesterov=True)
        if not args.finetune:  # carry on where the run stopped
            if args.cuda:
                model.cuda()
            optimizer.load_state_dict(package["optim_dict"])
            start_epoch = int(package.get("epoch", 1)) - 1
    else:
        model = DeepSpeech()
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, nesterov=True)
    criterion = nn.CrossEntropyLoss()

    if args.cuda:
        model.cuda()

    for epoch in range(start_epoch, args.epochs):
        model.train()
        for inputs, targets in batches:
            if args.cuda:
                inputs, targets = inputs.cuda(), targets.cuda()
            out = model(inputs)
            loss = criterion(out.reshape(-1, out.shape[-1]), targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model


if __name__ == "__main__":
    main()
