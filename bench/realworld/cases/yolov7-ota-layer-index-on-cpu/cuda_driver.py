"""yolov7's train.py ran ComputeLossOTA on the GPU with the model's predictions, targets and images all there; in
bad the OTA matching mask is computed on the GPU and used to index the from_which_layer tensor built on the CPU."""

import torch


def run(program, device):
    torch.manual_seed(0)
    anchors = [torch.tensor([[1.5, 2.0]], device=device), torch.tensor([[2.5, 3.0]], device=device)]
    compute_loss = program["ComputeLossOTA"](nc=3, stride=[8, 16], anchors=anchors)
    preds = [torch.randn(2, 1, 8, 8, 8, device=device), torch.randn(2, 1, 4, 4, 8, device=device)]
    targets = torch.tensor(
        [[0, 1, 0.5, 0.5, 0.2, 0.3], [0, 0, 0.2, 0.7, 0.1, 0.2], [1, 2, 0.3, 0.6, 0.1, 0.1]], device=device
    )
    imgs = torch.zeros(2, 3, 64, 64, device=device)
    matched = compute_loss(preds, targets, imgs)
    assert len(matched) == 2
