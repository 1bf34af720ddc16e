"""YOLO detection head with a lazily cached grid (reconstruction of yolov5 models/yolo.py Detect/Model)."""

import torch
from torch import nn


class Detect(nn.Module):
    stride = None

    def __init__(self, nc=2, anchors=((10, 13, 16, 30), (30, 61, 62, 45)), ch=(8, 16), inplace=True):
        super().__init__()
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.grid = [torch.zeros(1)] * self.nl
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer("anchors", a)
        self.register_buffer("anchor_grid", a.clone().view(self.nl, 1, -1, 1, 1, 2))
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in ch)
        self.inplace = inplace

    def forward(self, x):
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if not self.training:
                if self.grid[i].shape[2:4] != x[i].shape[2:4]:
                    self.grid[i] = self._make_grid(nx, ny).to(x[i].device)
                y = x[i].sigmoid()
                if self.inplace:
                    y[..., 0:2] = (y[..., 0:2] * 2.0 - 0.5 + self.grid[i]) * self.stride[i]
                    y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]
                else:
                    xy = (y[..., 0:2] * 2.0 - 0.5 + self.grid[i]) * self.stride[i]
                    wh = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i].view(1, self.na, 1, 1, 2)
                    y = torch.cat((xy, wh, y[..., 4:]), -1)
                z.append(y.view(bs, -1, self.no))
        return x if self.training else (torch.cat(z, 1), x)

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)], indexing="ij")
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()


class Model(nn.Module):
    def __init__(self, ch=3):
        super().__init__()
        self.b1 = nn.Conv2d(ch, 8, 3, stride=8, padding=1)
        self.b2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.model = nn.Sequential(Detect())
        m = self.model[-1]
        s = 256
        m.stride = torch.tensor([s / f.shape[-2] for f in self.forward(torch.zeros(1, ch, s, s))])
        m.anchors /= m.stride.view(-1, 1, 1)
        self.stride = m.stride

    def forward(self, x):
        p3 = self.b1(x)
        p4 = self.b2(p3)
        return self.model[-1]([p3, p4])


def run(device):
    model = Model().eval()
    with torch.no_grad():
        model(torch.rand(1, 3, 64, 64))
        model.to(device)
        model(torch.rand(1, 3, 64, 64, device=device))


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
