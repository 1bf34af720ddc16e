"""Prediction heads that resize themselves to the language model (reconstruction of farm/modeling/prediction_head.py)."""

import torch
from torch import nn


class FeedForwardBlock(nn.Module):
    def __init__(self, layer_dims):
        super().__init__()
        self.layer_dims = list(layer_dims)
        layers = []
        for i in range(len(layer_dims) - 1):
            layers.append(nn.Linear(layer_dims[i], layer_dims[i + 1]))
            if i < len(layer_dims) - 2:
                layers.append(nn.ReLU())
        self.feed_forward = nn.Sequential(*layers)

    def forward(self, x):
        return self.feed_forward(x)


class PredictionHead(nn.Module):
    def resize_input(self, input_dim):
        """Rebuild the feed-forward block when its input width does not match the language model's output."""
        if "feed_forward" not in dir(self):
            return
        old_dims = self.feed_forward.layer_dims
        if input_dim == old_dims[0]:
            return
        new_dims = [input_dim] + old_dims[1:]
        self.feed_forward = FeedForwardBlock(new_dims)
        self.layer_dims[0] = input_dim


class TextClassificationHead(PredictionHead):
    def __init__(self, layer_dims=(768, 2), task_name="text_classification"):
        super().__init__()
        self.layer_dims = list(layer_dims)
        self.feed_forward = FeedForwardBlock(self.layer_dims)
        self.task_name = task_name
        self.model_type = "text_classification"
        self.loss_fct = nn.CrossEntropyLoss(reduction="none")

    def forward(self, x):
        return self.feed_forward(x)

    def logits_to_loss(self, logits, label_ids):
        return self.loss_fct(logits, label_ids.view(-1))
