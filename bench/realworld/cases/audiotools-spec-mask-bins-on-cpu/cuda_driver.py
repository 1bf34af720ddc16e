"""audiotools training loops moved the AudioSignal batch to the GPU, instantiated a TimeMask transform and moved its
parameters there with prepare_batch before applying it; in bad mask_timesteps compares those GPU bounds with time bins
built on the CPU by torch.linspace."""

import torch


def run(program, device):
    torch.manual_seed(0)
    signal = program["AudioSignal"](torch.randn(2, 1, 1200), 16000).to(device)
    transform = program["TimeMask"](tmax_s=0.02)
    kwargs = program["prepare_batch"](transform.instantiate(signal.batch_size), device)
    masked = transform(signal, **kwargs)
    assert masked.stft_data.device.type == device.type
