"""Transformer decoder and greedy inference (reconstruction of onmt/decoders/transformer.py and the translator)."""

import torch
from torch import nn

from attention import MultiHeadedAttention


class DecoderLayer(nn.Module):
    def __init__(self, model_dim, heads):
        super().__init__()
        self.self_attn = MultiHeadedAttention(heads, model_dim)
        self.norm = nn.LayerNorm(model_dim)

    def forward(self, x, step=0):
        return x + self.self_attn(self.norm(x), step=step)


class TransformerDecoder(nn.Module):
    def __init__(self, vocab, model_dim=16, heads=2, layers=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, model_dim)
        self.transformer_layers = nn.ModuleList([DecoderLayer(model_dim, heads) for _ in range(layers)])
        self.generator = nn.Linear(model_dim, vocab)

    def _init_cache(self, tgt):
        for layer in self.transformer_layers:
            layer.self_attn.layer_cache = (
                True,
                {"keys": torch.tensor([], device=tgt.device), "values": torch.tensor([], device=tgt.device)},
            )
            if hasattr(layer.self_attn, "rope"):
                layer.self_attn.rope = layer.self_attn.rope.to(tgt.device)

    def forward(self, tgt, step=None):
        if step == 0:
            self._init_cache(tgt)
        x = self.embeddings(tgt)
        for layer in self.transformer_layers:
            x = layer(x, step=step or 0)
        return self.generator(x)


def translate(model, prompt, max_new_tokens, device):
    tokens = prompt.to(device)
    logits = model(tokens, step=0)
    step = tokens.size(1)
    for _ in range(max_new_tokens):
        next_token = logits[:, -1:].argmax(-1)
        logits = model(next_token, step=step)
        step += 1
    return logits


def run(device):
    model = TransformerDecoder(vocab=20).to(device)
    model.eval()
    with torch.no_grad():
        translate(model, torch.randint(0, 20, (1, 24)), max_new_tokens=2, device=device)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
