"""SpecAugment-style masking on an audio signal (reconstruction of core/dsp.py, AudioSignal and the mask transforms)."""

import torch


def ensure_tensor(x, ndim=None):
    if not torch.is_tensor(x):
        x = torch.as_tensor(x)
    if ndim is not None:
        while x.ndim < ndim:
            x = x.unsqueeze(-1)
    return x.float()


class DSPMixin:
    def mask_frequencies(self, fmin_hz, fmax_hz, val=0.0):
        mag, phase = self.magnitude, self.phase
        fmin_hz = ensure_tensor(fmin_hz, ndim=mag.ndim)
        fmax_hz = ensure_tensor(fmax_hz, ndim=mag.ndim)
        assert torch.all(fmin_hz < fmax_hz)

        nbins = mag.shape[-2]
        bins_hz = torch.linspace(0, self.sample_rate, nbins)
        bins_hz = bins_hz[None, None, :, None].repeat(self.batch_size, 1, 1, mag.shape[-1])
        mask = (fmin_hz <= bins_hz) & (bins_hz < fmax_hz)
        mask = mask.to(self.device)

        self.stft_data = mag.masked_fill(mask, val) * torch.exp(1j * phase.masked_fill(mask, val))
        return self

    def mask_timesteps(self, tmin_s, tmax_s, val=0.0):
        mag, phase = self.magnitude, self.phase
        tmin_s = ensure_tensor(tmin_s, ndim=mag.ndim)
        tmax_s = ensure_tensor(tmax_s, ndim=mag.ndim)
        assert torch.all(tmin_s < tmax_s)

        nt = mag.shape[-1]
        bins_t = torch.linspace(0, self.signal_duration, nt)
        bins_t = bins_t[None, None, None, :].repeat(self.batch_size, 1, mag.shape[-2], 1)
        mask = (tmin_s <= bins_t) & (bins_t < tmax_s)
        mask = mask.to(self.device)

        self.stft_data = mag.masked_fill(mask, val) * torch.exp(1j * phase.masked_fill(mask, val))
        return self


class AudioSignal(DSPMixin):
    def __init__(self, audio_data, sample_rate, n_fft=64):
        self.audio_data = audio_data
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.stft_data = None

    def to(self, device):
        self.audio_data = self.audio_data.to(device)
        if self.stft_data is not None:
            self.stft_data = self.stft_data.to(device)
        return self

    @property
    def device(self):
        return self.audio_data.device

    @property
    def batch_size(self):
        return self.audio_data.shape[0]

    @property
    def signal_duration(self):
        return self.audio_data.shape[-1] / self.sample_rate

    def stft(self):
        flat = self.audio_data.reshape(-1, self.audio_data.shape[-1])
        window = torch.hann_window(self.n_fft, device=self.device)
        spec = torch.stft(flat, self.n_fft, hop_length=self.n_fft // 4, window=window, return_complex=True)
        self.stft_data = spec.reshape(*self.audio_data.shape[:2], *spec.shape[-2:])
        return self.stft_data

    @property
    def magnitude(self):
        return torch.abs(self.stft_data if self.stft_data is not None else self.stft())

    @property
    def phase(self):
        return torch.angle(self.stft_data if self.stft_data is not None else self.stft())


class TimeMask:
    def __init__(self, tmin_s=0.0, tmax_s=0.05):
        self.tmin_s, self.tmax_s = tmin_s, tmax_s

    def instantiate(self, batch_size):
        tmin = torch.rand(batch_size) * self.tmax_s
        return {"tmin_s": tmin, "tmax_s": tmin + self.tmax_s}

    def __call__(self, signal, tmin_s, tmax_s):
        return signal.mask_timesteps(tmin_s=tmin_s, tmax_s=tmax_s)


def prepare_batch(batch, device):
    return {k: v.to(device) for k, v in batch.items()}


def main(device):
    signal = AudioSignal(torch.randn(2, 1, 1600), 16000).to(device)
    transform = TimeMask()
    kwargs = prepare_batch(transform.instantiate(signal.batch_size), device)
    return transform(signal, **kwargs)


if __name__ == "__main__":
    main(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
