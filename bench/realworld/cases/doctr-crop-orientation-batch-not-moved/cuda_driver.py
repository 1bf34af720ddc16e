"""The OCR pipeline built the crop orientation predictor, moved it with .to(device) and called it on numpy crops;
in bad the pre-processor's host batches go straight into the GPU backbone's convolution."""

import numpy as np
import torch


def run(program, device):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    predictor = program["crop_orientation_predictor"]().to(device)
    crops = [rng.integers(0, 255, (20, 60, 3), dtype=np.uint8) for _ in range(3)]
    preds = predictor(crops)
    assert len(preds) == 3 and all(0 <= p < 4 for p in preds)
