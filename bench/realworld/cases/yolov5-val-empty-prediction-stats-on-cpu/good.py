"""Detector validation loop (reconstruction of yolov5 val.py run())."""

import numpy as np
import torch
from torch import nn


class TinyDetector(nn.Module):
    def __init__(self, nc=3):
        super().__init__()
        self.conv = nn.Conv2d(3, 5 + nc, 1)

    def forward(self, x):
        return self.conv(x).flatten(2).transpose(1, 2), None


def non_max_suppression(prediction, conf_thres=0.25):
    output = []
    for x in prediction:
        x = x[x[:, 4].sigmoid() > conf_thres]
        conf, cls = x[:, 5:].max(1, keepdim=True)
        output.append(torch.cat((x[:, :4], conf, cls.float()), 1))
    return output


def process_batch(detections, labels, iouv):
    correct = torch.zeros(detections.shape[0], iouv.shape[0], dtype=torch.bool, device=iouv.device)
    correct[: min(len(labels), len(detections))] = True
    return correct


def run(device, model=None, dataloader=None, conf_thres=0.001):
    device = torch.device(device)
    cuda = device.type != "cpu"
    model = (model or TinyDetector()).to(device).eval()
    dataloader = dataloader or [
        (torch.rand(2, 3, 4, 4), torch.tensor([[0, 1, 0.5, 0.5, 0.2, 0.2], [1, 2, 0.3, 0.3, 0.1, 0.1]]))
    ]
    iouv = torch.linspace(0.5, 0.95, 10, device=device)
    niou = iouv.numel()
    stats = []
    for im, targets in dataloader:
        if cuda:
            im = im.to(device, non_blocking=True)
            targets = targets.to(device)
        with torch.no_grad():
            out, _ = model(im)
        out = non_max_suppression(out, conf_thres)
        for si, pred in enumerate(out):
            labels = targets[targets[:, 0] == si, 1:]
            nl, npr = labels.shape[0], pred.shape[0]
            correct = torch.zeros(npr, niou, dtype=torch.bool, device=device)
            if npr == 0:
                if nl:
                    stats.append((correct, *torch.zeros((3, 0), device=device)))
                continue
            if nl:
                correct = process_batch(pred, labels, iouv)
            stats.append((correct, pred[:, 4], pred[:, 5], labels[:, 0]))
    stats = [torch.cat(x, 0).cpu().numpy() for x in zip(*stats)]
    return stats


if __name__ == "__main__":
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    run(dev)
    run(dev, conf_thres=1.1)
