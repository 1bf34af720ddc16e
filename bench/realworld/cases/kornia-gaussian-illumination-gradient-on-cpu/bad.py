"""Random Gaussian illumination augmentation (reconstruction of kornia's RandomGaussianIllumination)."""

import torch
from torch import nn


def gaussian_1d(size, sigma, mean, device, dtype):
    x = torch.arange(size, device=device, dtype=dtype) - mean
    g = torch.exp(-x.pow(2.0) / (2 * sigma.pow(2.0)))
    return g / g.sum(-1, keepdim=True)


class IlluminationGenerator(nn.Module):
    """Samples parameters on its own device, which stays the CPU unless the augmentation is moved."""

    def __init__(self, gain, center, sigma):
        super().__init__()
        self.gain, self.center, self.sigma = gain, center, sigma
        self.set_rng_device_and_dtype(torch.device("cpu"), torch.float32)

    def set_rng_device_and_dtype(self, device, dtype):
        self.device, self.dtype = device, dtype

    def _uniform(self, low, high, shape):
        return torch.empty(shape, device=self.device, dtype=self.dtype).uniform_(low, high)

    def forward(self, batch_shape):
        b, c, h, w = batch_shape
        gain = self._uniform(*self.gain, (b, 1, 1, 1))
        sigma_x = w * self._uniform(*self.sigma, (b, 1))
        sigma_y = h * self._uniform(*self.sigma, (b, 1))
        center_x = torch.round(w * self._uniform(*self.center, (b, 1)))
        center_y = torch.round(h * self._uniform(*self.center, (b, 1)))
        gx = gaussian_1d(w, sigma_x, center_x, self.device, self.dtype).unsqueeze(1)
        gy = gaussian_1d(h, sigma_y, center_y, self.device, self.dtype).unsqueeze(2)
        gradient = (gy @ gx).unsqueeze_(1).repeat(1, c, 1, 1)
        return {"gradient": gain * gradient}


class IntensityAugmentation(nn.Module):
    def __init__(self, p=1.0):
        super().__init__()
        self.p = p

    def forward(self, input):
        params = self._param_generator(input.shape)
        return self.apply_transform(input.clone(), params, {})


class RandomGaussianIllumination(IntensityAugmentation):
    def __init__(self, gain=(0.01, 0.15), center=(0.1, 0.9), sigma=(0.2, 1.0), p=0.5):
        super().__init__(p=p)
        self._param_generator = IlluminationGenerator(gain, center, sigma)

        def _apply_transform(input, params, flags, transform=None):
            return input.add_(params["gradient"]).clamp_(0, 1)

        self._fn = _apply_transform

    def apply_transform(self, input, params, flags, transform=None):
        return self._fn(input=input, params=params, flags=flags, transform=transform)


def run(device):
    aug = RandomGaussianIllumination(p=1.0)
    images = torch.rand(2, 3, 16, 16, device=device)
    aug(images)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
