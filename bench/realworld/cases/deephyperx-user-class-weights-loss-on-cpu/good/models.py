"""Model factory and training loop (reconstruction of DeepHyperX models.py)."""

import torch
import torch.nn as nn
import torch.optim as optim


class Baseline(nn.Module):
    def __init__(self, n_bands, n_classes, dropout=False):
        super().__init__()
        self.fc1 = nn.Linear(n_bands, 32)
        self.fc2 = nn.Linear(32, n_classes)
        self.dropout = nn.Dropout(0.5) if dropout else nn.Identity()

    def forward(self, x):
        return self.fc2(self.dropout(torch.relu(self.fc1(x))))


def get_model(name, **kwargs):
    device = kwargs.setdefault("device", torch.device("cpu"))
    n_classes = kwargs["n_classes"]
    n_bands = kwargs["n_bands"]
    weights = torch.ones(n_classes)
    weights[torch.LongTensor(kwargs["ignored_labels"])] = 0.0
    weights = kwargs.setdefault("weights", weights)
    kwargs["weights"] = weights.to(device)

    if name == "nn":
        kwargs.setdefault("patch_size", 1)
        model = Baseline(n_bands, n_classes, kwargs.setdefault("dropout", False))
        lr = kwargs.setdefault("learning_rate", 0.0001)
        optimizer = optim.Adam(model.parameters(), lr=lr)
        criterion = nn.CrossEntropyLoss(weight=kwargs["weights"])
        kwargs.setdefault("epoch", 1)
        kwargs.setdefault("batch_size", 4)
    else:
        raise KeyError(f"{name} model is unknown.")
    model = model.to(device)
    return model, optimizer, criterion, kwargs


def train(net, optimizer, criterion, data_loader, epoch, device=torch.device("cpu")):
    if criterion is None:
        raise Exception("Missing criterion. You must specify a loss function.")
    net.to(device)
    for _ in range(1, epoch + 1):
        net.train()
        for data, target in data_loader:
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            output = net(data)
            loss = criterion(output, target)
            loss.backward()
            optimizer.step()
