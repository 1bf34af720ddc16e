"""Student-t copula h-function via scipy quantiles (reconstruction of torchvinecopulib/util pt_scipy/qt_scipy
and bicop/_studentt.py)."""

import torch
from scipy.stats import t


def pt_scipy(vec, nu):
    if vec.device == "cpu":
        return torch.from_numpy(t.cdf(x=vec, df=nu))
    else:
        return torch.from_numpy(t.cdf(x=vec.cpu(), df=nu)).cuda()


def qt_scipy(vec, nu):
    if vec.device == "cpu":
        return torch.from_numpy(t.ppf(q=vec, df=nu))
    else:
        return torch.from_numpy(t.ppf(q=vec.cpu(), df=nu)).cuda()


pt = pt_scipy
qt = qt_scipy


class StudentT:
    @staticmethod
    def hfunc2_0(obs, par):
        rho, nu = par
        x, y = qt(obs[:, [0]], nu=nu), qt(obs[:, [1]], nu=nu)
        return pt(((x - rho * y) / torch.sqrt((nu + y.square()) * (1 - rho**2) / (nu + 1))), nu=nu + 1)


def fit_example(device="cpu"):
    obs = torch.rand(100, 2, dtype=torch.float64, device=device).clamp(0.01, 0.99)
    return StudentT.hfunc2_0(obs, (0.3, 4.0))


if __name__ == "__main__":
    print(fit_example().shape)
