"""Feature extraction for network dissection (reconstruction of feature_operation.py: FeatureOperator.feature_extraction)."""

import numpy as np
import torch
from torch import nn

GPU = torch.cuda.is_available()  # settings.GPU
FEATURE_NAMES = ["layer4"]

features_blobs = []


def hook_feature(module, inputs, output):
    features_blobs.append(output.data.cpu().numpy())


class FeatureOperator:
    def __init__(self, batches):
        self.batches = batches
        self.mean = [109.5388, 118.6897, 124.6901]

    def feature_extraction(self, model):
        maxfeatures = [None] * len(FEATURE_NAMES)
        for batch_idx, batch in enumerate(self.batches):
            del features_blobs[:]
            inputs = torch.from_numpy(batch[:, ::-1, :, :].copy())
            inputs.div_(255.0 * 0.224)
            if GPU:
                inputs = inputs.cuda()
            with torch.no_grad():
                logit = model.forward(inputs)
                while np.isnan(logit.data.max()):
                    print("nan")
                    del features_blobs[:]
                    logit = model.forward(inputs)
            for i, feat_batch in enumerate(features_blobs):
                batch_max = np.max(np.max(feat_batch, 3), 2)
                maxfeatures[i] = batch_max if maxfeatures[i] is None else np.concatenate([maxfeatures[i], batch_max])
        return maxfeatures


def load_model():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(8, 10))
    model[1].register_forward_hook(hook_feature)
    if GPU:
        model.cuda()
    model.eval()
    return model


def main():
    batches = [np.random.rand(2, 3, 16, 16).astype(np.float32) * 255 for _ in range(2)]
    return FeatureOperator(batches).feature_extraction(load_model())


if __name__ == "__main__":
    main()
