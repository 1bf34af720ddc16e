"""A Llama-style causal LM and its AWQ adapter (reconstruction of awq/models/llama.py and of the
transformers model it wraps, whose rotary embedding moved up to the model level)."""

import torch
from torch import nn


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, hidden, position_ids):
        freqs = (self.inv_freq[None, :, None] @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(hidden.dtype), emb.sin().to(hidden.dtype)


class DecoderLayer(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.mlp = nn.Linear(hidden, hidden)

    def forward(self, hidden_states, position_embeddings=None):
        cos, sin = position_embeddings
        return self.mlp(hidden_states * cos + hidden_states * sin)


class LlamaModel(nn.Module):
    def __init__(self, vocab=32, hidden=8, layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.rotary_emb = RotaryEmbedding(hidden)
        self.layers = nn.ModuleList(DecoderLayer(hidden) for _ in range(layers))

    def forward(self, input_ids):
        hidden = self.embed_tokens(input_ids)
        position_ids = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        position_embeddings = self.rotary_emb(hidden, position_ids)
        for layer in self.layers:
            hidden = layer(hidden, position_embeddings=position_embeddings)
        return hidden


class LlamaForCausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = LlamaModel()

    def forward(self, input_ids):
        return self.model(input_ids)


class LlamaAWQForCausalLM:
    @staticmethod
    def get_model_layers(model):
        return model.model.layers

    @staticmethod
    def move_embed(model, device):
        model.model.rotary_emb = model.model.rotary_emb.to(device)
        model.model.embed_tokens = model.model.embed_tokens.to(device)
