"""Solar-cell defect segmentation handler (reconstruction of pv_vision/nn/modelhandler.py, ModelHandler,
driven as the prediction tutorial does)."""

import logging

import torch
from torch import nn


class ModelHandler:
    def __init__(self, model, test_dataset=None, device=None):
        self.model = model
        self.test_dataset = test_dataset or []
        self.logger = logging.getLogger(__name__)
        self.device = device if device is not None else torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model.to(self.device)

    def load_model(self, path):
        """Load model from path."""
        self.model.load_state_dict(torch.load(path))
        self.model.to(self.device)
        self.logger.info(f"Loaded model from {path}")

    def predict(self):
        self.model.eval()
        outputs = []
        with torch.no_grad():
            for data in self.test_dataset:
                data = data.to(self.device)
                outputs.append(self.model(data).argmax(dim=1).cpu())
        return outputs


def main(weight_path="unet_oneclass_epoch_19.pt", device=None):
    unet = nn.Conv2d(3, 5, 3, padding=1)
    handler = ModelHandler(unet, test_dataset=[torch.rand(1, 3, 16, 16)], device=device)
    handler.load_model(weight_path)
    return handler.predict()


if __name__ == "__main__":
    main(device=torch.device("cpu"))
