"""Base class that restores a depth network from a checkpoint (reconstruction of midas/base_model.py)."""

import torch


class BaseModel(torch.nn.Module):
    def load(self, path):
        params = torch.load(path, map_location=torch.device("cpu"))
        if "optimizer" in params:
            params = params["model"]
        self.load_state_dict(params)
