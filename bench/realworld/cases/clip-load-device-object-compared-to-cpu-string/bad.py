"""Loading a CLIP model on a chosen device (reconstruction of openai/CLIP clip/clip.py load())."""

from typing import Union

import torch
from torch import nn


class TinyCLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.visual = nn.Sequential(nn.Conv2d(3, 8, 4, stride=4), nn.Flatten(), nn.LayerNorm(8 * 4 * 4))
        self.token_embedding = nn.Embedding(100, 16)

    def encode_image(self, image):
        return self.visual(image.type(self.visual[0].weight.dtype))

    def encode_text(self, text):
        return self.token_embedding(text).mean(1)


def build_model(state_dict):
    model = TinyCLIP()
    model.load_state_dict(state_dict)
    model.half()
    return model.eval()


def load(name: str, device: Union[str, torch.device] = "cuda" if torch.cuda.is_available() else "cpu", jit=False):
    state_dict = TinyCLIP().state_dict()
    if not jit:
        model = build_model(state_dict).to(device)
        if device == "cpu":
            model.float()
        return model
    model = torch.jit.script(build_model(state_dict).to(device))
    if device == "cpu":
        model.float()
    return model


if __name__ == "__main__":
    device = torch.device("cpu")
    model = load("ViT-B/32", device=device, jit=False)
    with torch.no_grad():
        print(model.encode_image(torch.rand(1, 3, 16, 16, device=device)).dtype)
