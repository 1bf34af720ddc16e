"""Loading of the ChatTTS components (reconstruction of ChatTTS/core.py: Chat._load)."""

import os
import tempfile

import torch

from embed import Embed
from gpt import GPT


class Config:
    hidden_size = 8
    num_audio_tokens = 12
    num_text_tokens = 20
    num_vq = 2


class Chat:
    def __init__(self):
        self.config = Config()

    @torch.no_grad()
    def _load(self, embed_path, device=None):
        if device is None:
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.device = device
        self.device_gpt = device if "mps" not in str(device) else torch.device("cpu")

        embed = Embed(
            self.config.hidden_size,
            self.config.num_audio_tokens,
            self.config.num_text_tokens,
            self.config.num_vq,
        )
        embed.from_pretrained(embed_path, device=self.device)
        self.embed = embed.to(self.device)

        gpt = GPT(self.config.hidden_size, embed=self.embed, device=device, device_gpt=self.device_gpt).eval()
        gpt.from_pretrained()
        self.gpt = gpt
        return True

    def infer(self, input_ids):
        return self.gpt.generate(input_ids)


def run(device):
    c = Config()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "embed.pt")
        torch.save(Embed(c.hidden_size, c.num_audio_tokens, c.num_text_tokens, c.num_vq).state_dict(), path)
        chat = Chat()
        chat._load(embed_path=path, device=device)
    return chat.infer(torch.randint(0, 12, (1, 5, c.num_vq)))


if __name__ == "__main__":
    run(None)
