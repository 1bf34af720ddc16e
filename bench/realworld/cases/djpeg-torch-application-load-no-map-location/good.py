"""Double-JPEG localisation demo (reconstruction of application.py)."""

import argparse

import numpy as np
import torch
from torch import nn


class Djpegnet(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.device = device
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 + 64, 2)

    def forward(self, x, qvector):
        feats = self.conv(x).mean(dim=(2, 3))
        return self.fc(torch.cat([feats, qvector.expand(feats.shape[0], -1)], dim=1))


def localizing_double_JPEG(net, Y, qvectors, device):
    patches = torch.from_numpy(Y[None, None].astype(np.float32)).to(device)
    qvectors = torch.unsqueeze(torch.from_numpy(qvectors.astype(np.float32)), 0).to(device)
    with torch.no_grad():
        return net(patches, qvectors).softmax(dim=1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", default="sample.jpg")
    args = parser.parse_args()

    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    Y = np.random.randint(0, 255, (64, 64))
    qvector = np.random.randint(1, 50, 64)

    net = Djpegnet(device)
    net.load_state_dict(torch.load("./model/djpegnet.pth", map_location=device))
    net.to(device)

    result = localizing_double_JPEG(net, Y, qvector, device)
