"""Text-to-speech inference interface (reconstruction of PortaSpeechInterface and InferencePortaSpeech)."""

import torch
from torch import nn

from glow import InvConvNear


class PostGlow(nn.Module):
    def __init__(self, channels=8, n_blocks=2):
        super().__init__()
        self.flows = nn.ModuleList([InvConvNear(channels) for _ in range(n_blocks)])

    def forward(self, x, reverse=False):
        for flow in (reversed(self.flows) if reverse else self.flows):
            x = flow(x, reverse=reverse)
        return x


class PortaSpeech(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.encoder = nn.Linear(channels, channels)
        self.post_flow = PostGlow(channels)

    def forward(self, text, noise):
        mel = self.encoder(text).transpose(1, 2)
        return self.post_flow(mel + noise, reverse=True)

    def store_inverse_all(self):
        def prepare(module):
            if hasattr(module, "store_inverse"):
                module.store_inverse()

        self.apply(prepare)


class PortaSpeechInterface(nn.Module):
    def __init__(self, device="cpu"):
        super().__init__()
        self.device = device
        self.phone2mel = PortaSpeech()
        with torch.no_grad():
            self.phone2mel.store_inverse_all()
        self.phone2mel = self.phone2mel.to(torch.device(device))
        self.phone2mel.eval()

    def forward(self, text):
        with torch.inference_mode():
            text = text.to(self.device)
            noise = torch.randn(text.size(0), text.size(2), text.size(1), device=self.device)
            return self.phone2mel(text, noise)


if __name__ == "__main__":
    tts = PortaSpeechInterface(device="cuda" if torch.cuda.is_available() else "cpu")
    print(tts(torch.rand(1, 6, 8)).shape)
