"""Length mask helper and the Transformer encoder that uses it (reconstruction of onmt/utils/misc.py and onmt/encoders/transformer.py)."""

import torch
from torch import nn


def sequence_mask(lengths, max_len=None):
    """Creates a boolean mask from sequence lengths."""
    batch_size = lengths.numel()
    max_len = max_len or lengths.max()
    return (torch.arange(0, max_len, device=lengths.device)
            .type_as(lengths)
            .repeat(batch_size, 1)
            .lt(lengths.unsqueeze(1)))


class TransformerEncoder(nn.Module):
    def __init__(self, vocab=30, d_model=8, heads=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, d_model)
        self.layer = nn.TransformerEncoderLayer(d_model, heads, 16, batch_first=True)

    def forward(self, src, lengths):
        emb = self.embeddings(src)
        mask = ~sequence_mask(lengths, src.size(1))
        return self.layer(emb, src_key_padding_mask=mask), lengths


def translate_on(gpu_rank):
    device = torch.device("cuda", gpu_rank)  # e.g. `-gpu 1`: the model lives on the second GPU
    model = TransformerEncoder().to(device)
    src = torch.randint(1, 30, (2, 6), device=device)
    lengths = torch.tensor([6, 4], device=device)
    return model(src, lengths)


if __name__ == "__main__":
    translate_on(gpu_rank=1)
