"""Seedable shuffling sampler used when a data loader is prepared (reconstruction of
accelerate/data_loader.py SeedableRandomSampler / prepare_data_loader), driven by a script that sets
an accelerator default device."""

import torch
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


class SeedableRandomSampler(RandomSampler):
    def __init__(self, *args, **kwargs):
        data_seed = kwargs.pop("data_seed", None)
        super().__init__(*args, **kwargs)
        self.initial_seed = data_seed if data_seed is not None else torch.random.initial_seed()
        self.epoch = 0

    def __iter__(self):
        if self.generator is None:
            self.generator = torch.Generator(device=torch.get_default_device())
            self.generator.manual_seed(self.initial_seed)
        self.generator.manual_seed(self.epoch + self.initial_seed)
        yield from super().__iter__()
        self.set_epoch(self.epoch + 1)

    def set_epoch(self, epoch):
        self.epoch = epoch


def prepare_data_loader(dataloader, use_seedable_sampler=True, data_seed=None):
    sampler = dataloader.sampler
    if isinstance(sampler, RandomSampler) and use_seedable_sampler:
        sampler = SeedableRandomSampler(
            data_source=sampler.data_source,
            replacement=sampler.replacement,
            num_samples=sampler._num_samples,
            generator=getattr(sampler, "generator", torch.Generator(device=torch.get_default_device())),
            data_seed=data_seed,
        )
    return DataLoader(dataloader.dataset, batch_size=dataloader.batch_size, sampler=sampler)


def main():
    torch.set_default_device("cuda")
    dataset = TensorDataset(torch.randn(16, 3), torch.randint(0, 2, (16,)))
    loader = prepare_data_loader(DataLoader(dataset, batch_size=4, shuffle=True))
    for _ in loader:
        pass


if __name__ == "__main__":
    main()
