"""Masked-autoencoder pre-training module (reconstruction of viscy/light/engine.py, FcmaeUNet)."""

import torch
import torch.nn.functional as F
from lightning.pytorch import LightningModule
from torch import nn


class TinyMaskedAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(1, 4, 3, padding=1)
        self.dec = nn.Conv2d(4, 1, 3, padding=1)

    def forward(self, x, mask_ratio=0.0):
        mask = (torch.rand(x.shape[0], *x.shape[2:], device=x.device) < max(mask_ratio, 0.5)).float()
        return self.dec(torch.relu(self.enc(x))), mask


class VirtualStainingModule(LightningModule):
    def __init__(self):
        super().__init__()
        self.model = TinyMaskedAE()
        self.validation_step_outputs = []

    def on_validation_epoch_end(self):
        self.validation_step_outputs = []

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


class MaskedPretrainModule(VirtualStainingModule):
    def __init__(self, fit_mask_ratio=0.5):
        super().__init__()
        self.fit_mask_ratio = fit_mask_ratio
        self.validation_losses = []

    def forward_fit(self, batch):
        source, target = batch["source"], batch["target"]
        pred, mask = self.model(source, mask_ratio=self.fit_mask_ratio)
        loss = F.mse_loss(pred, target, reduction="none")
        loss = (loss.mean(1) * mask).sum() / mask.sum()
        return source, loss

    def training_step(self, batch, batch_idx):
        losses, batch_size = [], 0
        for sample in batch:
            source, loss = self.forward_fit(sample)
            losses.append(loss)
            batch_size += source.shape[0]
        loss_step = torch.stack(losses).mean()
        self.log("loss/train", loss_step, on_step=True, on_epoch=True, sync_dist=True, batch_size=batch_size)
        return loss_step

    def validation_step(self, batch, batch_idx, dataloader_idx=0):
        source, loss = self.forward_fit(batch)
        if dataloader_idx + 1 > len(self.validation_losses):
            self.validation_losses.append([])
        self.validation_losses[dataloader_idx].append(loss.detach())
        self.log(f"loss/val/{dataloader_idx}", loss, sync_dist=True, batch_size=source.shape[0])

    def on_validation_epoch_end(self):
        super().on_validation_epoch_end()
        # average within each dataloader
        loss_means = [torch.tensor(losses).mean() for losses in self.validation_losses]
        self.log("loss/validate", torch.tensor(loss_means).mean(), sync_dist=True)
