"""Training entry point (reconstruction of yolov5 train.py: select_device, train)."""

import argparse

import numpy as np
import torch
from torch import nn

from general import labels_to_class_weights


def select_device(device=""):
    device = str(device).strip().lower()
    if device == "mps" and getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return torch.device("mps")
    if device not in ("", "cpu") and torch.cuda.is_available():
        return torch.device(f"cuda:{device}" if device.isdigit() else "cuda:0")
    return torch.device("cpu")


class DetectionModel(nn.Module):
    def __init__(self, nc):
        super().__init__()
        self.nc = nc
        self.net = nn.Conv2d(3, nc + 5, 1)

    def forward(self, x):
        return self.net(x)


class Dataset:
    def __init__(self, nc, n=4):
        rng = np.random.default_rng(0)
        self.labels = [np.c_[rng.integers(0, nc, (3, 1)), rng.random((3, 4))].astype(np.float32) for _ in range(n)]


def train(hyp, opt, device):
    nc = 3
    model = DetectionModel(nc).to(device)
    dataset = Dataset(nc)
    model.nc = nc
    model.hyp = hyp
    model.class_weights = labels_to_class_weights(dataset.labels, nc).to(device) * nc
    return model


def main(opt):
    device = select_device(opt.device)
    train({"cls": 0.5}, opt, device)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="mps")
    main(parser.parse_args())
