"""Loading a YOLO model for detection (reconstruction of pytorchyolo.models.load_model and detect.py)."""

import argparse

import torch
from torch import nn


class DarknetLite(nn.Module):
    def __init__(self, config_path):
        super().__init__()
        self.config_path = config_path
        self.layers = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.LeakyReLU(0.1), nn.Conv2d(16, 255, 1))

    def forward(self, x):
        return self.layers(x)

    def load_darknet_weights(self, path):
        pass


def init_normal(m):
    if isinstance(m, nn.Conv2d):
        nn.init.normal_(m.weight.data, 0.0, 0.02)


def load_model(model_path, weights_path=None):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = DarknetLite(model_path).to(device)
    model.apply(init_normal)
    if weights_path:
        if weights_path.endswith(".pth"):
            model.load_state_dict(torch.load(weights_path, map_location=device))
        else:
            model.load_darknet_weights(weights_path)
    return model


def detect_directory(model_path, weights_path, images):
    model = load_model(model_path, weights_path)
    model.eval()
    device = next(model.parameters()).device
    with torch.no_grad():
        return [model(img.to(device)) for img in images]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="config/yolov3.cfg")
    parser.add_argument("--weights", default="checkpoints/yolov3_ckpt_99.pth")
    args = parser.parse_args()
    detect_directory(args.model, args.weights, [torch.rand(1, 3, 32, 32)])
