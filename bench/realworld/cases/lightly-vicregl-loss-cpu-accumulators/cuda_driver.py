"""A VICRegL training step ran the backbone head on GPU views and passed the (global, local) feature pairs to
VICRegLLoss; in bad the loss sums start as CPU scalars and the GPU view losses are added into them in place."""

import torch


def run(program, device):
    torch.manual_seed(0)
    head = torch.nn.Conv2d(3, 8, 3, padding=1).to(device)
    views = [torch.randn(4, 3, 8, 8, device=device) for _ in range(2)]
    loss = program["train_step"](head, views, program["VICRegLLoss"]())
    loss.backward()
    assert torch.isfinite(loss)
