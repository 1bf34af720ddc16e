"""A BERT-style encoder that moves itself to the configured device (reconstruction of
transformer_lens/HookedEncoder.py and its config)."""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class EncoderConfig:
    d_model: int = 16
    n_layers: int = 2
    n_heads: int = 2
    d_vocab: int = 50
    n_ctx: int = 12
    device: str = "cpu"
    n_devices: int = 1


class BertEmbed(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.d_vocab, cfg.d_model)
        self.pos_embed = nn.Embedding(cfg.n_ctx, cfg.d_model)
        self.token_type_embed = nn.Embedding(2, cfg.d_model)
        self.ln = nn.LayerNorm(cfg.d_model)

    def forward(self, tokens, token_type_ids=None):
        positions = torch.arange(tokens.shape[1], device=tokens.device).expand_as(tokens)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(tokens)
        return self.ln(self.embed(tokens) + self.pos_embed(positions) + self.token_type_embed(token_type_ids))


class BertBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.out = nn.Linear(cfg.d_model, cfg.d_model)
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, 4 * cfg.d_model), nn.GELU(), nn.Linear(4 * cfg.d_model, cfg.d_model))
        self.ln2 = nn.LayerNorm(cfg.d_model)

    def forward(self, resid, additive_attention_mask=None):
        q, k, v = self.qkv(resid).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        if additive_attention_mask is not None:
            scores = scores + additive_attention_mask
        resid = self.ln1(resid + self.out(scores.softmax(-1) @ v))
        return self.ln2(resid + self.mlp(resid))


class HookedEncoder(nn.Module):
    def __init__(self, cfg, move_to_device=True):
        super().__init__()
        self.cfg = cfg
        assert cfg.n_devices == 1, "Multiple devices not supported for HookedEncoder"

        self.embed = BertEmbed(cfg)
        self.blocks = nn.ModuleList([BertBlock(cfg) for _ in range(cfg.n_layers)])
        self.unembed = nn.Linear(cfg.d_model, cfg.d_vocab)
        self.hook_full_embed = nn.Identity()

        # move once every submodule exists
        if move_to_device:
            self.to(self.cfg.device)

    def forward(self, tokens, token_type_ids=None, one_zero_attention_mask=None):
        if tokens.device.type != self.cfg.device:
            tokens = tokens.to(self.cfg.device)
            if one_zero_attention_mask is not None:
                one_zero_attention_mask = one_zero_attention_mask.to(self.cfg.device)
        resid = self.hook_full_embed(self.embed(tokens, token_type_ids))
        additive_attention_mask = None
        if one_zero_attention_mask is not None:
            additive_attention_mask = -1e5 * (1 - one_zero_attention_mask)[:, None, :]
        for block in self.blocks:
            resid = block(resid, additive_attention_mask)
        return self.unembed(resid)


def run(device):
    model = HookedEncoder(EncoderConfig(device=str(device)))
    tokens = torch.randint(0, 50, (2, 7))
    padding = torch.tensor([[1] * 7, [1] * 5 + [0] * 2])
    return model(tokens, one_zero_attention_mask=padding)


if __name__ == "__main__":
    run("cuda" if torch.cuda.is_available() else "cpu")
