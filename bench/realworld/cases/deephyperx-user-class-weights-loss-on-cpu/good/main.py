"""Hyperspectral classification driver (reconstruction of DeepHyperX main.py)."""

import argparse

import numpy as np
import torch

from models import get_model, train


def get_device(ordinal):
    if ordinal < 0:
        return torch.device("cpu")
    if torch.cuda.is_available():
        return torch.device("cuda:{}".format(ordinal))
    return torch.device("cpu")


def compute_imf_weights(ground_truth, n_classes, ignored_classes):
    counts = np.bincount(ground_truth.ravel(), minlength=n_classes).astype(np.float64)
    counts[ignored_classes] = 0
    freq = counts / max(counts.sum(), 1)
    weights = np.zeros(n_classes)
    weights[freq > 0] = np.median(freq[freq > 0]) / freq[freq > 0]
    return weights


def main(args, device=None):
    device = device if device is not None else get_device(args.cuda)
    n_bands, n_classes, ignored = 10, 4, [0]
    train_gt = np.random.randint(0, n_classes, (8, 8))
    hyperparams = {"n_classes": n_classes, "n_bands": n_bands, "ignored_labels": ignored, "device": device}
    if args.class_balancing:
        weights = compute_imf_weights(train_gt, n_classes, ignored)
        hyperparams["weights"] = torch.from_numpy(weights).float()
    model, optimizer, loss, hyperparams = get_model(args.model, **hyperparams)
    pixels = torch.rand(16, n_bands)
    labels = torch.from_numpy(train_gt.ravel()[:16]).long()
    loader = [(pixels[i : i + 4], labels[i : i + 4]) for i in range(0, 16, 4)]
    train(model, optimizer, loss, loader, hyperparams["epoch"], device=hyperparams["device"])


def run(device):
    main(argparse.Namespace(model="nn", cuda=0, class_balancing=True), device=device)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="nn")
    parser.add_argument("--cuda", type=int, default=-1)
    parser.add_argument("--class_balancing", action="store_true")
    main(parser.parse_args())
