"""Evaluation of a local score estimator (reconstruction of madminer/utils/ml/score_trainer.py,
evaluate_local_score_model, and the estimator method that calls it)."""

import numpy as np
import torch
from torch import nn, tensor


class LocalScoreModel(nn.Module):
    def __init__(self, n_observables, n_parameters):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_observables, 16), nn.Tanh(), nn.Linear(16, n_parameters))

    def forward(self, x, return_grad_x=False):
        if return_grad_x and not x.requires_grad:
            x.requires_grad = True
        t_hat = self.net(x)
        if return_grad_x:
            x_gradient = torch.autograd.grad(t_hat.sum(), x)[0]
            return t_hat, x_gradient
        return t_hat


def evaluate_local_score_model(model, xs=None, run_on_gpu=True, double_precision=False, return_grad_x=False):
    run_on_gpu = run_on_gpu and torch.cuda.is_available()
    device = torch.device("cuda" if run_on_gpu else "cpu")
    dtype = torch.double if double_precision else torch.float

    xs = torch.stack([tensor(i) for i in xs])
    model = model.to(device, dtype)
    xs = xs.to(device, dtype)

    if return_grad_x:
        model.eval()
        t_hat, x_gradients = model(xs, return_grad_x=True)
    else:
        with torch.no_grad():
            model.eval()
            t_hat = model(xs)
        x_gradients = None

    t_hat = t_hat.detach().numpy()

    if return_grad_x:
        x_gradients = x_gradients.detach().numpy()
        return t_hat, x_gradients
    return t_hat


class ScoreEstimator:
    def __init__(self, n_observables=3, n_parameters=2):
        self.model = LocalScoreModel(n_observables, n_parameters)

    def evaluate_score(self, x):
        return evaluate_local_score_model(model=self.model, xs=x, return_grad_x=False)


if __name__ == "__main__":
    print(ScoreEstimator().evaluate_score(np.random.rand(5, 3)))
