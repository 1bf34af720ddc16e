"""Targets that turn a model output into the score to explain (reconstruction of pytorch_grad_cam/utils/model_targets.py)."""

import torch


class ClassifierOutputTarget:
    def __init__(self, category):
        self.category = category

    def __call__(self, model_output):
        if model_output.dim() == 1:
            return model_output[self.category]
        return model_output[:, self.category]


class SemanticSegmentationTarget:
    """Sum of one category's scores over the pixels of a binary mask."""

    def __init__(self, category, mask):
        self.category = category
        self.mask = torch.from_numpy(mask)
        # the mask is placed once, on whatever accelerator the machine has
        if torch.cuda.is_available():
            self.mask = self.mask.cuda()
        if torch.backends.mps.is_available():
            self.mask = self.mask.to("mps")

    def __call__(self, model_output):
        return (model_output[self.category, :, :] * self.mask).sum()
