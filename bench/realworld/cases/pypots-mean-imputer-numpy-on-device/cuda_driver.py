"""PyPOTS users passed a torch tensor with missing values that already lived on the GPU to Mean().predict; in bad the
torch branch turns the per-feature means into numpy with .numpy(), which a CUDA tensor refuses."""

import torch


def run(program, device):
    torch.manual_seed(0)
    X = torch.randn(3, 4, 2)
    X[0, 1, 0] = float("nan")
    X[2, 3, 1] = float("nan")
    X = X.to(device)
    out = program["Mean"]().predict({"X": X})["imputation"]
    assert out.shape == (3, 4, 2)
    assert not torch.isnan(out).any()
