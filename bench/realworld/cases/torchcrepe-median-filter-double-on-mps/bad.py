"""Pitch tracking with periodicity smoothing (reconstruction of torchcrepe.filter.median and the README pipeline)."""

import torch
import torch.nn.functional as F


def predict(audio, hop_length, device):
    frames = audio.to(device).unfold(-1, 64, hop_length)
    pitch = frames.abs().mean(dim=-1) * 1000
    periodicity = frames.std(dim=-1)
    periodicity[:, ::7] = float("nan")
    return pitch, periodicity


def median(signals, win_length):
    """Median filtering for signals containing nan values."""
    assert signals.dim() == 2, "Input tensor must have 2 dimensions (batch_size, width)"
    signals = signals.unsqueeze(1)
    mask = ~torch.isnan(signals)
    masked_x = torch.where(mask, signals, torch.zeros_like(signals))
    padding = win_length // 2
    x = F.pad(masked_x, (padding, padding), mode="reflect")
    mask = F.pad(mask.float(), (padding, padding), mode="constant", value=0)
    x = x.unfold(2, win_length, 1)
    mask = mask.unfold(2, win_length, 1)
    x = x.contiguous().view(x.size()[:3] + (-1,))
    mask = mask.contiguous().view(mask.size()[:3] + (-1,))

    x_masked = torch.where(mask.bool(), x.double(), float("inf")).to(x)
    x_sorted, _ = torch.sort(x_masked, dim=-1)
    valid_count = mask.sum(dim=-1)
    median_idx = ((valid_count - 1) // 2).clamp(min=0)
    median_pooled = x_sorted.gather(-1, median_idx.unsqueeze(-1).long()).squeeze(-1)
    median_pooled[torch.isinf(median_pooled)] = float("nan")
    return median_pooled.squeeze(1)


def main(device="mps"):
    audio = torch.randn(1, 16000)
    pitch, periodicity = predict(audio, hop_length=160, device=device)
    periodicity = median(periodicity, 3)
    return pitch, periodicity


if __name__ == "__main__":
    main()
