"""DreamBooth LoRA training step with optional VAE offloading (reconstruction of
examples/dreambooth/train_dreambooth_lora_flux2.py and diffusers.training_utils.offload_models,
with stand-ins for Accelerate and the models)."""

import argparse
import contextlib

import torch
from torch import nn


@contextlib.contextmanager
def offload_models(*modules, device, offload=True):
    """Move the modules to `device` on enter and back to where they were on exit."""
    if offload:
        original_devices = [next(m.parameters()).device for m in modules]
        for m in modules:
            m.to(device)
    try:
        yield
    finally:
        if offload:
            for m, orig_dev in zip(modules, original_devices):
                m.to(orig_dev)


class LatentDist:
    def __init__(self, mean):
        self.mean = mean

    def mode(self):
        return self.mean


class EncoderOutput:
    def __init__(self, latent_dist):
        self.latent_dist = latent_dist


class TinyVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Conv2d(3, 4, 3, stride=2, padding=1)

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    def encode(self, x):
        return EncoderOutput(LatentDist(self.encoder(x)))


class Accelerator:
    def __init__(self, device=None):
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))

    def prepare(self, *objects):
        return tuple(o.to(self.device) if isinstance(o, nn.Module) else o for o in objects)


def main(args, device=None):
    accelerator = Accelerator(device)
    weight_dtype = torch.float32
    vae = TinyVAE()
    transformer = nn.Conv2d(4, 4, 1)

    to_kwargs = {"dtype": weight_dtype, "device": accelerator.device} if not args.offload else {"dtype": weight_dtype}
    vae.to(**to_kwargs)
    transformer.to(device=accelerator.device, dtype=weight_dtype)

    optimizer = torch.optim.AdamW(transformer.parameters(), lr=1e-4)
    transformer, optimizer = accelerator.prepare(transformer, optimizer)
    # the prepared dataloader yields batches already on the accelerator device
    train_dataloader = [{"pixel_values": torch.randn(2, 3, 16, 16, device=accelerator.device)}]

    for step, batch in enumerate(train_dataloader):
        with torch.no_grad():
            if args.cache_latents:
                raise NotImplementedError
            else:
                with offload_models(vae, device=accelerator.device, offload=args.offload):
                    pixel_values = batch["pixel_values"].to(device=accelerator.device, dtype=vae.dtype)
                    model_input = vae.encode(pixel_values).latent_dist.mode()
        noise = torch.randn_like(model_input)
        loss = ((transformer(model_input + noise) - noise) ** 2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def run(device):
    main(argparse.Namespace(offload=True, cache_latents=False), device=str(device))
