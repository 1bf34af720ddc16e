"""Masked patch prediction pre-training (reconstruction of vit_pytorch/mpp.py)."""

import math

import torch
import torch.nn.functional as F
from torch import nn


def to_patches(img, p):
    b, c, h, w = img.shape
    x = img.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
    return x.reshape(b, (h // p) * (w // p), p * p * c)


def prob_mask_like(t, prob):
    batch, seq_length, _ = t.shape
    return torch.zeros((batch, seq_length)).float().uniform_(0, 1) < prob


def get_mask_subset_with_prob(patched_input, prob):
    batch, seq_len, _ = patched_input.shape
    device = patched_input.device
    max_masked = math.ceil(prob * seq_len)
    _, sampled = torch.rand((batch, seq_len), device=device).topk(max_masked, dim=-1)
    new_mask = torch.zeros((batch, seq_len), device=device)
    new_mask.scatter_(1, sampled, 1)
    return new_mask.bool()


class MPPLoss(nn.Module):
    def __init__(self, patch_size, channels, output_channel_bits, max_pixel_val):
        super().__init__()
        self.patch_size, self.channels = patch_size, channels
        self.output_channel_bits, self.max_pixel_val = output_channel_bits, max_pixel_val

    def forward(self, predicted_patches, target, mask):
        p, c = self.patch_size, self.channels
        b, _, h, w = target.shape
        target = target.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5).reshape(b, -1, c, p * p)
        avg_target = target.mean(dim=3)
        bin_size = self.max_pixel_val / self.output_channel_bits
        channel_bins = torch.arange(bin_size, self.max_pixel_val, bin_size)
        discretized = F.one_hot(torch.bucketize(avg_target, channel_bins), self.output_channel_bits)
        discretized = discretized.reshape(b, -1, c * self.output_channel_bits)
        bits = c * self.output_channel_bits
        bin_mask = 2 ** torch.arange(bits - 1, -1, -1).to(discretized.device, discretized.dtype)
        target_label = torch.sum(bin_mask * discretized, -1)
        return F.cross_entropy(predicted_patches[mask], target_label[mask])


class MPP(nn.Module):
    def __init__(self, encoder, patch_size, dim, output_channel_bits=3, channels=3, max_pixel_val=1.0,
                 mask_prob=0.15, replace_prob=0.5, random_patch_prob=0.5):
        super().__init__()
        self.encoder = encoder
        self.loss = MPPLoss(patch_size, channels, output_channel_bits, max_pixel_val)
        self.to_bits = nn.Linear(dim, 2 ** (output_channel_bits * channels))
        self.patch_size = patch_size
        self.mask_prob, self.replace_prob, self.random_patch_prob = mask_prob, replace_prob, random_patch_prob
        self.mask_token = nn.Parameter(torch.randn(1, 1, patch_size * patch_size * channels))

    def forward(self, input):
        img = input.clone().detach()
        input = to_patches(input, self.patch_size)
        mask = get_mask_subset_with_prob(input, self.mask_prob)
        masked_input = input.clone().detach()
        if self.random_patch_prob > 0:
            random_patch_prob = prob_mask_like(input, self.random_patch_prob / (1 - self.replace_prob))
            bool_random = mask * random_patch_prob == True
            random_patches = torch.randint(0, input.shape[1], input.shape[:2], device=input.device)
            randomized = masked_input[torch.arange(masked_input.shape[0]).unsqueeze(-1), random_patches]
            masked_input[bool_random] = randomized[bool_random]
        replace_prob = prob_mask_like(input, self.replace_prob)
        bool_mask_replace = (mask * replace_prob) == True
        masked_input[bool_mask_replace] = self.mask_token
        logits = self.to_bits(self.encoder(masked_input))
        return self.loss(logits, img, mask)


def train_step(mpp, optimizer, images, device):
    loss = mpp(images.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    encoder = nn.Sequential(nn.Linear(8 * 8 * 3, 32), nn.GELU())
    mpp = MPP(encoder, patch_size=8, dim=32).to(dev)
    opt = torch.optim.Adam(mpp.parameters(), lr=3e-4)
    print(train_step(mpp, opt, torch.rand(2, 3, 32, 32), dev))
