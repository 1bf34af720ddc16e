"""VICRegL loss (reconstruction of lightly/loss/vicregl_loss.py)."""

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Module


def invariance_loss(x: Tensor, y: Tensor) -> Tensor:
    return F.mse_loss(x, y)


def variance_loss(x: Tensor, eps: float = 1e-4) -> Tensor:
    std = torch.sqrt(x.var(dim=0) + eps)
    return torch.mean(F.relu(1.0 - std))


def covariance_loss(x: Tensor) -> Tensor:
    x = x - x.mean(dim=0)
    cov = (x.T @ x) / (x.shape[0] - 1)
    off_diagonal = cov - torch.diag(torch.diagonal(cov))
    return off_diagonal.pow(2).sum() / x.shape[1]


class VICRegLLoss(Module):
    def __init__(self, lambda_param=25.0, mu_param=25.0, nu_param=1.0, alpha=0.75, eps=1e-4):
        super().__init__()
        self.lambda_param = lambda_param
        self.mu_param = mu_param
        self.nu_param = 0.5 * nu_param
        self.alpha = alpha
        self.eps = eps

    def forward(self, global_view_features, local_view_features=None):
        global_loss = self._global_loss(global_view_features, local_view_features)
        local_loss = self._local_loss(global_view_features)
        return self.alpha * global_loss + (1 - self.alpha) * local_loss

    def _global_loss(self, global_view_features, local_view_features=None):
        self.device = global_view_features[0][0].device
        inv_loss = self._global_invariance_loss(global_view_features, local_view_features)
        var_loss, cov_loss = self._global_variance_and_covariance_loss(global_view_features, local_view_features)
        return self.lambda_param * inv_loss + self.mu_param * var_loss + self.nu_param * cov_loss

    def _global_invariance_loss(self, global_view_features, local_view_features=None):
        loss = torch.tensor(0.0, device=self.device)
        loss_count = torch.tensor(0, device=self.device)
        for features_a, _ in global_view_features:
            for features_b, _ in global_view_features:
                if features_a is not features_b:
                    loss += invariance_loss(features_a, features_b)
                    loss_count += 1
            if local_view_features is not None:
                for features_b, _ in local_view_features:
                    loss += invariance_loss(features_a, features_b)
                    loss_count += 1
        return loss / loss_count

    def _global_variance_and_covariance_loss(self, global_view_features, local_view_features=None):
        view_features = list(global_view_features)
        if local_view_features is not None:
            view_features = view_features + list(local_view_features)
        var_loss = torch.tensor(0.0, device=self.device)
        cov_loss = torch.tensor(0.0, device=self.device)
        loss_count = torch.tensor(0, device=self.device)
        for features, _ in view_features:
            var_loss += variance_loss(features, eps=self.eps)
            cov_loss += covariance_loss(features)
            loss_count += 1
        return var_loss / loss_count, cov_loss / loss_count

    def _local_loss(self, global_view_features):
        loss = torch.tensor(0.0, device=self.device)
        loss_count = torch.tensor(0, device=self.device)
        for (_, local_a) in global_view_features:
            for (_, local_b) in global_view_features:
                if local_a is not local_b:
                    loss += F.mse_loss(local_a, local_b)
                    loss_count += 1
        return loss / loss_count


def train_step(model_head, views, criterion):
    features = [(model_head(v).mean(dim=(2, 3)), model_head(v).flatten(2).transpose(1, 2)) for v in views]
    return criterion(features)


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    head = torch.nn.Conv2d(3, 8, 3, padding=1).to(device)
    views = [torch.randn(4, 3, 8, 8, device=device) for _ in range(2)]
    train_step(head, views, VICRegLLoss()).backward()
