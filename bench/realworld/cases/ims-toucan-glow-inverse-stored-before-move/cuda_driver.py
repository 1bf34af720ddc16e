"""IMS-Toucan's inference interface was built with device="cuda" and called with a phoneme tensor from the CPU text
frontend; in bad the Glow post-net's cached inverse weight (a plain attribute stored before the model was moved)
stays on the CPU, so the reverse flow's conv2d gets a GPU input and a CPU weight."""

import torch


def run(program, device):
    torch.manual_seed(0)
    tts = program["PortaSpeechInterface"](device=str(device))
    phonemes = torch.rand(1, 5, 8)
    mel = tts(phonemes)
    assert mel.shape == (1, 8, 5)
