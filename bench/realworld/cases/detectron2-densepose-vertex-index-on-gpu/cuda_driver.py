"""DensePose's apply_net built the CSE vertex visualizer with the predictor's CUDA device and handed it the model's
GPU embeddings and coarse segmentation with host-side boxes; in bad the SMPL colour map comes back on the CPU (the
cached helper ignores its device in that branch) and is indexed with the GPU nearest-vertex map."""

import numpy as np
import torch


def run(program, device):
    torch.manual_seed(0)
    ref = torch.rand(6890, 16)

    def embedder(name):
        return ref.clone()  # the mesh embedder hands back host tensors; the visualizer moves them itself

    viz = program["VertexVisualizer"](["smpl_27554"], embedder, device=device)
    image = np.zeros((48, 48, 3), np.float32)
    E = torch.rand(1, 16, 6, 6, device=device)
    S = torch.rand(1, 2, 6, 6, device=device)
    boxes = torch.tensor([[4.0, 6.0, 16.0, 12.0]])
    out = viz.visualize(image, E, S, boxes, [0])
    assert out.shape == (48, 48, 3)
    assert float(out.max()) <= 255.0
