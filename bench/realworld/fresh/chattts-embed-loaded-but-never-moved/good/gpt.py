"""The GPT that borrows the embedding layers (reconstruction of ChatTTS/model/gpt.py)."""

import torch
import torch.nn as nn

from embed import Embed


class GPT(nn.Module):
    def __init__(self, hidden_size, embed: Embed, device=torch.device("cpu"), device_gpt=torch.device("cpu")):
        super().__init__()
        self.device = device
        self.device_gpt = device_gpt
        # the GPT calls the embedding layers it was handed, wherever they are
        self.emb_code = [layer.__call__ for layer in embed.emb_code]
        self.emb_text = embed.emb_text.__call__
        self.head_text = embed.head_text.__call__
        self.gpt = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.GELU())

    def from_pretrained(self):
        self.gpt = self.gpt.to(self.device_gpt)

    @torch.no_grad()
    def generate(self, input_ids, text_mode=True):
        ids = input_ids.to(self.device_gpt)
        if text_mode:
            emb = self.emb_text(ids[:, :, 0])
        else:
            emb = torch.stack([self.emb_code[i](ids[:, :, i]) for i in range(len(self.emb_code))], 3).sum(3)
        hidden = self.gpt(emb.to(self.device_gpt))
        logits = self.head_text(hidden)
        return logits.argmax(-1).to(self.device)
