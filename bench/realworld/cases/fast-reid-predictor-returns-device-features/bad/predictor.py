"""Feature extraction for the re-id demo (reconstruction of engine/defaults.py + demo/predictor.py)."""

import torch
from torch import nn


class ReidNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Linear(cfg["in_dim"], cfg["feat_dim"])
        self.to(torch.device(cfg["device"]))

    @property
    def device(self):
        return next(self.parameters()).device

    def forward(self, batched):
        images = batched["images"].flatten(1)
        return nn.functional.normalize(self.embed(images), dim=1)


class DefaultPredictor:
    def __init__(self, cfg):
        self.cfg = dict(cfg)
        self.model = ReidNet(self.cfg)
        self.model.eval()

    def __call__(self, image):
        inputs = {"images": image.to(self.model.device)}
        with torch.no_grad():
            predictions = self.model(inputs)
        return predictions


class FeatureExtractionDemo:
    def __init__(self, cfg):
        self.cfg = cfg
        self.predictor = DefaultPredictor(cfg)

    def run_on_loader(self, data_loader):
        for batch in data_loader:
            predictions = self.predictor(batch["images"])
            yield predictions, batch["targets"].cpu().numpy(), batch["camids"].cpu().numpy()
