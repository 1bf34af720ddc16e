"""ParallelWaveGAN's train.py built its criteria from a YAML config and trained on the GPU it found; with
use_mel_loss enabled, bad leaves the mel loss (and its filterbank buffer) on the CPU, so the spectrogram's matmul
meets a GPU amplitude and a CPU filterbank."""

import torch


def run(program, device):
    torch.manual_seed(0)
    config = {
        "use_mel_loss": True,
        "sampling_rate": 8000,
        "fft_size": 64,
        "hop_size": 16,
        "win_length": 48,
        "window": "hann",
        "num_mels": 6,
    }
    # train.py picks the device itself; the reconstruction's main takes its name so the run is pinned to `device`.
    program["main"](config, device_name=str(device))
