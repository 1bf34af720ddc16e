"""Semantic segmentation of a folder of images (reconstruction of segm/inference.py, model factory and utils)."""

import argparse
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import ptu

STATS = {"vit": {"mean": (0.5, 0.5, 0.5), "std": (0.5, 0.5, 0.5)}}


class Segmenter(nn.Module):
    def __init__(self, n_cls=4, patch=8, dim=16):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_cls)

    def forward(self, x):
        h, w = x.shape[-2:]
        tokens = self.patch_embed(x)
        gh, gw = tokens.shape[-2:]
        tokens = self.head(self.norm(tokens.flatten(2).transpose(1, 2)))
        masks = tokens.transpose(1, 2).reshape(x.shape[0], -1, gh, gw)
        return F.interpolate(masks, size=(h, w), mode="bilinear")


def load_model(model_path):
    variant = {"dataset_kwargs": {"normalization": "vit"}, "inference_kwargs": {"window_size": 32, "window_stride": 16}}
    model = Segmenter()
    if Path(model_path).exists():
        model.load_state_dict(torch.load(model_path, map_location="cpu")["model"])
    model.eval()
    return model, variant


def inference(model, ims, ori_shape, window_size, window_stride, batch_size):
    seg_maps = []
    for im in ims:
        logits = model(F.interpolate(im, size=(window_size, window_size), mode="bilinear"))
        seg_maps.append(F.interpolate(logits, size=ori_shape, mode="bilinear")[0])
    return torch.stack(seg_maps).mean(0)


def main(model_path, images, gpu):
    ptu.set_gpu_mode(gpu)
    model, variant = load_model(model_path)
    normalization = STATS[variant["dataset_kwargs"]["normalization"]]
    outputs = []
    for im in images:
        im = (im - torch.tensor(normalization["mean"])[:, None, None]) / torch.tensor(normalization["std"])[:, None, None]
        im = im.to(ptu.device).unsqueeze(0)
        logits = inference(
            model,
            [im],
            ori_shape=im.shape[2:4],
            window_size=variant["inference_kwargs"]["window_size"],
            window_stride=variant["inference_kwargs"]["window_stride"],
            batch_size=2,
        )
        seg_map = logits.argmax(0, keepdim=True)
        outputs.append((255 * seg_map.cpu().numpy()).astype(np.uint8))
    return outputs


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-path", default="checkpoint.pth")
    parser.add_argument("--cpu", action="store_true")
    args = parser.parse_args()
    with torch.no_grad():
        main(args.model_path, [torch.rand(3, 40, 48)], gpu=not args.cpu)
