"""The re-id demo script was started with --device cuda, which reaches the model through the config; in bad the
predictor returns the query/gallery features still on the GPU, and the script calls .numpy() on their distance matrix."""

import argparse

import torch


def run(program, device):
    torch.manual_seed(0)
    args = argparse.Namespace(device=str(device))
    score = program["main"](args)
    assert 0.0 <= float(score) <= 1.0
