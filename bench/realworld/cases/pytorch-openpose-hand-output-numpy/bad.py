"""Hand keypoint estimation (reconstruction of python/hand.py)."""

import numpy as np
import torch
from torch import nn


class HandPoseNet(nn.Module):
    def __init__(self, joints=22):
        super().__init__()
        self.conv = nn.Conv2d(3, joints, kernel_size=3, padding=1)

    def forward(self, x):
        return self.conv(x)


class Hand(object):
    def __init__(self, weights=None):
        self.model = HandPoseNet()
        if torch.cuda.is_available():
            self.model = self.model.cuda()
        if weights is not None:
            self.model.load_state_dict(weights)
        self.model.eval()

    def __call__(self, ori_img):
        scales = [0.5, 1.0, 1.5]
        heat_avg = np.zeros((ori_img.shape[0], ori_img.shape[1], 22))
        for scale in scales:
            size = (int(ori_img.shape[0] * scale), int(ori_img.shape[1] * scale))
            im = np.transpose(np.float32(ori_img[None]), (0, 3, 1, 2)) / 256 - 0.5
            data = torch.from_numpy(np.ascontiguousarray(im)).float()
            data = nn.functional.interpolate(data, size=size)
            if torch.cuda.is_available():
                data = data.cuda()
            with torch.no_grad():
                output = self.model(data).numpy()
            heat = np.transpose(np.squeeze(output), (1, 2, 0))
            heat_avg += heat.mean() / len(scales)
        peaks = [np.unravel_index(np.argmax(heat_avg[:, :, k]), heat_avg.shape[:2]) for k in range(21)]
        return np.array(peaks)


if __name__ == "__main__":
    estimator = Hand()
    print(estimator(np.random.randint(0, 255, (32, 32, 3)).astype(np.uint8)))
