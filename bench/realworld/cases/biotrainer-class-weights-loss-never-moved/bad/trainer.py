"""Training routine (reconstruction of biotrainer/trainers/trainer.py and the Solver)."""

from collections import Counter

import torch
from torch import nn

from losses import get_loss


def get_device(device=None):
    if isinstance(device, torch.device):
        if device.type == "cuda" and not torch.cuda.is_available():
            return torch.device("cpu")
        return device
    if device:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Targets:
    def __init__(self, labels, n_classes):
        self.labels = labels
        self.n_classes = n_classes

    def compute_class_weights(self):
        counts = Counter(self.labels)
        total = sum(counts[c] for c in range(self.n_classes))
        return torch.FloatTensor([total / (self.n_classes * counts[c]) for c in range(self.n_classes)])


class Solver:
    def __init__(self, network, optimizer, loss_function, device=None):
        self.optimizer = optimizer
        self.loss_function = loss_function
        self.device = get_device(device)
        self.network = network.to(self.device)

    def train(self, loader):
        self.network.train()
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = self.loss_function(self.network(x), y)
            loss.backward()
            self.optimizer.step()


def training_and_evaluation_routine(protocol, labels, loader, use_class_weights=False,
                                    loss_choice="cross_entropy_loss", device=None):
    device = get_device(device)
    targets = Targets(labels, n_classes=3)

    class_weights = None
    if "class" in protocol:
        if use_class_weights:
            class_weights = targets.compute_class_weights()

    model = nn.Linear(5, targets.n_classes)
    loss_function = get_loss(protocol=protocol, loss_choice=loss_choice, weight=class_weights)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    solver = Solver(model, optimizer, loss_function, device=device)
    solver.train(loader)


def run(device):
    loader = [(torch.randn(4, 5), torch.tensor([0, 1, 2, 1]))]
    training_and_evaluation_routine("sequence_to_class", [0, 1, 2, 1, 1], loader,
                                    use_class_weights=True, device=str(device))


if __name__ == "__main__":
    run(None)
