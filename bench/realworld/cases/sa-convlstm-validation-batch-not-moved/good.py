"""Seq2seq ConvLSTM trainer (reconstruction of pipeline/trainer.py and the moving-MNIST runner)."""

import torch
from torch import nn

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


class TinySeq2Seq(nn.Module):
    def __init__(self, channels, frames):
        super().__init__()
        self.proj = nn.Linear(channels * frames, channels * frames)

    def forward(self, clip):
        return self.proj(clip.flatten(1)).view_as(clip)


class Trainer:
    def __init__(self, model, epochs, train_loader, valid_loader, loss_fn, acc_fn, optimizer):
        self.model = model.to(DEVICE)
        self.epochs = epochs
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.loss_fn = loss_fn
        self.acc_fn = acc_fn
        self.optimizer = optimizer

    def run(self):
        return self.train()

    def train(self):
        history = {"train_loss": [], "valid_loss": [], "accuracy": []}
        for _ in range(self.epochs):
            self.model.train()
            running = 0
            for clip, future in self.train_loader:
                clip, future = clip.to(DEVICE), future.to(DEVICE)
                pred = self.model(clip)
                loss = self.loss_fn(pred.flatten(), future.flatten())
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                running = loss.detach()
            valid_loss, valid_acc = self.validation()
            history["train_loss"].append(running)
            history["valid_loss"].append(valid_loss)
            history["accuracy"].append(valid_acc)
        return history

    def validation(self):
        self.model.eval()
        with torch.no_grad():
            clip, future = next(iter(self.valid_loader))
            clip, future = clip.to(DEVICE), future.to(DEVICE)
            pred = self.model(clip)
            loss = self.loss_fn(pred.flatten(), future.flatten())
            acc = self.acc_fn(pred.flatten(), future.flatten())
        return loss, acc


def main():
    batches = [(torch.rand(2, 1, 4), torch.rand(2, 1, 4))]
    model = TinySeq2Seq(channels=1, frames=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    trainer = Trainer(model, 1, batches, batches, nn.MSELoss(), nn.L1Loss(), optimizer)
    trainer.run()


def run(device):
    global DEVICE
    DEVICE = device
    main()


if __name__ == "__main__":
    main()
