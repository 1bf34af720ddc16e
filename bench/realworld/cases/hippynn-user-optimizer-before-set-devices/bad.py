"""Training setup with a user-supplied controller (reconstruction of hippynn.experiment.routines)."""

from dataclasses import dataclass

import torch
from torch import nn


class Controller:
    def __init__(self, optimizer, max_epochs):
        self.optimizer = optimizer
        self.max_epochs = max_epochs


@dataclass
class SetupParams:
    device: object = None
    controller: object = None
    optimizer: object = torch.optim.Adam
    learning_rate: float = 1e-3
    max_epochs: int = 1


def place_modules(model, loss, device):
    print("Using device:", device)
    if isinstance(device, (tuple, list)):
        model = nn.DataParallel(model, device_ids=device)
        device = torch.device(device[0])
    device = torch.device(device)
    model.to(device)
    loss.to(device)
    return model, device


def setup_training(model, loss, setup_params):
    model, device = place_modules(model, loss, setup_params.device or "cpu")
    controller = setup_params.controller
    if not isinstance(controller, Controller):
        optimizer = setup_params.optimizer
        if callable(optimizer):
            optimizer = optimizer([p for p in model.parameters() if p.requires_grad], lr=setup_params.learning_rate)
        controller = Controller(optimizer, setup_params.max_epochs)
    return model, device, controller


def train_model(model, loss, batches, device, controller):
    for _ in range(controller.max_epochs):
        for inputs, targets in batches:
            inputs, targets = inputs.to(device), targets.to(device)
            controller.optimizer.zero_grad()
            loss(model(inputs), targets).backward()
            controller.optimizer.step()


def setup_and_train(model, loss, batches, setup_params):
    model, device, controller = setup_training(model, loss, setup_params)
    train_model(model, loss, batches, device, controller)


def main(device):
    network = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.Adagrad(network.parameters(), lr=1e-2)
    controller = Controller(optimizer, max_epochs=2)
    batches = [(torch.randn(8, 4), torch.randn(8, 1))]
    setup_and_train(network, nn.MSELoss(), batches, SetupParams(device=device, controller=controller))


if __name__ == "__main__":
    main(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
