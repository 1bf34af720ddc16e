"""Shared text/audio-code embeddings and heads (reconstruction of ChatTTS/model/embed.py)."""

import torch
import torch.nn as nn


class Embed(nn.Module):
    def __init__(self, hidden_size, num_audio_tokens, num_text_tokens, num_vq=4):
        super().__init__()
        self.num_vq = num_vq
        self.emb_code = nn.ModuleList(nn.Embedding(num_audio_tokens, hidden_size) for _ in range(num_vq))
        self.emb_text = nn.Embedding(num_text_tokens, hidden_size)
        self.head_text = nn.Linear(hidden_size, num_text_tokens, bias=False)
        self.head_code = nn.ModuleList(
            nn.Linear(hidden_size, num_audio_tokens, bias=False) for _ in range(num_vq)
        )

    @torch.inference_mode()
    def from_pretrained(self, filename):
        tensors = torch.load(filename, map_location="cpu", weights_only=True)
        self.load_state_dict(tensors)
