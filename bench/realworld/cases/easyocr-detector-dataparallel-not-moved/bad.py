"""Text detector loading in an OCR reader (reconstruction of EasyOCR's detection.get_detector and Reader)."""

from collections import OrderedDict

import numpy as np
import torch
import torch.backends.cudnn as cudnn
from torch import nn


class CraftLite(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 2, 1))

    def forward(self, x):
        y = self.body(x)
        return y.permute(0, 2, 3, 1), y


def strip_module_prefix(state_dict):
    skip = 1 if next(iter(state_dict)).startswith("module") else 0
    return OrderedDict((".".join(k.split(".")[skip:]), v) for k, v in state_dict.items())


def get_detector(weights_path, device="cpu"):
    net = CraftLite()
    if device == "cpu":
        net.load_state_dict(strip_module_prefix(torch.load(weights_path, map_location=device)))
    else:
        net.load_state_dict(strip_module_prefix(torch.load(weights_path, map_location=device)))
        net = torch.nn.DataParallel(net)
        cudnn.benchmark = False
    net.eval()
    return net


def detect_text(net, image, device):
    x = torch.from_numpy(image.astype(np.float32) / 255.0).permute(2, 0, 1).unsqueeze(0)
    x = x.to(device)
    with torch.no_grad():
        y, _ = net(x)
    return y[0, :, :, 0].cpu().numpy(), y[0, :, :, 1].cpu().numpy()


class Reader:
    def __init__(self, weights_path, gpu=True):
        if gpu is False:
            self.device = "cpu"
        elif not torch.cuda.is_available():
            self.device = "cpu"
        elif gpu is True:
            self.device = "cuda"
        else:
            self.device = gpu
        self.detector = get_detector(weights_path, self.device)

    def readtext(self, image):
        return detect_text(self.detector, image, self.device)


if __name__ == "__main__":
    torch.save(CraftLite().state_dict(), "/tmp/craft_lite.pth")
    reader = Reader("/tmp/craft_lite.pth")
    reader.readtext(np.random.randint(0, 255, (32, 32, 3), dtype=np.uint8))
