"""Score estimator whose base distribution is set from the data statistics (reconstruction of
sbi/neural_nets/estimators/score_estimator.py and the builder that feeds it)."""

from typing import Union

import torch
from torch import Tensor, nn


class ConditionalScoreEstimator(nn.Module):
    def __init__(self, net, input_shape, condition_shape, mean_0: Union[Tensor, float] = 0.0,
                 std_0: Union[Tensor, float] = 1.0, t_min: float = 1e-3, t_max: float = 1.0):
        # starting statistics of the target distribution, used to precondition the network
        if not isinstance(mean_0, Tensor):
            mean_0 = torch.tensor([mean_0])
        if not isinstance(std_0, Tensor):
            std_0 = torch.tensor([std_0])
        super().__init__()
        self.net = net
        self.input_shape = torch.Size(input_shape)
        self.condition_shape = torch.Size(condition_shape)
        self.t_min, self.t_max = t_min, t_max
        self.register_buffer("mean_0", mean_0.clone().detach())
        self.register_buffer("std_0", std_0.clone().detach())

        # mean and std of the "base" distribution at t_max
        mean_t = self.approx_marginal_mean(torch.tensor([t_max]))
        std_t = self.approx_marginal_std(torch.tensor([t_max]))
        self._mean_base = torch.broadcast_to(mean_t, (1, *input_shape))
        self._std_base = torch.broadcast_to(std_t, (1, *input_shape))

    def approx_marginal_mean(self, times: Tensor) -> Tensor:
        return self.mean_t_fn(times) * self.mean_0

    def approx_marginal_std(self, times: Tensor) -> Tensor:
        return torch.sqrt(self.mean_t_fn(times) ** 2 * self.std_0 ** 2 + self.std_fn(times) ** 2)

    def mean_t_fn(self, times: Tensor) -> Tensor:
        raise NotImplementedError

    def std_fn(self, times: Tensor) -> Tensor:
        raise NotImplementedError

    def forward(self, input, condition, time):
        score = self.net(torch.cat([input, condition, time[:, None]], dim=-1))
        return score / self.approx_marginal_std(time)


class VPScoreEstimator(ConditionalScoreEstimator):
    def __init__(self, net, input_shape, condition_shape, beta_min=0.01, beta_max=10.0, **kwargs):
        self.beta_min, self.beta_max = beta_min, beta_max
        super().__init__(net, input_shape, condition_shape, **kwargs)

    def mean_t_fn(self, times):
        phi = torch.exp(-0.25 * times ** 2.0 * (self.beta_max - self.beta_min) - 0.5 * times * self.beta_min)
        for _ in range(len(self.input_shape)):
            phi = phi.unsqueeze(-1)
        return phi

    def std_fn(self, times):
        std = 1.0 - torch.exp(-0.5 * times ** 2.0 * (self.beta_max - self.beta_min) - times * self.beta_min)
        for _ in range(len(self.input_shape)):
            std = std.unsqueeze(-1)
        return torch.sqrt(std)


def build_vp_score_estimator(batch_x: Tensor, batch_y: Tensor) -> VPScoreEstimator:
    """The data statistics come from the training batch, on whatever device it is."""
    mean_0, std_0 = batch_x.mean(0), batch_x.std(0)
    dim_x, dim_y = batch_x.shape[1], batch_y.shape[1]
    net = nn.Sequential(nn.Linear(dim_x + dim_y + 1, 32), nn.SiLU(), nn.Linear(32, dim_x))
    return VPScoreEstimator(net, (dim_x,), (dim_y,), mean_0=mean_0, std_0=std_0)


def run(device):
    theta = torch.randn(64, 2, device=device)
    x = theta + 0.1 * torch.randn(64, 2, device=device)
    estimator = build_vp_score_estimator(theta, x).to(device)
    t = torch.rand(64, device=device)
    return estimator(theta, x, t)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
