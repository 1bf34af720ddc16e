"""SimCLR task with a multispectral grayscale augmentation (reconstruction of torchgeo's
transforms/color.py RandomGrayscale and trainers/simclr.py; kornia and Lightning are replaced by
small stand-ins)."""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class IntensityAugmentation(nn.Module):
    """Stand-in for kornia's IntensityAugmentationBase2D."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
        self.flags = {}

    def forward(self, input):
        params = {"batch_prob": torch.rand(input.shape[0]) < self.p}
        return self.apply_transform(input, params, self.flags)


class RandomGrayscale(IntensityAugmentation):
    def __init__(self, weights: Tensor, p: float = 0.1):
        super().__init__(p=p)
        # rescale so that the intensity is preserved
        weights /= weights.sum()
        self.flags = {"weights": weights}

    def apply_transform(self, input, params, flags):
        weights = flags["weights"][..., :, None, None]
        out = input * weights
        out = out.sum(dim=-3)
        return out.unsqueeze(-3).expand(input.shape)


class RandomFlip(IntensityAugmentation):
    def apply_transform(self, input, params, flags):
        return input.flip(-1)


def simclr_augmentations(size, weights):
    return nn.Sequential(RandomFlip(p=0.5), RandomGrayscale(weights=weights, p=0.2))


class SimCLRTask(nn.Module):
    def __init__(self, in_channels=4, size=8, output_dim=16, grayscale_weights=None):
        super().__init__()
        self.in_channels = in_channels
        grayscale_weights = grayscale_weights or torch.ones(in_channels)
        self.augmentations = simclr_augmentations(size, grayscale_weights)
        self.backbone = nn.Sequential(nn.Conv2d(in_channels, 8, 3, padding=1), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.projection_head = nn.Linear(8, output_dim)

    def forward(self, x):
        h = self.backbone(x)
        return self.projection_head(h), h

    def training_step(self, batch, batch_idx):
        x = batch["image"]
        if x.size(1) == self.in_channels:
            x1, x2 = x, x
        else:
            x1, x2 = x[:, :self.in_channels], x[:, self.in_channels:]
        with torch.no_grad():
            x1 = self.augmentations(x1)
            x2 = self.augmentations(x2)
        z1, _ = self(x1)
        z2, _ = self(x2)
        return F.cosine_similarity(z1, z2).mean()


def run(device):
    # what the Trainer does: move the task, then hand it batches already on the device
    task = SimCLRTask().to(device)
    batch = {"image": torch.randn(2, 4, 8, 8, device=device)}
    task.training_step(batch, 0)
