"""YOEO's detect script loaded the model with load_model() and passed a uint8 camera image to detect_image, both of
which move to CUDA on their own when it is available; in bad the segmentation map comes back from the GPU model and
is returned with .numpy() and no .cpu()."""

import numpy as np
import torch


def run(program, device):
    # The program picks CUDA itself from torch.cuda.is_available(); `device` is not something it accepts.
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = program["load_model"]()
    image = rng.integers(0, 255, size=(40, 48, 3), dtype=np.uint8)
    dets, seg = program["detect_image"](model, image, img_size=32)
    assert isinstance(dets, np.ndarray) and dets.ndim == 2 and dets.shape[1] == 6
    assert isinstance(seg, np.ndarray) and seg.shape == (1, 32, 32)
