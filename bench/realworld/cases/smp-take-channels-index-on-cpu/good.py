"""Segmentation metrics with ignored channels (reconstruction of smp.utils.functional / metrics)."""

import torch
from torch import nn


def _drop_channels(*tensors, ignore_channels=None):
    if ignore_channels is None:
        return tensors
    keep = [c for c in range(tensors[0].shape[1]) if c not in ignore_channels]
    return [torch.index_select(t, dim=1, index=torch.tensor(keep).to(t.device)) for t in tensors]


def _binarize(x, threshold=None):
    return (x > threshold).type(x.dtype) if threshold is not None else x


def iou(pr, gt, eps=1e-7, threshold=None, ignore_channels=None):
    pr = _binarize(pr, threshold=threshold)
    pr, gt = _drop_channels(pr, gt, ignore_channels=ignore_channels)
    inter = torch.sum(gt * pr)
    union = torch.sum(gt) + torch.sum(pr) - inter + eps
    return (inter + eps) / union


class IoU(nn.Module):
    __name__ = "iou_score"

    def __init__(self, eps=1e-7, threshold=0.5, ignore_channels=None):
        super().__init__()
        self.eps = eps
        self.threshold = threshold
        self.ignore_channels = ignore_channels

    def forward(self, y_pr, y_gt):
        return iou(torch.sigmoid(y_pr), y_gt, self.eps, self.threshold, self.ignore_channels)


def validate(model, loader, metrics, device):
    model.eval()
    scores = []
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            pred = model(x)
            scores.append([m(pred, y) for m in metrics])
    return scores


def run(device):
    model = nn.Conv2d(3, 4, 1).to(device)
    loader = [(torch.rand(2, 3, 8, 8), torch.randint(0, 2, (2, 4, 8, 8)).float())]
    validate(model, loader, [IoU(ignore_channels=[0])], device)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
