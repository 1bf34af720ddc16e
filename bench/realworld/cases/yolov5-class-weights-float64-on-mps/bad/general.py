"""Label statistics helpers (reconstruction of yolov5 utils/general.py)."""

import numpy as np
import torch


def labels_to_class_weights(labels, nc=80):
    if labels[0] is None:
        return torch.Tensor()
    labels = np.concatenate(labels, 0)
    classes = labels[:, 0].astype(int)
    counts = np.bincount(classes, minlength=nc)
    counts[counts == 0] = 1
    weights = 1 / counts
    weights /= weights.sum()
    return torch.from_numpy(weights)


def labels_to_image_weights(labels, nc=80, class_weights=np.ones(80)):
    class_counts = np.array([np.bincount(x[:, 0].astype(int), minlength=nc) for x in labels])
    return (class_weights.reshape(1, nc) * class_counts).sum(1)
