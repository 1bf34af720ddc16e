"""S-VAE with a von Mises-Fisher posterior and a uniform prior (reconstruction of examples/mnist.py)."""

import torch
from torch import nn
from torch.nn import functional as F

from distributions import HypersphericalUniform, VonMisesFisher


class ModelVAE(nn.Module):
    def __init__(self, h_dim, z_dim, device):
        super().__init__()
        self.z_dim, self.device = z_dim, device
        self.fc_e0 = nn.Linear(16, h_dim)
        self.fc_mean = nn.Linear(h_dim, z_dim)
        self.fc_var = nn.Linear(h_dim, 1)

    def encode(self, x):
        h = F.relu(self.fc_e0(x))
        z_mean = self.fc_mean(h)
        z_mean = z_mean / z_mean.norm(dim=-1, keepdim=True)
        z_var = F.softplus(self.fc_var(h)) + 1
        return z_mean, z_var

    def reparameterize(self, z_mean, z_var):
        q_z = VonMisesFisher(z_mean, z_var)
        p_z = HypersphericalUniform(self.z_dim - 1, device=self.device)
        return q_z, p_z


def run(device):
    model = ModelVAE(h_dim=8, z_dim=3, device=device).to(device)
    x = torch.rand(4, 16, device=device)
    q_z, p_z = model.reparameterize(*model.encode(x))
    return torch.distributions.kl.kl_divergence(q_z, p_z).mean()


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
