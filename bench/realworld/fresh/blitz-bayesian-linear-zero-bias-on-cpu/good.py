"""Bayes-by-backprop linear layer (reconstruction of blitz/modules/linear_bayesian_layer.py and
blitz/modules/weight_sampler.py)."""

import math

import torch
from torch import nn
from torch.nn import functional as F


class TrainableRandomDistribution(nn.Module):
    def __init__(self, mu, rho):
        super().__init__()
        self.mu = nn.Parameter(mu)
        self.rho = nn.Parameter(rho)
        self.register_buffer("eps_w", torch.empty(self.mu.shape))
        self.sigma = None
        self.w = None

    def sample(self):
        self.eps_w.data.normal_()
        self.sigma = torch.log1p(torch.exp(self.rho))
        self.w = self.mu + self.sigma * self.eps_w
        return self.w

    def log_posterior(self):
        log_sqrt2pi = math.log(math.sqrt(2 * math.pi))
        return (-log_sqrt2pi - torch.log(self.sigma) - (self.w - self.mu) ** 2 / (2 * self.sigma ** 2) - 0.5).sum()


class PriorWeightDistribution(nn.Module):
    def __init__(self, pi=1.0, sigma1=0.1, sigma2=0.001):
        super().__init__()
        self.pi, self.sigma1, self.sigma2 = pi, sigma1, sigma2

    def _log_normal(self, w, sigma):
        return -0.5 * (w / sigma) ** 2 - math.log(sigma * math.sqrt(2 * math.pi))

    def log_prior(self, w):
        pdf = self.pi * torch.exp(self._log_normal(w, self.sigma1)) + (1 - self.pi) * torch.exp(self._log_normal(w, self.sigma2))
        return (torch.log(pdf + 1e-6) - 0.5).sum()


class BayesianLinear(nn.Module):
    def __init__(self, in_features, out_features, bias=True, posterior_mu_init=0.0, posterior_rho_init=-7.0):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.bias = bias
        self.weight_sampler = TrainableRandomDistribution(
            torch.empty(out_features, in_features).normal_(posterior_mu_init, 0.1),
            torch.empty(out_features, in_features).normal_(posterior_rho_init, 0.1))
        self.bias_sampler = TrainableRandomDistribution(
            torch.empty(out_features).normal_(posterior_mu_init, 0.1),
            torch.empty(out_features).normal_(posterior_rho_init, 0.1))
        self.weight_prior_dist = PriorWeightDistribution()
        self.bias_prior_dist = PriorWeightDistribution()
        self.log_prior = 0
        self.log_variational_posterior = 0

    def forward(self, x):
        w = self.weight_sampler.sample()
        if self.bias:
            b = self.bias_sampler.sample()
            b_log_posterior = self.bias_sampler.log_posterior()
            b_log_prior = self.bias_prior_dist.log_prior(b)
        else:
            # the layer was asked for no bias: a fixed zero bias
            b = torch.zeros((self.out_features), device=x.device)
            b_log_posterior = 0
            b_log_prior = 0
        self.log_variational_posterior = self.weight_sampler.log_posterior() + b_log_posterior
        self.log_prior = self.weight_prior_dist.log_prior(w) + b_log_prior
        return F.linear(x, w, b)


class BayesianRegressor(nn.Module):
    def __init__(self, input_dim, output_dim):
        super().__init__()
        self.blinear1 = BayesianLinear(input_dim, 16, bias=False)
        self.blinear2 = BayesianLinear(16, output_dim)

    def forward(self, x):
        return self.blinear2(F.relu(self.blinear1(x)))


def run(device):
    model = BayesianRegressor(5, 1).to(device)
    x = torch.randn(8, 5).to(device)
    out = model(x)
    kl = sum(m.log_variational_posterior - m.log_prior for m in model.modules() if isinstance(m, BayesianLinear))
    return F.mse_loss(out, torch.zeros_like(out)) + kl / 8


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
