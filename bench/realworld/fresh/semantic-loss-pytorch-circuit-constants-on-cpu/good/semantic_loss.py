"""Semantic loss over an SDD constraint (reconstruction of semantic_loss_pytorch/semantic_loss.py)."""

from functools import reduce

import torch
from torch import nn
from torch.nn.modules.loss import _Loss

from sdd import SddNode


class SemanticLoss(_Loss):
    def __init__(self, psdd, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.psdd = psdd

    def forward(self, logits=None, probabilities=None):
        if (logits is None) == (probabilities is None):
            raise ValueError("give either logits or probabilities")
        if logits is not None:
            probabilities = torch.sigmoid(logits)
        batch_size, *other_dims = probabilities.size()
        variables = reduce(lambda a, b: a * b, other_dims)
        wmc_per_sample = self.psdd.generate_pt_ac(torch.reshape(probabilities, (batch_size, variables)))
        return -torch.log(torch.mean(wmc_per_sample))


def exactly_one_of_two():
    """x1 xor x2, with one branch of the compiled SDD collapsing to false."""
    x1, not_x1 = SddNode(SddNode.LITERAL, 1), SddNode(SddNode.LITERAL, -1)
    x2, not_x2 = SddNode(SddNode.LITERAL, 2), SddNode(SddNode.LITERAL, -2)
    never = SddNode(SddNode.DECOMPOSITION, elements=[(x1, SddNode(SddNode.FALSE))])
    return SddNode(SddNode.DECOMPOSITION, elements=[(x1, not_x2), (not_x1, x2), (x2, never)])


def run(device):
    head = nn.Linear(4, 2).to(device)
    loss_fn = SemanticLoss(exactly_one_of_two())
    logits = head(torch.randn(3, 4, device=device))
    return loss_fn(logits=logits)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
