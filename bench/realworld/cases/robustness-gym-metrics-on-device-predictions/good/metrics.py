"""Metric helpers (reconstruction of robustnessgym/core/metrics.py)."""

import numpy as np
import torch
from sklearn.metrics import accuracy_score, f1_score


def accuracy(predictions, labels):
    return accuracy_score(y_true=labels, y_pred=predictions)


def f1_macro(predictions, labels):
    return f1_score(y_true=labels, y_pred=predictions, average="macro")


def class_distribution(labels, num_classes):
    unique_labels, counts = np.unique(np.asarray(labels), return_counts=True)
    dist = np.zeros(num_classes)
    dist[unique_labels.astype(int)] = counts / len(labels)
    return dist


def compute_metric(metric, predictions, labels, num_classes):
    if isinstance(predictions, torch.Tensor):
        predictions = predictions.cpu()
    if isinstance(labels, torch.Tensor):
        labels = labels.cpu()
    if metric == "accuracy":
        return accuracy(predictions=predictions, labels=labels)
    elif metric == "f1_macro":
        return f1_macro(predictions=predictions, labels=labels)
    elif metric == "pred_dist":
        return class_distribution(labels=predictions, num_classes=num_classes)
    raise NotImplementedError
