"""Class activation maps for a segmentation model (reconstruction of pytorch_grad_cam/base_cam.py and its use)."""

import numpy as np
import torch
from torch import nn

from model_targets import SemanticSegmentationTarget


class BaseCAM:
    def __init__(self, model, target_layers):
        self.model = model.eval()
        self.target_layers = target_layers
        # the CAM follows the model wherever the user put it
        self.device = next(self.model.parameters()).device
        self.activations = []
        for layer in target_layers:
            layer.register_forward_hook(lambda mod, inp, out: self.activations.append(out))

    def forward(self, input_tensor, targets):
        input_tensor = input_tensor.to(self.device)
        self.activations.clear()
        outputs = self.model(input_tensor)
        self.model.zero_grad()
        loss = sum(target(output) for target, output in zip(targets, outputs))
        loss.backward(retain_graph=True)
        return [act.detach().mean(dim=1) for act in self.activations]

    __call__ = forward


class TinySegmenter(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        return self.classifier(self.backbone(x))


def run(device):
    model = TinySegmenter().to(device)
    image = torch.rand(1, 3, 6, 6)
    with torch.no_grad():
        prediction = model(image.to(device)).argmax(dim=1)[0]
    car_mask = np.float32(np.random.rand(6, 6) > 0.5)
    targets = [SemanticSegmentationTarget(category=2, mask=car_mask)]
    cam = BaseCAM(model, target_layers=[model.backbone])
    return cam(image, targets), prediction


if __name__ == "__main__":
    run(torch.device("cpu"))
