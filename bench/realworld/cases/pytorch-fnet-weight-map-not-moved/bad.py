"""Label-free prediction model wrapper (reconstruction of fnet/fnet_model.py and fnet/losses.py)."""

from typing import Optional

import torch


class WeightedMSE(torch.nn.Module):
    def forward(self, y_hat_batch, y_batch, weight_map_batch: Optional[torch.Tensor] = None):
        if weight_map_batch is None:
            return torch.nn.functional.mse_loss(y_hat_batch, y_batch)
        dim = tuple(range(1, len(weight_map_batch.size())))
        return (weight_map_batch * (y_hat_batch - y_batch) ** 2).sum(dim=dim).mean()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv3d(1, 1, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


class Model:
    def __init__(self, lr=0.001, gpu_ids=-1):
        self.criterion = WeightedMSE()
        self.gpu_ids = [gpu_ids] if isinstance(gpu_ids, int) else gpu_ids
        self.lr = lr
        self.count_iter = 0
        self.device = torch.device("cuda", self.gpu_ids[0]) if self.gpu_ids[0] >= 0 else torch.device("cpu")
        self._init_model()

    def _init_model(self):
        self.net = Net()
        self.net.to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=self.lr, betas=(0.5, 0.999))

    def train_on_batch(self, x_batch, y_batch, weight_map_batch=None):
        self.net.train()
        x_batch = x_batch.to(dtype=torch.float32, device=self.device)
        y_batch = y_batch.to(dtype=torch.float32, device=self.device)
        if len(self.gpu_ids) > 1:
            module = torch.nn.DataParallel(self.net, device_ids=self.gpu_ids)
        else:
            module = self.net
        self.optimizer.zero_grad()
        y_hat_batch = module(x_batch)
        args = [y_hat_batch, y_batch]
        if weight_map_batch is not None:
            args.append(weight_map_batch)
        loss = self.criterion(*args)
        loss.backward()
        self.optimizer.step()
        self.count_iter += 1
        return loss.item()


def train(model, batches, n_iter):
    for idx_iter in range(model.count_iter, n_iter):
        x, y, weight_map = batches[idx_iter % len(batches)]
        model.train_on_batch(x, y, weight_map)


if __name__ == "__main__":
    data = [(torch.randn(2, 1, 4, 8, 8), torch.randn(2, 1, 4, 8, 8), torch.rand(2, 1, 4, 8, 8))]
    train(Model(gpu_ids=0 if torch.cuda.is_available() else -1), data, n_iter=3)
