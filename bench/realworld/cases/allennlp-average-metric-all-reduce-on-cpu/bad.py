"""Running-average metric summed across workers (reconstruction of
allennlp/training/metrics/average.py) and a model that reports a loss term through it."""

import torch
import torch.distributed as dist
from torch import nn


def running_distributed():
    return dist.is_available() and dist.is_initialized()


class Average:
    def __init__(self):
        self._total_value = 0.0
        self._count = 0

    def __call__(self, value):
        _total_value = value.detach() if isinstance(value, torch.Tensor) else value
        _count = 1
        if running_distributed():
            device = torch.device("cpu")
            count = torch.tensor(_count).to(device)
            total_value = torch.tensor(_total_value).to(device)
            dist.all_reduce(count, op=dist.ReduceOp.SUM)
            dist.all_reduce(total_value, op=dist.ReduceOp.SUM)
            _count = count.item()
            _total_value = total_value.item()
        self._count += _count
        self._total_value += _total_value

    def get_metric(self, reset=False):
        average_value = self._total_value / self._count if self._count > 0 else 0
        if reset:
            self._total_value, self._count = 0.0, 0
        return average_value


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 5)
        self.aux_loss_avg = Average()

    def forward(self, tokens, tags):
        logits = self.proj(tokens)
        loss = nn.functional.cross_entropy(logits, tags)
        aux = logits.logsumexp(-1).pow(2).mean()
        self.aux_loss_avg(aux)
        return loss + 1e-3 * aux


def worker(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    model = Tagger().cuda(rank)
    model(torch.randn(4, 8, device=rank), torch.randint(0, 5, (4,), device=rank)).backward()
    print(model.aux_loss_avg.get_metric(reset=True))
