"""Turning a PyTorch prediction network's output into numpy forecasts (reconstruction of
gluonts/torch/model/predictor.py and the forecast generator's predict_to_numpy dispatch)."""

from functools import singledispatch
from typing import List

import numpy as np
import torch
import torch.nn as nn


@singledispatch
def predict_to_numpy(prediction_net, inputs) -> np.ndarray:
    raise NotImplementedError


@predict_to_numpy.register(nn.Module)
def _(prediction_net: nn.Module, inputs: torch.Tensor) -> np.ndarray:
    return prediction_net(*inputs).data.numpy()


def batchify(data: List[dict], device: torch.device):
    return {key: torch.stack([torch.as_tensor(entry[key]) for entry in data]).to(device) for key in data[0]}


class SampleForecastGenerator:
    def __call__(self, batches, prediction_net, input_names):
        for batch in batches:
            inputs = [batch[name] for name in input_names]
            yield predict_to_numpy(prediction_net, inputs)


class PyTorchPredictor:
    def __init__(self, input_names, prediction_net, batch_size, device):
        self.input_names = input_names
        self.prediction_net = prediction_net
        self.batch_size = batch_size
        self.device = device
        self.forecast_generator = SampleForecastGenerator()

    def predict(self, dataset):
        batches = (batchify(dataset[i:i + self.batch_size], self.device)
                   for i in range(0, len(dataset), self.batch_size))
        self.prediction_net.eval()
        with torch.no_grad():
            yield from self.forecast_generator(batches, self.prediction_net, self.input_names)


class SimpleFeedForward(nn.Module):
    def __init__(self, context_length=24, prediction_length=12, num_samples=5):
        super().__init__()
        self.net = nn.Linear(context_length, prediction_length * num_samples)
        self.shape = (num_samples, prediction_length)

    def forward(self, past_target):
        return self.net(past_target).view(-1, *self.shape)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = SimpleFeedForward().to(device)
    predictor = PyTorchPredictor(["past_target"], net, batch_size=4, device=device)
    dataset = [{"past_target": np.random.rand(24).astype(np.float32)} for _ in range(10)]
    return list(predictor.predict(dataset))


if __name__ == "__main__":
    main()
