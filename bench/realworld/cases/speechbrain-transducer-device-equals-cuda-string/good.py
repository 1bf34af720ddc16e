"""Numba transducer loss module (reconstruction of speechbrain/nnet/loss/transducer_loss.py)."""

import torch
from torch import nn


class Transducer(torch.autograd.Function):
    """Stand-in for the CUDA (numba) forward-backward kernel."""

    @staticmethod
    def forward(ctx, log_probs, labels, T, U, blank, reduction):
        costs = -log_probs[..., blank].sum(dim=(1, 2))
        return costs.mean() if reduction == "mean" else costs.sum()

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, None, None, None


class TransducerLoss(nn.Module):
    """Transducer loss; input tensors must be on a CUDA device."""

    def __init__(self, blank=0, reduction="mean"):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.loss = Transducer.apply

    def forward(self, logits, labels, T, U):
        if all(t.is_cuda for t in (logits, labels, T, U)):
            log_probs = logits.log_softmax(-1)
            return self.loss(log_probs, labels, T, U, self.blank, self.reduction)
        else:
            raise ValueError(
                f"Found inputs tensors to be on {[logits.device, labels.device, T.device, U.device]} "
                "while needed to be on a 'cuda' device to use the transducer loss."
            )


def main():
    device = torch.device("cuda")
    loss = TransducerLoss(blank=0)
    logits = torch.randn((1, 2, 3, 5), device=device).requires_grad_()
    labels = torch.tensor([[1, 2]], device=device).int()
    act_length = torch.tensor([2], device=device).int()
    label_length = torch.tensor([2], device=device).int()
    return loss(logits, labels, act_length, label_length)


if __name__ == "__main__":
    print(main())
