"""Rebuild a text-to-image model from a training checkpoint (reconstruction of imagen_pytorch/utils.py
load_imagen_from_checkpoint and the sampling CLI that calls it)."""

from functools import reduce
from pathlib import Path

import torch
from torch import nn


class TinyImagen(nn.Module):
    def __init__(self, dim, num_unets):
        super().__init__()
        self.unets = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_unets)])

    def sample(self, cond):
        for unet in self.unets:
            cond = unet(cond)
        return cond


CONFIGS = {"original": TinyImagen, "elucidated": TinyImagen}


def safeget(dictionary, keys, default=None):
    return reduce(lambda d, key: d.get(key, default) if isinstance(d, dict) else default, keys.split("."), dictionary)


def load_imagen_from_checkpoint(checkpoint_path, load_weights=True, load_ema_if_available=False):
    model_path = Path(checkpoint_path)
    assert model_path.exists(), f"checkpoint not found at {model_path.resolve()}"
    loaded = torch.load(str(model_path))

    imagen_params = safeget(loaded, "imagen_params")
    imagen_type = safeget(loaded, "imagen_type")
    if imagen_type not in CONFIGS:
        raise ValueError(f"unknown imagen type {imagen_type}")
    imagen = CONFIGS[imagen_type](**imagen_params)
    if not load_weights:
        return imagen
    if load_ema_if_available and "ema" in loaded:
        imagen.load_state_dict(loaded["ema"])
    else:
        imagen.load_state_dict(loaded["model"])
    return imagen


def sample_cli(checkpoint_path, prompt_embedding, device):
    imagen = load_imagen_from_checkpoint(checkpoint_path, load_ema_if_available=True)
    imagen = imagen.to(device)
    return imagen.sample(prompt_embedding.to(device))
