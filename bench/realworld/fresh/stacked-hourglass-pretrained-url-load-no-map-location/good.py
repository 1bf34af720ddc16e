"""Stacked hourglass model factory with pretrained weights (reconstruction of src/stacked_hourglass/model.py)."""

import torch
import torch.nn as nn
from torch.hub import load_state_dict_from_url

model_urls = {
    "hg1": "https://example.invalid/bearpaw-hg1.pth",
    "hg2": "https://example.invalid/bearpaw-hg2.pth",
}


class HourglassNet(nn.Module):
    def __init__(self, num_stacks=2, num_blocks=1, num_classes=16, channels=32):
        super().__init__()
        self.num_stacks = num_stacks
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 7, stride=2, padding=3), nn.ReLU())
        self.hg = nn.ModuleList(
            nn.Sequential(*[nn.Conv2d(channels, channels, 3, padding=1) for _ in range(num_blocks)])
            for _ in range(num_stacks))
        self.score = nn.ModuleList(nn.Conv2d(channels, num_classes, 1) for _ in range(num_stacks))
        self.score_ = nn.ModuleList(nn.Conv2d(num_classes, channels, 1) for _ in range(num_stacks - 1))

    def forward(self, x):
        out = []
        x = self.stem(x)
        for i in range(self.num_stacks):
            y = self.hg[i](x)
            score = self.score[i](y)
            out.append(score)
            if i < self.num_stacks - 1:
                x = x + y + self.score_[i](score)
        return out


def hg(**kwargs):
    return HourglassNet(num_stacks=kwargs["num_stacks"], num_blocks=kwargs["num_blocks"],
                        num_classes=kwargs["num_classes"])


def _hg(arch, pretrained, progress, **kwargs):
    model = hg(**kwargs)
    if pretrained:
        state_dict = load_state_dict_from_url(model_urls[arch], progress=progress,
                                              map_location=torch.device("cpu"))
        model.load_state_dict(state_dict)
    return model


def hg1(pretrained=False, progress=True, num_blocks=1, num_classes=16):
    return _hg("hg1", pretrained, progress, num_stacks=1, num_blocks=num_blocks, num_classes=num_classes)


def hg2(pretrained=False, progress=True, num_blocks=1, num_classes=16):
    return _hg("hg2", pretrained, progress, num_stacks=2, num_blocks=num_blocks, num_classes=num_classes)


def main():
    # on a machine without a GPU: the published checkpoint holds CUDA storages
    model = hg2(pretrained=True)
    model.eval()
    return model


if __name__ == "__main__":
    main()
