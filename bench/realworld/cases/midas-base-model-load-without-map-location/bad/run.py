"""Monocular depth inference script (reconstruction of MiDaS run.py and midas_net.py)."""

import argparse

import numpy as np
import torch
from torch import nn

from base_model import BaseModel


class MidasNet(BaseModel):
    def __init__(self, path=None, features=64, non_negative=True):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, features, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Sequential(
            nn.Conv2d(features, 1, 1), nn.Upsample(scale_factor=2), nn.ReLU(True) if non_negative else nn.Identity()
        )
        if path:
            self.load(path)

    def forward(self, x):
        return self.head(self.encoder(x)).squeeze(1)


def run(input_images, model_path, model_type="large", optimize=True):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print("device: %s" % device)
    if model_type == "large":
        model = MidasNet(model_path, non_negative=True)
    else:
        raise ValueError(model_type)
    model.eval()
    model.to(device)
    outputs = []
    with torch.no_grad():
        for img in input_images:
            sample = torch.from_numpy(img).to(device).unsqueeze(0)
            outputs.append(model(sample).squeeze().cpu().numpy())
    return outputs


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-m", "--model_weights", default="model-f6b98070.pt")
    args = parser.parse_args()
    run([np.random.rand(3, 32, 32).astype(np.float32)], args.model_weights)
