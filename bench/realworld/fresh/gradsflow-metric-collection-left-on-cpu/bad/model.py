"""The Model API's training loop (reconstruction of gradsflow/models/model.py)."""

import torch
from torch import nn

from base import BaseModel


class Model(BaseModel):
    def compile(self, loss="crossentropyloss", optimizer="adam", learning_rate=3e-4, metrics=None):
        self.loss = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.learner.parameters(), lr=learning_rate)
        self.add_metrics(*(metrics or []))
        self._compiled = True

    def calculate_metrics(self, preds, target):
        self.metrics.update(preds, target)
        return self.metrics.compute()

    def train_step(self, batch):
        inputs, target = batch
        self.optimizer.zero_grad()
        logits = self.learner(inputs)
        loss = self.loss(logits, target)
        loss.backward()
        self.optimizer.step()
        return {"loss": loss, "metrics": self.calculate_metrics(logits, target)}

    def fit(self, dataloader, max_epochs=1):
        history = []
        for _ in range(max_epochs):
            for inputs, target in dataloader:
                batch = (inputs.to(self.device), target.to(self.device))
                history.append(self.train_step(batch)["metrics"])
        return history


def run(device):
    learner = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    model = Model(learner, device=device, use_accelerate=False)
    model.compile(metrics=["accuracy"])
    loader = [(torch.randn(4, 8), torch.randint(0, 3, (4,)))]
    return model.fit(loader)


if __name__ == "__main__":
    run(None)
