"""Pretrained super-resolution model factory (reconstruction of torchsr/models/edsr.py)."""

import torch
import torch.nn as nn
from torch.hub import load_state_dict_from_url

url = {
    "r16f64x2": "https://example.invalid/edsr64_x2.pt",
    "r32f256x2": "https://example.invalid/edsr_x2.pt",
}


class EDSR(nn.Module):
    def __init__(self, n_resblocks, n_feats, scale, res_scale, pretrained=False, map_location=None):
        super().__init__()
        self.scale = scale
        url_name = "r{}f{}x{}".format(n_resblocks, n_feats, scale)
        self.url = url.get(url_name)
        self.head = nn.Conv2d(3, n_feats, 3, padding=1)
        self.body = nn.Sequential(*[nn.Conv2d(n_feats, n_feats, 3, padding=1) for _ in range(n_resblocks)])
        self.tail = nn.Sequential(nn.Conv2d(n_feats, 3 * scale * scale, 3, padding=1), nn.PixelShuffle(scale))
        self.res_scale = res_scale
        if pretrained:
            self.load_pretrained(map_location=map_location)

    def forward(self, x):
        x = self.head(x)
        x = x + self.body(x) * self.res_scale
        return self.tail(x)

    def load_pretrained(self, map_location=None):
        if self.url is None:
            raise KeyError("No URL available for this model")
        if not torch.cuda.is_available():
            map_location = torch.device("cpu")
        state_dict = load_state_dict_from_url(self.url, map_location=map_location, progress=True)
        self.load_state_dict(state_dict)


def edsr_r16f64(scale, pretrained=False):
    return EDSR(16, 64, scale, 1.0, pretrained)


def edsr_baseline(scale, pretrained=False):
    return edsr_r16f64(scale, pretrained)


if __name__ == "__main__":
    model = edsr_baseline(scale=2, pretrained=True)
    print(model(torch.rand(1, 3, 8, 8)).shape)
