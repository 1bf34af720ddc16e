"""Autoformer forecaster forward pass (reconstruction of neuralforecast/models/autoformer.py)."""

import torch
from torch import nn


class SeriesDecomp(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.avg = nn.AvgPool1d(kernel_size, stride=1, padding=kernel_size // 2, count_include_pad=False)

    def forward(self, x):
        trend = self.avg(x.transpose(1, 2)).transpose(1, 2)
        return x - trend, trend


class Autoformer(nn.Module):
    def __init__(self, h, input_size, hidden_size=8, futr_input_size=0):
        super().__init__()
        self.h = h
        self.input_size = input_size
        self.label_len = input_size // 2
        self.futr_input_size = futr_input_size
        self.decomp = SeriesDecomp(3)
        self.enc_embedding = nn.Linear(1 + futr_input_size, hidden_size)
        self.dec_embedding = nn.Linear(1 + futr_input_size, hidden_size)
        self.encoder = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.projection = nn.Linear(hidden_size, 1)

    def _embed(self, layer, y, marks):
        return layer(y if marks is None else torch.cat([y, marks], dim=-1))

    def forward(self, windows_batch):
        insample_y = windows_batch["insample_y"].unsqueeze(-1)
        futr_exog = windows_batch["futr_exog"]
        if self.futr_input_size > 0:
            x_mark_enc = futr_exog[:, : self.input_size, :]
            x_mark_dec = futr_exog[:, -(self.label_len + self.h):, :]
        else:
            x_mark_enc = None
            x_mark_dec = None

        x_dec = torch.zeros(size=(len(insample_y), self.h, 1))
        x_dec = torch.cat([insample_y[:, -self.label_len:, :], x_dec], dim=1)

        mean = torch.mean(insample_y, dim=1).unsqueeze(1).repeat(1, self.h, 1)
        zeros = torch.zeros([x_dec.shape[0], self.h, x_dec.shape[2]], device=insample_y.device)
        seasonal_init, trend_init = self.decomp(insample_y)
        trend_init = torch.cat([trend_init[:, -self.label_len:, :], mean], dim=1)
        seasonal_init = torch.cat([seasonal_init[:, -self.label_len:, :], zeros], dim=1)

        enc_out, _ = self.encoder(self._embed(self.enc_embedding, insample_y, x_mark_enc))
        dec_out = self._embed(self.dec_embedding, seasonal_init, x_mark_dec) + enc_out[:, -1:, :]
        dec_out = trend_init + self.projection(dec_out)
        return dec_out[:, -self.h:]


def run(device):
    model = Autoformer(h=4, input_size=8).to(device)
    batch = {"insample_y": torch.randn(3, 8), "futr_exog": torch.empty(3, 12, 0)}
    batch = {k: v.to(device) for k, v in batch.items()}  # what the Lightning trainer does with each batch
    return model(batch)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
