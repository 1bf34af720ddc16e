"""Gene-essentiality GNN training loop (reconstruction of model/FluxGAT.py; the GAT layers are
replaced by linear layers)."""

from types import SimpleNamespace

import torch
import torch.nn.functional as F


class GraphNet(torch.nn.Module):
    def __init__(self, num_features, hidden_channels=16):
        super().__init__()
        self.embedding = torch.nn.Embedding(num_features, hidden_channels)
        self.fc = torch.nn.Linear(hidden_channels, 1)

    def forward(self, data):
        x = self.embedding(torch.argmax(data.x, dim=1))
        return self.fc(F.leaky_relu(x)).squeeze(-1)


def train(model, data, optimizer, criterion):
    model.train()
    optimizer.zero_grad()
    out = model(data)
    loss = criterion(out[data.train_mask], data.y[data.train_mask].float())
    loss.backward()
    optimizer.step()
    return loss.item()


def make_fold(n=12, num_features=5):
    y = torch.randint(0, 2, (n,))
    y[0], y[1] = 0, 1
    return SimpleNamespace(x=torch.randn(n, num_features), y=y, train_mask=torch.rand(n) < 0.7)


def to_device(data, device):
    return SimpleNamespace(**{k: v.to(device) for k, v in vars(data).items()})


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = [make_fold() for _ in range(2)]
    for repeat in range(2):
        for fold, data in enumerate(dataset):
            data = to_device(data, device)
            model = GraphNet(num_features=data.x.size(1)).to(device)
            optimizer = torch.optim.AdamW(model.parameters(), lr=0.001, weight_decay=0.01)

            number_of_zeros = (data.y == 0).sum()
            number_of_ones = (data.y == 1).sum()
            weight = torch.tensor([number_of_zeros / number_of_ones], device=device)
            criterion = torch.nn.BCEWithLogitsLoss(pos_weight=weight)

            for epoch in range(3):
                train(model, data, optimizer, criterion)


if __name__ == "__main__":
    main()
