"""The openpose hand demo built Hand() and called it on a uint8 BGR crop; Hand moves its model and each scaled input
to CUDA on its own when a GPU exists, and in bad the network output is turned into numpy with .numpy() and no .cpu()."""

import numpy as np
import torch


def run(program, device):
    # Hand picks CUDA itself from torch.cuda.is_available(); it takes no device.
    torch.manual_seed(0)
    image = np.random.default_rng(0).integers(0, 255, size=(16, 16, 3)).astype(np.uint8)
    estimator = program["Hand"]()
    peaks = estimator(image)
    assert isinstance(peaks, np.ndarray) and peaks.shape == (21, 2)
