"""TPS rectification of a scene-text recognizer (reconstruction of modules/transformation.py)."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class TPS_STN(nn.Module):
    def __init__(self, num_fiducial, out_size, batch_size, in_channels=1):
        super().__init__()
        self.num_fiducial = num_fiducial
        self.out_size = out_size
        self.localization = Localizer(num_fiducial, in_channels)
        self.grid_generator = GridGenerator(num_fiducial, out_size, batch_size)

    def forward(self, images):
        ctrl = self.localization(images)
        grid = self.grid_generator.build_grid(ctrl)
        grid = grid.reshape([grid.size(0), self.out_size[0], self.out_size[1], 2])
        return F.grid_sample(images, grid, padding_mode="border", align_corners=False)


class Localizer(nn.Module):
    def __init__(self, num_fiducial, in_channels):
        super().__init__()
        self.num_fiducial = num_fiducial
        self.conv = nn.Sequential(nn.Conv2d(in_channels, 16, 3, padding=1), nn.ReLU(True), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(16, num_fiducial * 2)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1)).view(x.size(0), self.num_fiducial, 2)


class GridGenerator(nn.Module):
    def __init__(self, num_fiducial, out_size, batch_size):
        super().__init__()
        self.eps = 1e-6
        self.height, self.width = out_size
        self.num_fiducial = num_fiducial
        ctrl = self._control_points(num_fiducial)
        pts = self._output_points(self.width, self.height)
        self.inv_delta_c = torch.tensor(self._inv_delta_c(ctrl)).float().cuda()
        self.p_hat = torch.tensor(self._p_hat(ctrl, pts)).float().cuda()
        self.batch_p_hat = self.p_hat.repeat(batch_size, 1, 1)
        self.batch_inv_delta_c = self.inv_delta_c.repeat(batch_size, 1, 1)

    def _control_points(self, n):
        xs = np.linspace(-1.0, 1.0, n // 2)
        return np.concatenate([np.stack([xs, -np.ones(n // 2)], 1), np.stack([xs, np.ones(n // 2)], 1)], 0)

    def _output_points(self, w, h):
        gx = (np.arange(-w, w, 2) + 1.0) / w
        gy = (np.arange(-h, h, 2) + 1.0) / h
        return np.stack(np.meshgrid(gx, gy), axis=2).reshape(-1, 2)

    def _rbf(self, a, b):
        d = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
        return np.square(d) * np.log(d + self.eps)

    def _inv_delta_c(self, c):
        n = c.shape[0]
        delta = np.zeros((n + 3, n + 3))
        delta[:n, 0] = 1
        delta[:n, 1:3] = c
        delta[:n, 3:] = self._rbf(c, c)
        delta[n, 3:] = 1
        delta[n + 1 :, 3:] = c.T
        return np.linalg.pinv(delta)

    def _p_hat(self, c, p):
        return np.concatenate([np.ones((p.shape[0], 1)), p, self._rbf(p, c)], axis=1)

    def build_grid(self, ctrl):
        b = ctrl.size(0)
        ctrl_ext = torch.cat((ctrl, torch.zeros(b, 3, 2).float().cuda()), dim=1)
        t = torch.bmm(self.batch_inv_delta_c[:b], ctrl_ext)
        return torch.bmm(self.batch_p_hat[:b], t)
