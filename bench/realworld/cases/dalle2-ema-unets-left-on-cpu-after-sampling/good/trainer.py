"""Decoder trainer with per-unet EMA (reconstruction of dalle2_pytorch/train.py)."""

import copy

import torch
from torch import nn

from decoder import Decoder, TinyUnet


class EMA(nn.Module):
    def __init__(self, model, beta=0.99, update_after_step=0, update_every=1):
        super().__init__()
        self.beta = beta
        self.online_model = model
        self.ema_model = copy.deepcopy(model)
        self.update_after_step = update_after_step
        self.update_every = update_every
        self.register_buffer("initted", torch.Tensor([False]))
        self.register_buffer("step", torch.tensor([0.0]))

    def restore_ema_model_device(self):
        device = self.initted.device
        self.ema_model.to(device)

    def update(self):
        self.step += 1
        if self.step <= self.update_after_step or (self.step % self.update_every) != 0:
            return
        self.update_moving_average(self.ema_model, self.online_model)

    def update_moving_average(self, ma_model, current_model):
        def calculate_ema(beta, old, new):
            return old * beta + (1 - beta) * new

        for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
            ma_params.data = calculate_ema(self.beta, ma_params.data, current_params.data)
        for current_buffer, ma_buffer in zip(current_model.buffers(), ma_model.buffers()):
            ma_buffer.copy_(calculate_ema(self.beta, ma_buffer, current_buffer))

    def __call__(self, *args, **kwargs):
        return self.ema_model(*args, **kwargs)


class DecoderTrainer(nn.Module):
    def __init__(self, decoder, lr=1e-4, use_ema=True):
        super().__init__()
        self.decoder = decoder
        self.use_ema = use_ema
        self.ema_unets = nn.ModuleList([])
        for ind, unet in enumerate(self.decoder.unets):
            setattr(self, f"optim{ind}", torch.optim.Adam(unet.parameters(), lr=lr))
            if self.use_ema:
                self.ema_unets.append(EMA(unet))

    @property
    def unets(self):
        return nn.ModuleList([ema.ema_model for ema in self.ema_unets])

    def update(self, unet_number):
        index = unet_number - 1
        optimizer = getattr(self, f"optim{index}")
        optimizer.step()
        optimizer.zero_grad()
        if self.use_ema:
            self.ema_unets[index].update()

    @torch.no_grad()
    def sample(self, *args, **kwargs):
        if self.use_ema:
            trainable_unets = self.decoder.unets
            self.decoder.unets = self.unets  # swap in the averaged unets for sampling
        output = self.decoder.sample(*args, **kwargs)
        if self.use_ema:
            self.decoder.unets = trainable_unets  # restore the training unets
        # cast the averaged unets back to their original device
        for ema in self.ema_unets:
            ema.restore_ema_model_device()
        return output

    def forward(self, images, unet_number):
        return self.decoder(images, unet_number=unet_number)


def train(device):
    decoder = Decoder([TinyUnet(), TinyUnet()], image_sizes=(8, 16))
    trainer = DecoderTrainer(decoder).to(device)
    for step in range(4):
        for unet_number in (1, 2):
            images = torch.randn(2, 3, 8, 8, device=device)
            loss = trainer(images, unet_number=unet_number)
            loss.backward()
            trainer.update(unet_number)
        if step % 2 == 0:
            trainer.sample(batch_size=2)


if __name__ == "__main__":
    train(torch.device("cuda"))
