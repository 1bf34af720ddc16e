"""Audio-to-text pipeline loading (reconstruction of runner/app/pipelines/audio_to_text.py and
pipelines/utils get_torch_device)."""

import os

import torch
from torch import nn


def get_torch_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    elif torch.backends.mps.is_available():
        return torch.device("mps")
    else:
        return torch.device("cpu")


def load_speech_model(model_id, torch_dtype=torch.float32, variant=None):
    model = nn.Sequential(nn.Linear(80, 64), nn.GELU(), nn.Linear(64, 32))
    return model.to(dtype=torch_dtype)


class AudioToTextPipeline:
    def __init__(self, model_id, cached_files=()):
        self.model_id = model_id
        kwargs = {}
        torch_device = get_torch_device()
        has_fp16_variant = any(".fp16.safetensors" in fname for fname in cached_files)
        if torch_device.type != "cpu" and has_fp16_variant:
            kwargs["torch_dtype"] = torch.float16
            kwargs["variant"] = "fp16"
        if os.environ.get("BFLOAT16"):
            kwargs["torch_dtype"] = torch.bfloat16
        self.model = load_speech_model(model_id, **kwargs).to(torch_device)
        self.device = torch_device

    def __call__(self, features):
        param = next(self.model.parameters())
        return self.model(features.to(self.device, param.dtype))


if __name__ == "__main__":
    pipe = AudioToTextPipeline("openai/whisper-large-v3", cached_files=["model.fp16.safetensors"])
    print(pipe(torch.randn(2, 80)).dtype)
