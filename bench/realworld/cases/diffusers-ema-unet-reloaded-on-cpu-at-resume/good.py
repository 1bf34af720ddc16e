"""Text-to-image fine-tuning with EMA and resumable state (reconstruction of
examples/text_to_image/train_text_to_image.py with stand-ins for Accelerate, the UNet and EMAModel)."""

import argparse

import torch
from torch import nn


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        return self.conv(x)

    @classmethod
    def from_pretrained(cls, path, subfolder=None):
        return cls()  # stand-in: weights are read on the CPU


class EMAModel:
    def __init__(self, parameters, decay=0.9999):
        self.shadow_params = [p.clone().detach() for p in parameters]
        self.decay = decay

    @classmethod
    def from_pretrained(cls, path, model_cls):
        model = model_cls.from_pretrained(path)
        return cls(model.parameters())

    def state_dict(self):
        return {"decay": self.decay, "shadow_params": self.shadow_params}

    def load_state_dict(self, state_dict):
        self.decay = state_dict.get("decay", self.decay)
        shadow_params = state_dict.get("shadow_params", None)
        if shadow_params is not None:
            self.shadow_params = shadow_params

    @torch.no_grad()
    def step(self, parameters):
        one_minus_decay = 1 - self.decay
        for s_param, param in zip(self.shadow_params, parameters):
            s_param.sub_(one_minus_decay * (s_param - param))

    def to(self, device=None):
        self.shadow_params = [p.to(device=device) for p in self.shadow_params]


class Accelerator:
    """Stand-in for accelerate.Accelerator: device placement and state hooks."""

    def __init__(self, device=None):
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self._load_hooks = []

    def register_load_state_pre_hook(self, hook):
        self._load_hooks.append(hook)

    def prepare(self, *objects):
        return tuple(o.to(self.device) if isinstance(o, nn.Module) else o for o in objects)

    def load_state(self, input_dir):
        models = []
        for hook in self._load_hooks:
            hook(models, input_dir)


def main(args, device=None):
    accelerator = Accelerator(device)
    unet = TinyUNet.from_pretrained(args.pretrained_model_name_or_path, subfolder="unet")

    if args.use_ema:
        ema_unet = TinyUNet.from_pretrained(args.pretrained_model_name_or_path, subfolder="unet")
        ema_unet = EMAModel(ema_unet.parameters())

    def load_model_hook(models, input_dir):
        if args.use_ema:
            load_model = EMAModel.from_pretrained(input_dir + "/unet_ema", TinyUNet)
            ema_unet.load_state_dict(load_model.state_dict())
            ema_unet.to(accelerator.device)
            del load_model

    accelerator.register_load_state_pre_hook(load_model_hook)

    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    unet, optimizer = accelerator.prepare(unet, optimizer)
    if args.use_ema:
        ema_unet.to(accelerator.device)

    if args.resume_from_checkpoint:
        accelerator.load_state(args.output_dir + "/" + args.resume_from_checkpoint)

    for step in range(2):
        latents = torch.randn(2, 4, 8, 8, device=accelerator.device)
        loss = ((unet(latents) - latents) ** 2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if args.use_ema:
            ema_unet.step(unet.parameters())


def run(device):
    args = argparse.Namespace(pretrained_model_name_or_path="sd", use_ema=True,
                              resume_from_checkpoint="checkpoint-500", output_dir="out")
    main(args, device=str(device))
