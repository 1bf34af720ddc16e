"""Training verb of an astronomy ML framework (reconstruction of hyrax/pytorch_ignite.py dist_data_loader,
create_engine, create_trainer and verbs/train.py)."""


import ignite.distributed as idist
import torch
from ignite.engine import Engine
from torch import nn
from torch.utils.data import SubsetRandomSampler, SequentialSampler


def dist_data_loader(dataset, config, shuffle=False):
    data_loader_kwargs = dict(config["data_loader"])
    torch_rng = torch.Generator()
    seed = config["data_set"]["seed"] if config["data_set"]["seed"] else None
    if seed is not None:
        torch_rng.manual_seed(seed)

    def make_sampler(indexes, sampler_shuffle):
        if sampler_shuffle:
            return SubsetRandomSampler(indexes, generator=torch_rng)
        return SequentialSampler(indexes)

    indexes = list(range(len(dataset)))
    sampler = make_sampler(indexes, shuffle)
    return idist.auto_dataloader(dataset, sampler=sampler, **data_loader_kwargs), indexes


def _inner_loop(step, device, batch):
    return step(batch.to(device))


def create_engine(funcname, device, model, config):
    torch.set_default_device(device.type)
    return Engine(lambda engine, batch: _inner_loop(getattr(model, funcname), device, batch))


def create_trainer(model, config):
    device = idist.device()
    model = idist.auto_model(model)
    return create_engine("train_batch", device, model, config)


class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)

    def train_batch(self, batch):
        loss = self.fc(batch).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def train(config):
    dataset = torch.randn(32, 4)
    model = TinyModel()
    train_data_loader, _ = dist_data_loader(dataset, config, shuffle=config["train"]["shuffle"])
    trainer = create_trainer(model, config)
    trainer.run(train_data_loader, max_epochs=config["train"]["epochs"])


if __name__ == "__main__":
    train({"data_loader": {"batch_size": 8}, "data_set": {"seed": 7}, "train": {"shuffle": True, "epochs": 1}})
