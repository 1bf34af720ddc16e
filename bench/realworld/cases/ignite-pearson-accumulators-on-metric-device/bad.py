"""Pearson correlation metric (reconstruction of ignite/metrics/regression/pearson_correlation.py;
ignite's Metric base is replaced by a small stand-in)."""

import torch


class Metric:
    def __init__(self, output_transform=lambda x: x, device=torch.device("cpu")):
        self._output_transform = output_transform
        self._device = torch.device(device)
        self.reset()


class BaseRegression(Metric):
    def update(self, output):
        y_pred, y = output[0].detach(), output[1].detach()
        if y_pred.ndimension() == 2 and y_pred.shape[1] == 1:
            y_pred = y_pred.squeeze(dim=-1)
        if y.ndimension() == 2 and y.shape[1] == 1:
            y = y.squeeze(dim=-1)
        self._update((y_pred, y))


class PearsonCorrelation(BaseRegression):
    def __init__(self, eps=1e-8, output_transform=lambda x: x, device=torch.device("cpu")):
        super().__init__(output_transform, device)
        self.eps = eps

    def reset(self):
        self._sum_of_y_preds = torch.tensor(0.0, device=self._device)
        self._sum_of_ys = torch.tensor(0.0, device=self._device)
        self._sum_of_y_pred_squares = torch.tensor(0.0, device=self._device)
        self._sum_of_y_squares = torch.tensor(0.0, device=self._device)
        self._sum_of_products = torch.tensor(0.0, device=self._device)
        self._num_examples = 0

    def _update(self, output):
        y_pred, y = output[0].detach(), output[1].detach()
        self._sum_of_y_preds += y_pred.sum()
        self._sum_of_ys += y.sum()
        self._sum_of_y_pred_squares += y_pred.square().sum()
        self._sum_of_y_squares += y.square().sum()
        self._sum_of_products += (y_pred * y).sum()
        self._num_examples += y.shape[0]

    def compute(self):
        n = self._num_examples
        cov = self._sum_of_products / n - self._sum_of_y_preds * self._sum_of_ys / (n * n)
        y_pred_var = torch.clamp(self._sum_of_y_pred_squares / n - (self._sum_of_y_preds / n) ** 2, min=0.0)
        y_var = torch.clamp(self._sum_of_y_squares / n - (self._sum_of_ys / n) ** 2, min=0.0)
        return float((cov / torch.clamp(torch.sqrt(y_pred_var * y_var), min=self.eps)).item())


def evaluate(model, batches, device):
    # the metric keeps its accumulators on its default device (the CPU)
    metric = PearsonCorrelation()
    with torch.no_grad():
        for x, y in batches:
            x, y = x.to(device), y.to(device)
            metric.update((model(x), y))
    return metric.compute()


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = torch.nn.Linear(3, 1).to(dev)
    print(evaluate(net, [(torch.randn(8, 3), torch.randn(8, 1))], dev))
