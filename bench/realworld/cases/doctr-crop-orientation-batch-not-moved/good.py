"""Crop orientation predictor of an OCR library (reconstruction of doctr's classification predictor)."""

import numpy as np
import torch
from torch import nn


class PreProcessor(nn.Module):
    """Resizes, normalizes and batches crops; everything stays on the host."""

    def __init__(self, size, batch_size, mean, std):
        super().__init__()
        self.size = size
        self.batch_size = batch_size
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def sample_transforms(self, x):
        if isinstance(x, np.ndarray):
            x = torch.from_numpy(x.copy()).permute(2, 0, 1).float() / 255
        x = nn.functional.interpolate(x[None], size=self.size, mode="bilinear", align_corners=False)[0]
        return (x - self.mean) / self.std

    def __call__(self, crops):
        samples = [self.sample_transforms(c) for c in crops]
        return [
            torch.stack(samples[i : i + self.batch_size], dim=0) for i in range(0, len(samples), self.batch_size)
        ]


class CropOrientationPredictor(nn.Module):
    def __init__(self, pre_processor, model):
        super().__init__()
        self.pre_processor = pre_processor
        self.model = model.eval()

    @torch.no_grad()
    def forward(self, crops):
        if any(crop.ndim != 3 for crop in crops):
            raise ValueError("expected multi-channel 2D crops")
        batches = self.pre_processor(crops)
        _device = next(self.model.parameters()).device
        outputs = [self.model(batch.to(device=_device)).to(device=_device) for batch in batches]
        outputs = [out.argmax(dim=1).cpu().detach().numpy() for out in outputs]
        return [int(p) for batch in outputs for p in batch]


def crop_orientation_predictor():
    backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    pre = PreProcessor((32, 32), batch_size=64, mean=(0.694, 0.695, 0.693), std=(0.299, 0.296, 0.301))
    return CropOrientationPredictor(pre, backbone)


if __name__ == "__main__":
    predictor = crop_orientation_predictor().to("cuda" if torch.cuda.is_available() else "cpu")
    crops = [np.random.randint(0, 255, (20, 60, 3), dtype=np.uint8) for _ in range(3)]
    print(predictor(crops))
