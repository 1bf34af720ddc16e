"""CTR trainer (reconstruction of torch_rechub/trainers/ctr_trainer.py)."""

import torch
from torch import nn


class CTRTrainer:
    def __init__(self, model, optimizer_fn=torch.optim.Adam, optimizer_params=None, scheduler_fn=None,
                 scheduler_params=None, n_epoch=10, device="cpu", gpus=None):
        self.model = model
        if gpus is None:
            gpus = []
        self.gpus = gpus
        if len(gpus) > 1:
            self.model = nn.DataParallel(self.model, device_ids=gpus)
        self.device = torch.device(device)
        self.model.to(self.device)
        if optimizer_params is None:
            optimizer_params = {"lr": 1e-3, "weight_decay": 1e-5}
        self.optimizer = optimizer_fn(self.model.parameters(), **optimizer_params)
        self.scheduler = None
        if scheduler_fn is not None:
            self.scheduler = scheduler_fn(self.optimizer, **scheduler_params)
        self.criterion = nn.BCELoss()
        self.n_epoch = n_epoch

    def train_one_epoch(self, data_loader):
        self.model.train()
        for x_dict, y in data_loader:
            x_dict = {k: v.to(self.device) for k, v in x_dict.items()}
            y = y.to(self.device)
            loss = self.criterion(self.model(x_dict), y.float())
            self.model.zero_grad()
            loss.backward()
            self.optimizer.step()

    def fit(self, train_dataloader):
        for _ in range(self.n_epoch):
            self.train_one_epoch(train_dataloader)
            if self.scheduler is not None:
                self.scheduler.step()


class WideModel(nn.Module):
    def __init__(self, n_users=10, dim=4):
        super().__init__()
        self.emb = nn.Embedding(n_users, dim)
        self.fc = nn.Linear(dim, 1)

    def forward(self, x_dict):
        return torch.sigmoid(self.fc(self.emb(x_dict["user_id"]))).squeeze(-1)


def main(device):
    loader = [({"user_id": torch.randint(0, 10, (8,))}, torch.randint(0, 2, (8,)))]
    trainer = CTRTrainer(WideModel(), optimizer_fn=torch.optim.Adagrad,
                         optimizer_params={"lr": 1e-2, "weight_decay": 1e-5}, n_epoch=2, device=device)
    trainer.fit(loader)


if __name__ == "__main__":
    main("cuda:0" if torch.cuda.is_available() else "cpu")
