"""Distributed MNIST example (reconstruction of mnist-pytorch-v1.0.1/main.py)."""

import argparse

import torch
import torch.nn.functional as F
from torch import distributed, nn


class Trainer:
    def __init__(self, net, optimizer, train_loader, device):
        self.net = net
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.device = device

    def fit(self, epochs):
        for _ in range(epochs):
            self.train()

    def train(self):
        self.net.train()
        for data, label in self.train_loader:
            data, label = data.to(self.device), label.to(self.device)
            loss = F.cross_entropy(self.net(data), label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return self.fc(x.view(x.size(0), -1))


def run(args):
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    device = torch.device("cuda" if use_cuda else "cpu")

    net = Net()
    if use_cuda:
        net = nn.parallel.DistributedDataParallel(net)
    else:
        net = nn.parallel.DistributedDataParallel(net, device_ids=None)
    net.to(device)

    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    train_loader = [(torch.randn(8, 1, 28, 28), torch.randint(0, 10, (8,)))]
    Trainer(net, optimizer, train_loader, device).fit(args.epochs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="nccl")
    parser.add_argument("--init-method", default="tcp://127.0.0.1:23456")
    parser.add_argument("--rank", type=int)
    parser.add_argument("--world-size", type=int)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--no-cuda", action="store_true")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    args = parser.parse_args()
    distributed.init_process_group(backend=args.backend, init_method=args.init_method,
                                   rank=args.rank, world_size=args.world_size)
    run(args)


if __name__ == "__main__":
    main()
