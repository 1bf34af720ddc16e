"""Batch padding helper of the TorchScript inference path (reconstruction of pytext/torchscript/utils.py and a dense-feature LM module)."""

from typing import List, Optional

import torch
from torch import nn


@torch.jit.script
def pad_length(n: int, padding_control: Optional[List[int]], max_len: int) -> int:
    if padding_control is not None:
        for pad in padding_control:
            if n <= pad:
                return pad
    return n if max_len < 0 else max(n, max_len)


@torch.jit.script
def pad_float_tensor(input_tensor: torch.Tensor, batch_padding_control: Optional[List[int]] = None) -> torch.Tensor:
    """Pad a tensor with zeros along the batch dimension."""
    shape = input_tensor.shape
    bs = shape[0]
    max_batch_len = pad_length(bs, batch_padding_control, -1)
    shape[0] = max_batch_len - bs
    pad_tensor = input_tensor.new_zeros(shape)
    return torch.cat([input_tensor, pad_tensor], 0)


class ScriptableDenseLM(nn.Module):
    def __init__(self, dense_dim=4, hidden=8, batch_padding_control: Optional[List[int]] = None):
        super().__init__()
        self.batch_padding_control = batch_padding_control
        self.dense = nn.Linear(dense_dim, hidden)
        self.out = nn.Linear(hidden, 2)

    def forward(self, dense_feat: torch.Tensor) -> torch.Tensor:
        dense_feat = pad_float_tensor(dense_feat, self.batch_padding_control)
        return self.out(torch.relu(self.dense(dense_feat)))


def run(device):
    model = ScriptableDenseLM(batch_padding_control=[0, 4, 8]).to(device)
    return model(torch.rand(3, 4, device=device))


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
