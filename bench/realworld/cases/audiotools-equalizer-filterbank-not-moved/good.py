"""Equalizer effect of an audio signal class (reconstruction of audiotools/core/effects.py)."""

import julius
import torch


class EffectMixin:
    def mel_filterbank(self, n_bands):
        filterbank = julius.SplitBands(self.sample_rate, n_bands).float().to(self.device)
        filtered = filterbank(self.audio_data)
        return filtered.permute(1, 2, 3, 0)

    def equalizer(self, db):
        if not torch.is_tensor(db):
            db = torch.from_numpy(db)
        n_bands = db.shape[-1]
        fbank = self.mel_filterbank(n_bands)
        if db.ndim == 2:
            if db.shape[0] != 1:
                assert db.shape[0] == fbank.shape[0]
        else:
            db = db.unsqueeze(0)
        weights = (10 ** db).to(self.device).float()
        fbank = fbank * weights[:, None, None, :]
        self.audio_data = fbank.sum(-1)
        return self


class AudioSignal(EffectMixin):
    def __init__(self, audio_data, sample_rate):
        self.audio_data = audio_data
        self.sample_rate = sample_rate

    @property
    def device(self):
        return self.audio_data.device

    def to(self, device):
        self.audio_data = self.audio_data.to(device)
        return self


if __name__ == "__main__":
    signal = AudioSignal(torch.randn(2, 1, 4410), 44100).to("cuda" if torch.cuda.is_available() else "cpu")
    signal.equalizer(torch.zeros(6))
