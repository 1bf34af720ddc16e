"""Loss registry (reconstruction of biotrainer/losses/__init__.py)."""

from typing import Optional, Union

import torch
from torch import nn

PAD_VALUE = -100

_LOSSES = {
    "residue_to_class": {
        "cross_entropy_loss": lambda **kw: nn.CrossEntropyLoss(**kw, ignore_index=PAD_VALUE),
    },
    "sequence_to_class": {
        "cross_entropy_loss": lambda **kw: nn.CrossEntropyLoss(**kw, ignore_index=PAD_VALUE),
    },
    "sequence_to_value": {
        "mean_squared_error": lambda **kw: nn.MSELoss(**kw),
    },
}


def get_loss(protocol: str, loss_choice: str, device: Union[str, torch.device],
             weight: Optional[torch.Tensor] = None):
    factory = _LOSSES.get(protocol).get(loss_choice)
    if not factory:
        raise NotImplementedError
    if weight is not None:
        return factory(weight=weight).to(device)
    return factory().to(device)
