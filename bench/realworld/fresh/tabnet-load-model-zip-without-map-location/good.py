"""Saving and loading a TabNet estimator as a zip archive (reconstruction of pytorch_tabnet/abstract_model.py)."""

import io
import json
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn


@dataclass
class TabModel:
    n_d: int = 8
    n_a: int = 8
    input_dim: int = 10
    output_dim: int = 2
    device_name: str = "auto"

    def __post_init__(self):
        if self.device_name == "auto":
            device_name = "cuda" if torch.cuda.is_available() else "cpu"
        else:
            device_name = self.device_name
        self.device = torch.device(device_name)
        self.network = None

    def get_params(self):
        return {"n_d": self.n_d, "n_a": self.n_a, "input_dim": self.input_dim,
                "output_dim": self.output_dim, "device_name": self.device_name}

    def _set_network(self):
        self.network = nn.Sequential(nn.Linear(self.input_dim, self.n_d + self.n_a), nn.ReLU(),
                                     nn.Linear(self.n_d + self.n_a, self.output_dim)).to(self.device)

    def save_model(self, path):
        Path(path).mkdir(parents=True, exist_ok=True)
        with open(Path(path).joinpath("model_params.json"), "w", encoding="utf8") as f:
            json.dump(self.get_params(), f)
        torch.save(self.network.state_dict(), Path(path).joinpath("network.pt"))
        shutil.make_archive(path, "zip", path)
        shutil.rmtree(path)
        return f"{path}.zip"

    def load_model(self, filepath):
        try:
            with zipfile.ZipFile(filepath) as z:
                with z.open("model_params.json") as f:
                    loaded_params = json.load(f)
                with z.open("network.pt") as f:
                    try:
                        saved_state_dict = torch.load(f, map_location=self.device)
                    except io.UnsupportedOperation:
                        # older Pythons give a non-seekable member: buffer it first
                        saved_state_dict = torch.load(io.BytesIO(f.read()), map_location=self.device)
        except KeyError:
            raise KeyError("Your zip file is missing at least one component")
        self.__init__(**loaded_params)
        self._set_network()
        self.network.load_state_dict(saved_state_dict)
        self.network.eval()


def main(saved_zip="tabnet_model.zip"):
    # a model trained and saved on a GPU machine, loaded for inference on a CPU-only one
    clf = TabModel(device_name="cpu")
    clf.load_model(saved_zip)
    return clf.network(torch.rand(3, 10))


if __name__ == "__main__":
    main()
