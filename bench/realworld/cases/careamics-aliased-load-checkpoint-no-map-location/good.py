"""Loading a pretrained denoiser from a Lightning checkpoint (reconstruction of
careamics/model_io/model_io_utils.py and CAREamist.__init__)."""

from pathlib import Path

import torch
from torch import nn


class CAREamicsModule(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.net = nn.Sequential(*[nn.Conv2d(1, 1, 3, padding=1) for _ in range(depth)])

    @classmethod
    def load_from_checkpoint(cls, checkpoint):
        model = cls(**checkpoint["hyper_parameters"]["model"])
        model.load_state_dict(checkpoint["state_dict"])
        return model


def load_pretrained(path):
    path = Path(path)
    if path.suffix == ".ckpt":
        return _load_checkpoint(path)
    elif path.suffix == ".zip":
        raise NotImplementedError("BioImage Model Zoo archives")
    else:
        raise ValueError(f"Invalid model format. Expected .ckpt or .zip, got {path.suffix}.")


def _load_checkpoint(path):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    checkpoint = torch.load(path, map_location=device)
    try:
        cfg_dict = checkpoint["hyper_parameters"]
    except KeyError as e:
        raise ValueError("Invalid checkpoint file. No `hyper_parameters` found.") from e
    model = CAREamicsModule.load_from_checkpoint(checkpoint)
    return model, cfg_dict


class CAREamist:
    def __init__(self, source):
        if isinstance(source, (str, Path)):
            self.model, self.cfg = load_pretrained(source)
        else:
            self.model, self.cfg = CAREamicsModule(), {}


if __name__ == "__main__":
    CAREamist(Path("sem_n2v_1epoch.ckpt"))
