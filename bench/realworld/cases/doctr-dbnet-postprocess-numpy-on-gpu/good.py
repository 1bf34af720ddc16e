"""DBNet text detector inference (reconstruction of doctr's DBNet forward and predictor)."""

import numpy as np
import torch
from torch import nn


class BinarizePostProcessor:
    def __init__(self, bin_thresh=0.3):
        self.bin_thresh = bin_thresh

    def __call__(self, proba_maps):
        results = []
        for proba in proba_maps:
            ys, xs = np.nonzero(proba > self.bin_thresh)
            if len(xs) == 0:
                results.append(np.zeros((0, 5), dtype=np.float32))
                continue
            h, w = proba.shape
            box = [xs.min() / w, ys.min() / h, xs.max() / w, ys.max() / h, float(proba[ys, xs].mean())]
            results.append(np.array([box], dtype=np.float32))
        return results


class DBNetLite(nn.Module):
    def __init__(self):
        super().__init__()
        self.feat_extractor = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.prob_head = nn.Conv2d(8, 1, 1)
        self.thresh_head = nn.Conv2d(8, 1, 1)
        self.postprocessor = BinarizePostProcessor()

    def forward(self, x, target=None, return_model_output=False, return_boxes=False):
        feats = self.feat_extractor(x)
        logits = self.prob_head(feats)
        out = {}
        if return_model_output or target is None or return_boxes:
            prob_map = torch.sigmoid(logits)
        if return_model_output:
            out["out_map"] = prob_map
        if target is None or return_boxes:
            out["preds"] = self.postprocessor(prob_map.squeeze(1).detach().cpu().numpy())
        return out


class DetectionPredictor(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model.eval()

    @torch.no_grad()
    def forward(self, pages):
        batch = torch.stack([torch.from_numpy(p).permute(2, 0, 1).float() / 255 for p in pages])
        _device = next(self.model.parameters()).device
        return self.model(batch.to(_device))["preds"]


if __name__ == "__main__":
    predictor = DetectionPredictor(DBNetLite()).to("cuda" if torch.cuda.is_available() else "cpu")
    print(predictor([np.random.randint(0, 255, (32, 32, 3), dtype=np.uint8)]))
