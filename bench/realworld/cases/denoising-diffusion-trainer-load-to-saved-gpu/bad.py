"""Diffusion trainer checkpointing under Accelerate (reconstruction of denoising_diffusion_pytorch.Trainer)."""

from pathlib import Path

import torch
from accelerate import Accelerator
from torch import nn


class EMA(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.ema_model = type(model)()
        self.ema_model.load_state_dict(model.state_dict())


class TinyDenoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, model, results_folder="./results", amp=False):
        self.accelerator = Accelerator(mixed_precision="fp16" if amp else "no")
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        if self.accelerator.is_main_process:
            self.ema = EMA(model).to(self.accelerator.device)
        self.results_folder = Path(results_folder)
        self.results_folder.mkdir(exist_ok=True)
        self.step = 0
        self.model, self.opt = self.accelerator.prepare(self.model, self.opt)

    def save(self, milestone):
        if not self.accelerator.is_local_main_process:
            return
        data = {
            "step": self.step,
            "model": self.accelerator.get_state_dict(self.model),
            "opt": self.opt.state_dict(),
            "ema": self.ema.state_dict(),
        }
        torch.save(data, str(self.results_folder / f"model-{milestone}.pt"))

    def load(self, milestone):
        data = torch.load(str(self.results_folder / f"model-{milestone}.pt"))
        model = self.accelerator.unwrap_model(self.model)
        model.load_state_dict(data["model"])
        self.step = data["step"]
        self.opt.load_state_dict(data["opt"])
        self.ema.load_state_dict(data["ema"])


if __name__ == "__main__":
    trainer = Trainer(TinyDenoiser())
    trainer.save(1)
    trainer.load(1)
