"""Top-k accuracy metric that sums its counts across workers (reconstruction of allennlp's CategoricalAccuracy)."""

import torch
import torch.distributed as dist


def running_distributed():
    return dist.is_available() and dist.is_initialized()


class TopKAccuracy:
    def __init__(self, top_k=1):
        self._top_k = top_k
        self.correct_count = 0.0
        self.total_count = 0.0

    def __call__(self, predictions, gold_labels, mask=None):
        predictions, gold_labels = predictions.detach(), gold_labels.detach()
        num_classes = predictions.size(-1)
        predictions = predictions.view(-1, num_classes)
        gold_labels = gold_labels.view(-1).long()
        if self._top_k == 1:
            top = predictions.max(-1)[1].unsqueeze(-1)
        else:
            top = predictions.topk(self._top_k, dim=-1)[1]
        hits = top.eq(gold_labels.unsqueeze(-1)).float()

        if mask is not None:
            hits *= mask.view(-1, 1)
            batch_total = mask.sum()
        else:
            batch_total = torch.tensor(gold_labels.numel())
        batch_correct = hits.sum()

        if running_distributed():
            dist.all_reduce(batch_correct, op=dist.ReduceOp.SUM)
            dist.all_reduce(batch_total, op=dist.ReduceOp.SUM)

        self.correct_count += batch_correct.item()
        self.total_count += batch_total.item()

    def get_metric(self, reset=False):
        accuracy = self.correct_count / self.total_count if self.total_count > 1e-12 else 0.0
        if reset:
            self.correct_count = self.total_count = 0.0
        return accuracy


def evaluate(model, batches, rank):
    metric = TopKAccuracy()
    for inputs, labels in batches:
        inputs, labels = inputs.to(rank), labels.to(rank)
        metric(model(inputs), labels)
    return metric.get_metric(reset=True)


def main(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(8, 4).to(rank)
    batches = [(torch.randn(16, 8), torch.randint(0, 4, (16,)))]
    print(evaluate(model, batches, rank))
