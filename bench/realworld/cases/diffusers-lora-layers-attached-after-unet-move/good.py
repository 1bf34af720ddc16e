"""LoRA fine-tuning of a text-to-image UNet (reconstruction of
examples/text_to_image/train_text_to_image_lora.py with stand-ins for the UNet, the LoRA layers and
Accelerate)."""

import argparse

import torch
from torch import nn


class LoRALinearLayer(nn.Module):
    def __init__(self, in_features, out_features, rank=4):
        super().__init__()
        self.down = nn.Linear(in_features, rank, bias=False)
        self.up = nn.Linear(rank, out_features, bias=False)
        nn.init.zeros_(self.up.weight)

    def forward(self, hidden_states):
        return self.up(self.down(hidden_states))


class LoRACompatibleLinear(nn.Linear):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lora_layer = None

    def set_lora_layer(self, lora_layer):
        self.lora_layer = lora_layer

    def forward(self, hidden_states):
        out = super().forward(hidden_states)
        if self.lora_layer is not None:
            out = out + self.lora_layer(hidden_states)
        return out


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_q = LoRACompatibleLinear(dim, dim)
        self.to_k = LoRACompatibleLinear(dim, dim)
        self.to_v = LoRACompatibleLinear(dim, dim)
        self.to_out = nn.ModuleList([LoRACompatibleLinear(dim, dim)])

    def forward(self, x):
        attn = torch.softmax(self.to_q(x) @ self.to_k(x).transpose(-1, -2), dim=-1)
        return self.to_out[0](attn @ self.to_v(x))


class TinyUNet(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.down = nn.ModuleDict({"attn1": Attention(dim)})
        self.up = nn.ModuleDict({"attn1": Attention(dim)})

    @property
    def attn_processors(self):
        return {"down.attn1.processor": None, "up.attn1.processor": None}

    def forward(self, x):
        return self.up["attn1"](self.down["attn1"](x))


class Accelerator:
    def __init__(self, device=None):
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))

    def prepare(self, *objects):
        return objects


def main(args, device=None):
    accelerator = Accelerator(device)
    unet = TinyUNet()
    unet.requires_grad_(False)
    weight_dtype = torch.float32

    # Move unet to device and cast to weight_dtype
    unet.to(accelerator.device, dtype=weight_dtype)

    unet_lora_parameters = []
    for attn_processor_name, attn_processor in unet.attn_processors.items():
        attn_module = unet
        for n in attn_processor_name.split(".")[:-1]:
            attn_module = attn_module[n] if isinstance(attn_module, nn.ModuleDict) else getattr(attn_module, n)
        for proj in (attn_module.to_q, attn_module.to_k, attn_module.to_v, attn_module.to_out[0]):
            proj.set_lora_layer(LoRALinearLayer(proj.in_features, proj.out_features, rank=args.rank))
            unet_lora_parameters.extend(proj.lora_layer.parameters())

    unet.to(accelerator.device, dtype=weight_dtype)
    optimizer = torch.optim.AdamW(unet_lora_parameters, lr=1e-4)
    unet_lora_parameters, optimizer = accelerator.prepare(unet_lora_parameters, optimizer)

    unet.train()
    for step in range(2):
        latents = torch.randn(2, 5, 8, device=accelerator.device, dtype=weight_dtype)
        loss = (unet(latents) - latents).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def run(device):
    main(argparse.Namespace(rank=4), device=str(device))
