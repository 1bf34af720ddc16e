"""SAM-style segmentation model with fixed normalization constants (reconstruction of smp's SAM decoder)."""

import torch
import torch.nn.functional as F
from torch import nn


class PatchEncoder(nn.Module):
    def __init__(self, img_size, patch, dim):
        super().__init__()
        self.img_size = img_size
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)

    def forward(self, x):
        return self.proj(x)


class SamSegmenter(nn.Module):
    def __init__(self, image_size=64, patch_size=16, dim=8, classes=1):
        super().__init__()
        self.pixel_mean = torch.Tensor([123.675, 116.28, 103.53]).view(-1, 1, 1)
        self.pixel_std = torch.Tensor([58.395, 57.12, 57.375]).view(-1, 1, 1)
        self.encoder = PatchEncoder(image_size, patch_size, dim)
        self.mask_head = nn.Conv2d(dim, 3, 1)
        self.segmentation_head = nn.Conv2d(3, classes, 3, padding=1)

    def preprocess(self, x):
        x = (x - self.pixel_mean) / self.pixel_std
        h, w = x.shape[-2:]
        return F.pad(x, (0, self.encoder.img_size - w, 0, self.encoder.img_size - h))

    def forward(self, x):
        size = x.shape[-2:]
        x = torch.stack([self.preprocess(img) for img in x])
        low_res = self.mask_head(self.encoder(x))
        masks = F.interpolate(low_res, size, mode="bilinear", align_corners=False)
        return self.segmentation_head(masks)


def run(device):
    model = SamSegmenter().to(device)
    model.eval()
    images = torch.rand(2, 3, 64, 64, device=device) * 255
    with torch.no_grad():
        model(images)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
