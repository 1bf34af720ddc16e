"""LinkNet text detector training (reconstruction of doctr's LinkNet loss and detection training script)."""

import argparse

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class LinkNetLite(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 1))

    def build_targets(self, target, out_shape):
        seg_target = np.zeros(out_shape, dtype=bool)
        edge_mask = np.zeros(out_shape, dtype=bool)
        seg_mask = np.ones(out_shape, dtype=bool)
        for idx, sample in enumerate(target):
            if sample["boxes"].shape[0] == 0:
                seg_mask[idx] = False
            boxes = sample["boxes"].copy()
            boxes[:, [0, 2]] *= out_shape[-1]
            boxes[:, [1, 3]] *= out_shape[-2]
            for x0, y0, x1, y1 in boxes.round().astype(np.int32):
                seg_target[idx, ..., y0 : y1 + 1, x0 : x1 + 1] = True
                edge_mask[idx, ..., y0, x0 : x1 + 1] = True
        return seg_target, seg_mask, edge_mask

    def forward(self, x, target=None, focal_loss=True):
        logits = self.body(x)
        out = {}
        if target is not None:
            out["loss"] = self.compute_loss(logits, target, focal_loss)
        return out

    def compute_loss(self, out_map, target, focal_loss=False, alpha=0.5, gamma=2.0, edge_factor=2.0):
        targets = self.build_targets(target, out_map.shape)
        seg_target, seg_mask = torch.from_numpy(targets[0]).to(dtype=torch.float32), torch.from_numpy(targets[1])
        edge_mask = torch.from_numpy(targets[2])

        bce = F.binary_cross_entropy_with_logits(out_map, seg_target, reduction="none")[seg_mask]
        if focal_loss:
            prob = torch.sigmoid(out_map)[seg_mask]
            p_t = seg_target[seg_mask] * prob + (1 - seg_target[seg_mask]) * (1 - prob)
            alpha_t = seg_target[seg_mask] * alpha + (1 - seg_target[seg_mask]) * (1 - alpha)
            return (alpha_t * (1.0 - p_t) ** gamma * bce).mean()
        return ((1 + (edge_factor - 1) * edge_mask) * bce).mean()


def fit_one_epoch(model, train_loader, optimizer, device):
    model.train()
    for images, targets in train_loader:
        if device is not None:
            images = images.to(device)
        optimizer.zero_grad()
        loss = model(images, targets)["loss"]
        loss.backward()
        optimizer.step()


def main(args):
    model = LinkNetLite()
    if args.device is not None:
        model = model.to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    boxes = np.array([[0.1, 0.1, 0.5, 0.4]], dtype=np.float32)
    loader = [(torch.rand(2, 3, 16, 16), [{"boxes": boxes}, {"boxes": boxes}])]
    fit_one_epoch(model, loader, optimizer, args.device)


def run(device):
    main(argparse.Namespace(device=device))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None, type=str)
    main(parser.parse_args())
