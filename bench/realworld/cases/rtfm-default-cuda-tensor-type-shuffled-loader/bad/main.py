"""Training entry point (reconstruction of RTFM's main.py)."""

import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader

from dataset import Dataset


class Model(nn.Module):
    def __init__(self, feature_size):
        super().__init__()
        self.fc = nn.Linear(feature_size, 1)

    def forward(self, inputs):
        return torch.sigmoid(self.fc(inputs)).mean(dim=(1, 2))


def train(nloader, aloader, model, optimizer, device):
    ninput, nlabel = next(nloader)
    ainput, alabel = next(aloader)
    inputs = torch.cat((ninput, ainput), 0).to(device)
    labels = torch.cat((nlabel, alabel), 0).float().to(device)
    scores = model(inputs).squeeze(-1)
    cost = nn.functional.binary_cross_entropy(scores, labels)
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()


def main(args):
    train_nloader = DataLoader(Dataset(args, is_normal=True), batch_size=args.batch_size, shuffle=True,
                               num_workers=0, pin_memory=False, drop_last=True)
    train_aloader = DataLoader(Dataset(args, is_normal=False), batch_size=args.batch_size, shuffle=True,
                               num_workers=0, pin_memory=False, drop_last=True)

    model = Model(args.feature_size)
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.005)

    for step in range(1, args.max_epoch + 1):
        if (step - 1) % len(train_nloader) == 0:
            loadern_iter = iter(train_nloader)
        if (step - 1) % len(train_aloader) == 0:
            loadera_iter = iter(train_aloader)
        train(loadern_iter, loadera_iter, model, optimizer, device)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--feature-size', type=int, default=16)
    parser.add_argument('--batch-size', type=int, default=2)
    parser.add_argument('--num-videos', type=int, default=4)
    parser.add_argument('--max-epoch', type=int, default=3)
    main(parser.parse_args())
