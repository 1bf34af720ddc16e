"""Concise multi-GPU training (reconstruction of the d2l chapter 'multiple-gpus-concise', PyTorch tab)."""

import torch
from torch import nn


def try_gpu(i=0):
    if torch.cuda.device_count() >= i + 1:
        return torch.device(f"cuda:{i}")
    return torch.device("cpu")


def small_resnet(num_classes, in_channels=1):
    return nn.Sequential(
        nn.Conv2d(in_channels, 8, kernel_size=3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(8, num_classes))


def load_data(batch_size):
    batches = [(torch.randn(batch_size, 1, 8, 8), torch.randint(0, 10, (batch_size,)))]
    return batches, batches


def train(net, num_gpus, batch_size, lr, device_override=None):
    train_iter, test_iter = load_data(batch_size)
    devices = [device_override] if device_override is not None else [try_gpu(i) for i in range(num_gpus)]

    def init_weights(module):
        if type(module) in [nn.Linear, nn.Conv2d]:
            nn.init.normal_(module.weight, std=0.01)

    net.apply(init_weights)
    net = net.to(devices[0])
    # Set the model on multiple GPUs
    net = nn.DataParallel(net, device_ids=devices)
    trainer = torch.optim.SGD(net.parameters(), lr)
    loss = nn.CrossEntropyLoss()
    for epoch in range(2):
        net.train()
        for X, y in train_iter:
            trainer.zero_grad()
            X, y = X.to(devices[0]), y.to(devices[0])
            l = loss(net(X), y)
            l.backward()
            trainer.step()


def run(device):
    net = small_resnet(10)
    train(net, num_gpus=1, batch_size=4, lr=0.1, device_override=device)


if __name__ == "__main__":
    net = small_resnet(10)
    train(net, num_gpus=2, batch_size=512, lr=0.2)
