"""Historical consistent neural network unrolled over time (reconstruction of prosper_nn/models/hcnn/hcnn.py and
its training example)."""

import torch
from torch import nn


class HCNNCell(nn.Module):
    def __init__(self, n_state_neurons, n_features_Y):
        super().__init__()
        self.n_features_Y = n_features_Y
        self.A = nn.Linear(n_state_neurons, n_state_neurons, bias=False)
        self.eye = nn.Parameter(torch.eye(n_features_Y, n_state_neurons), requires_grad=False)

    def forward(self, state, observation=None):
        expectation = state @ self.eye.T
        if observation is None:
            return torch.tanh(self.A(state)), expectation
        error = expectation - observation
        corrected = state - error @ self.eye
        return torch.tanh(self.A(corrected)), error


class HCNN(nn.Module):
    def __init__(self, n_state_neurons, n_features_Y, past_horizon, forecast_horizon):
        super().__init__()
        self.n_features_Y = n_features_Y
        self.past_horizon = past_horizon
        self.forecast_horizon = forecast_horizon
        self.state = [None] * (past_horizon + forecast_horizon + 1)
        self.init_state = nn.Parameter(torch.randn(1, n_state_neurons))
        self.HCNNCell = HCNNCell(n_state_neurons, n_features_Y)

    def forward(self, Y):
        self.state[0] = self.init_state
        batchsize = Y.shape[1]
        # reset saved cell outputs
        past_error = torch.zeros(self.past_horizon, batchsize, self.n_features_Y)
        forecast = torch.zeros(self.forecast_horizon, batchsize, self.n_features_Y)
        for t in range(self.past_horizon):
            state = self.state[t].repeat(batchsize, 1) if t == 0 else self.state[t]
            self.state[t + 1], past_error[t] = self.HCNNCell(state, Y[t])
        for t in range(self.past_horizon, self.past_horizon + self.forecast_horizon):
            self.state[t + 1], forecast[t - self.past_horizon] = self.HCNNCell(self.state[t])
        return torch.cat([past_error, forecast], dim=0)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    past_horizon, forecast_horizon = 10, 3
    model = HCNN(n_state_neurons=8, n_features_Y=2, past_horizon=past_horizon,
                 forecast_horizon=forecast_horizon).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    Y = torch.randn(past_horizon, 4, 2, device=device)
    targets = torch.zeros((past_horizon, 4, 2), device=device)
    for epoch in range(2):
        output = model(Y)
        past_error, forecast = torch.split(output, past_horizon)
        loss = nn.functional.mse_loss(past_error, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return forecast


if __name__ == "__main__":
    main()
