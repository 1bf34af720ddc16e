"""Vocoder training set-up with optional criteria (reconstruction of bin/train.py and losses/mel_loss.py)."""

import torch
import torch.nn.functional as F


def mel_filterbank(fs, n_fft, n_mels):
    """Stands in for librosa.filters.mel: a triangular filterbank as a numpy-free tensor."""
    freqs = torch.linspace(0, fs / 2, n_fft // 2 + 1)
    centers = torch.linspace(0, fs / 2, n_mels + 2)
    lower, center, upper = centers[:-2, None], centers[1:-1, None], centers[2:, None]
    up = (freqs - lower) / (center - lower)
    down = (upper - freqs) / (upper - center)
    return torch.clamp(torch.minimum(up, down), min=0.0)


class MelSpectrogram(torch.nn.Module):
    def __init__(self, fs=22050, fft_size=1024, hop_size=256, win_length=None, window="hann", num_mels=80, eps=1e-10):
        super().__init__()
        self.fft_size = fft_size
        self.hop_size = hop_size
        self.win_length = fft_size if win_length is None else win_length
        self.window = window
        self.eps = eps
        self.register_buffer("melmat", mel_filterbank(fs, fft_size, num_mels).T.contiguous())

    def forward(self, x):
        if x.dim() == 3:
            x = x.reshape(-1, x.size(2))
        window = getattr(torch, f"{self.window}_window")(self.win_length, dtype=x.dtype, device=x.device)
        spec = torch.stft(x, self.fft_size, self.hop_size, self.win_length, window, return_complex=True)
        amp = torch.clamp(spec.abs().transpose(1, 2), min=self.eps)
        mel = torch.clamp(torch.matmul(amp, self.melmat), min=self.eps)
        return mel.log10().transpose(1, 2)


class MelSpectrogramLoss(torch.nn.Module):
    def __init__(self, **kwargs):
        super().__init__()
        self.mel_spectrogram = MelSpectrogram(**kwargs)

    def forward(self, y_hat, y):
        return F.l1_loss(self.mel_spectrogram(y_hat), self.mel_spectrogram(y))


class TinyGenerator(torch.nn.Module):
    def __init__(self, aux_channels=4, hop=16):
        super().__init__()
        self.proj = torch.nn.Linear(aux_channels, hop)

    def forward(self, mel):
        return torch.tanh(self.proj(mel.transpose(1, 2)).reshape(mel.size(0), 1, -1))


def main(config, device_name=None):
    device = torch.device(device_name or ("cuda" if torch.cuda.is_available() else "cpu"))
    model = {"generator": TinyGenerator().to(device)}
    criterion = {"mse": torch.nn.MSELoss().to(device)}
    if config.get("use_mel_loss", False):
        criterion["mel"] = MelSpectrogramLoss(
            fs=config["sampling_rate"],
            fft_size=config["fft_size"],
            hop_size=config["hop_size"],
            win_length=config["win_length"],
            window=config["window"],
            num_mels=config["num_mels"],
        ).to(device)
    else:
        config["use_mel_loss"] = False

    optimizer = torch.optim.Adam(model["generator"].parameters(), lr=1e-4)
    for mel, audio in [(torch.randn(2, 4, 16), torch.randn(2, 1, 256))]:
        mel, audio = mel.to(device), audio.to(device)
        audio_ = model["generator"](mel)
        loss = criterion["mse"](audio_, audio)
        if config["use_mel_loss"]:
            loss = loss + 45.0 * criterion["mel"](audio_, audio)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main({"use_mel_loss": True, "sampling_rate": 16000, "fft_size": 64, "hop_size": 16, "win_length": 48,
          "window": "hann", "num_mels": 8})
