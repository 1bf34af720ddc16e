"""Latent diffusion training loss (reconstruction of ldm/models/diffusion/ddpm.py, DDPM/LatentDiffusion)."""

import pytorch_lightning as pl
import torch
from torch import nn


class DDPM(pl.LightningModule):
    def __init__(self, timesteps=100, learn_logvar=False, logvar_init=0.0, channels=4):
        super().__init__()
        self.num_timesteps = timesteps
        self.model = nn.Conv2d(channels, channels, 3, padding=1)
        betas = torch.linspace(1e-4, 2e-2, timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("sqrt_alphas_cumprod", alphas_cumprod.sqrt())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1.0 - alphas_cumprod).sqrt())
        self.register_buffer("lvlb_weights", torch.ones(timesteps))
        self.learn_logvar = learn_logvar
        self.logvar = torch.full(fill_value=logvar_init, size=(self.num_timesteps,))
        if self.learn_logvar:
            self.logvar = nn.Parameter(self.logvar, requires_grad=True)

    def q_sample(self, x_start, t, noise):
        a = self.sqrt_alphas_cumprod[t].view(-1, 1, 1, 1)
        b = self.sqrt_one_minus_alphas_cumprod[t].view(-1, 1, 1, 1)
        return a * x_start + b * noise


class LatentDiffusion(DDPM):
    def forward(self, x, c):
        t = torch.randint(0, self.num_timesteps, (x.shape[0],), device=self.device).long()
        return self.p_losses(x, c, t)

    def p_losses(self, x_start, cond, t):
        noise = torch.randn_like(x_start)
        x_noisy = self.q_sample(x_start=x_start, t=t, noise=noise)
        model_output = self.model(x_noisy + cond)
        loss_simple = (model_output - noise).pow(2).mean([1, 2, 3])

        logvar_t = self.logvar[t].to(self.device)
        loss = loss_simple / torch.exp(logvar_t) + logvar_t
        loss = loss.mean()
        loss_vlb = (self.lvlb_weights[t] * loss_simple).mean()
        return loss + loss_vlb

    def training_step(self, batch, batch_idx):
        x, c = batch
        return self(x, c)

    def configure_optimizers(self):
        params = list(self.model.parameters())
        if self.learn_logvar:
            params = params + [self.logvar]
        return torch.optim.AdamW(params, lr=1e-4)
