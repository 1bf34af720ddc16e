"""doctr's predictor moved the DBNet model to the GPU and fed it uint8 page images as numpy arrays; in bad the model's
forward hands its GPU probability map to the numpy post-processor with .numpy() and no .cpu()."""

import numpy as np
import torch


def run(program, device):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = program["DBNetLite"]()
    predictor = program["DetectionPredictor"](model).to(device)
    pages = [rng.integers(0, 255, size=(16, 16, 3), dtype=np.uint8) for _ in range(2)]
    preds = predictor(pages)
    assert len(preds) == 2
    for boxes in preds:
        assert isinstance(boxes, np.ndarray) and boxes.shape[1] == 5
