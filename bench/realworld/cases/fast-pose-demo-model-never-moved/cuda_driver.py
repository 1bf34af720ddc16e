"""The MPII demo was started with its default --device cuda and a saved (DataParallel-prefixed) checkpoint;
in bad load_model leaves the hourglass on the CPU while inference moves the image to the device."""

import argparse
import os
import tempfile

import torch


def run(program, device):
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "model_best.pth.tar")
        net = program["HourglassNet"](num_stacks=2, num_blocks=1, num_classes=16)
        torch.save({"state_dict": {"module." + k: v for k, v in net.state_dict().items()}}, ckpt)
        args = argparse.Namespace(stacks=2, blocks=1, num_classes=16, mobile=False, checkpoint=ckpt, in_res=64,
                                  device=str(device))
        kps = program["main"](args)
    assert kps.shape == (16, 3)
