"""The inference script ran without --cpu, so set_gpu_mode put the module-global ptu.device on the GPU and each
image loaded on the host is moved there; in bad the model loaded from the checkpoint stays on the CPU."""

import os
import tempfile

import torch


def run(program, device):
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "checkpoint.pth")
        torch.save({"model": program["Segmenter"]().state_dict()}, path)
        images = [torch.rand(3, 40, 48), torch.rand(3, 32, 24)]
        with torch.no_grad():
            outputs = program["main"](path, images, gpu=device.type == "cuda")
    assert [o.shape for o in outputs] == [(1, 40, 48), (1, 32, 24)]
