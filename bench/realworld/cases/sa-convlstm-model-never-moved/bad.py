"""Seq2seq ConvLSTM on moving MNIST (reconstruction of the runner, the Trainer and the model)."""

import torch
from torch import nn

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


class RecurrentCell(nn.Module):
    def __init__(self, in_ch, hid_ch):
        super().__init__()
        self.gates = nn.Linear(in_ch + hid_ch, 4 * hid_ch, device=DEVICE)
        self.hid_ch = hid_ch

    def forward(self, x, h, c):
        i, f, g, o = torch.chunk(self.gates(torch.cat([x, h], dim=-1)), 4, dim=-1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h.to(DEVICE), c.to(DEVICE)


class RecurrentLayer(nn.Module):
    def __init__(self, in_ch, hid_ch):
        super().__init__()
        self.cell = RecurrentCell(in_ch, hid_ch)
        self.hid_ch = hid_ch

    def forward(self, seq):
        batch, steps, _ = seq.shape
        out = torch.zeros(batch, steps, self.hid_ch).to(DEVICE)
        h = torch.zeros(batch, self.hid_ch).to(DEVICE)
        c = torch.zeros(batch, self.hid_ch).to(DEVICE)
        for t in range(steps):
            h, c = self.cell(seq[:, t], h, c)
            out[:, t] = h
        return out


class Seq2Seq(nn.Module):
    def __init__(self, in_ch, hid_ch, steps, num_layers):
        super().__init__()
        self.body = nn.Sequential()
        self.body.add_module("rnn1", RecurrentLayer(in_ch, hid_ch))
        self.body.add_module("norm1", nn.LayerNorm([steps, hid_ch]))
        for idx in range(2, num_layers + 1):
            self.body.add_module(f"rnn{idx}", RecurrentLayer(hid_ch, hid_ch))
            self.body.add_module(f"norm{idx}", nn.LayerNorm([steps, hid_ch]))
        self.body.add_module("head", nn.Linear(hid_ch, in_ch))

    def forward(self, seq):
        return torch.sigmoid(self.body(seq))


class Trainer:
    def __init__(self, model, epochs, train_loader, loss_fn, optimizer):
        self.model = model
        self.epochs = epochs
        self.train_loader = train_loader
        self.loss_fn = loss_fn
        self.optimizer = optimizer

    def train(self):
        losses = []
        for _ in range(self.epochs):
            self.model.train()
            for seq, target in self.train_loader:
                seq, target = seq.to(DEVICE), target.to(DEVICE)
                pred = self.model(seq)
                loss = self.loss_fn(pred.flatten(), target.flatten())
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                losses.append(loss.detach())
        return losses


def main():
    loader = [(torch.rand(2, 5, 3), torch.rand(2, 5, 3))]
    model = Seq2Seq(in_ch=3, hid_ch=8, steps=5, num_layers=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    trainer = Trainer(model, 1, loader, nn.MSELoss(), optimizer)
    trainer.train()


def run(device):
    global DEVICE
    DEVICE = device
    main()


if __name__ == "__main__":
    main()
