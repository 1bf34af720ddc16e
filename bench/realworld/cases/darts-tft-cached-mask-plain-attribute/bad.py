"""Temporal Fusion Transformer module with cached masks (reconstruction of
darts/models/forecasting/tft_model.py, _TFTModule; the Lightning base is replaced by nn.Module)."""

import torch
from torch import nn


class TFTModule(nn.Module):
    def __init__(self, input_chunk_length=4, output_chunk_length=2, n_vars=1, hidden=8,
                 add_relative_index=True, full_attention=False):
        super().__init__()
        self.input_chunk_length = input_chunk_length
        self.output_chunk_length = output_chunk_length
        self.add_relative_index = add_relative_index
        self.full_attention = full_attention
        # regenerate the masks only when the batch size changes
        self.batch_size_last = -1
        self.attention_mask = None
        self.relative_index = None
        n_in = n_vars + (1 if add_relative_index else 0)
        self.embed = nn.Linear(n_in, hidden)
        self.attention = nn.MultiheadAttention(hidden, 2, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    @staticmethod
    def get_relative_index(encoder_length, decoder_length, batch_size, dtype, device):
        index = torch.arange(encoder_length + decoder_length, dtype=dtype, device=device)
        index = index / (encoder_length - 1)
        return index.reshape(1, len(index), 1).repeat(batch_size, 1, 1)

    @staticmethod
    def get_attention_mask_future(encoder_length, decoder_length, batch_size, device, full_attention):
        if full_attention:
            decoder_mask = torch.zeros((decoder_length, decoder_length), dtype=torch.bool, device=device)
        else:
            attend_step = torch.arange(decoder_length, device=device)
            predict_step = torch.arange(0, decoder_length, device=device)[:, None]
            decoder_mask = attend_step >= predict_step
        encoder_mask = torch.zeros(batch_size, encoder_length, dtype=torch.bool, device=device)
        return torch.cat((encoder_mask.unsqueeze(1).expand(-1, decoder_length, -1),
                          decoder_mask.unsqueeze(0).expand(batch_size, -1, -1)), dim=2)

    def forward(self, x_in):
        x_cont_past, x_cont_future = x_in
        device = x_in[0].device
        batch_size = x_cont_past.shape[0]
        encoder_length, decoder_length = self.input_chunk_length, self.output_chunk_length

        if batch_size != self.batch_size_last:
            self.attention_mask = self.get_attention_mask_future(
                encoder_length, decoder_length, batch_size, device, self.full_attention)
            if self.add_relative_index:
                self.relative_index = self.get_relative_index(
                    encoder_length, decoder_length, batch_size, x_cont_past.dtype, device)
            self.batch_size_last = batch_size

        if self.add_relative_index:
            x_cont_past = torch.cat([x_cont_past, self.relative_index[:, :encoder_length, :]], dim=2)
            x_cont_future = torch.cat([x_cont_future, self.relative_index[:, -decoder_length:, :]], dim=2)

        past, future = self.embed(x_cont_past), self.embed(x_cont_future)
        keys = torch.cat([past, future], dim=1)
        mask = self.attention_mask.repeat_interleave(self.attention.num_heads, dim=0)
        out, _ = self.attention(future, keys, keys, attn_mask=mask)
        return self.head(out)


def run(device):
    module = TFTModule()
    batch = (torch.randn(3, 4, 1), torch.randn(3, 2, 1))
    module(batch)  # fit / first prediction on the host
    # the trained model is then moved to another device for prediction
    module.to(device)
    module(tuple(t.to(device) for t in batch))
