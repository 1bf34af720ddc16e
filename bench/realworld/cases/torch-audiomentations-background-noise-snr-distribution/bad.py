"""AddBackgroundNoise augmentation (reconstruction of background_noise.py and the base transform)."""

import torch
from torch.distributions import Bernoulli


def calculate_rms(samples):
    return torch.sqrt(torch.mean(torch.square(samples), dim=-1))


class BaseWaveformTransform(torch.nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
        self.transform_parameters = {}
        self.bernoulli_distribution = Bernoulli(p)

    def forward(self, samples, sample_rate=None):
        if not self.training:
            return samples
        self.transform_parameters = {
            "should_apply": self.bernoulli_distribution.sample(sample_shape=(samples.shape[0],)).to(torch.bool)
        }
        if self.transform_parameters["should_apply"].any():
            cloned = samples.clone()
            selected = cloned[self.transform_parameters["should_apply"]]
            self.randomize_parameters(selected, sample_rate)
            cloned[self.transform_parameters["should_apply"]] = self.apply_transform(selected, sample_rate)
            return cloned
        return samples


class AddBackgroundNoise(BaseWaveformTransform):
    def __init__(self, noise_bank, min_snr_in_db=3.0, max_snr_in_db=30.0, p=0.5):
        super().__init__(p)
        self.noise_bank = noise_bank
        self.min_snr_in_db = min_snr_in_db
        self.max_snr_in_db = max_snr_in_db
        if self.min_snr_in_db > self.max_snr_in_db:
            raise ValueError("min_snr_in_db must not be greater than max_snr_in_db")
        self.snr_distribution = torch.distributions.Uniform(low=min_snr_in_db, high=max_snr_in_db, validate_args=True)

    def random_background(self, target_num_samples):
        piece = self.noise_bank[torch.randint(len(self.noise_bank), ()).item()][:target_num_samples]
        return piece / calculate_rms(piece)

    def randomize_parameters(self, selected_samples, sample_rate=None):
        batch_size, _, num_samples = selected_samples.shape
        self.transform_parameters["background"] = torch.stack(
            [self.random_background(num_samples) for _ in range(batch_size)]
        )
        self.transform_parameters["snr_in_db"] = self.snr_distribution.sample(sample_shape=(batch_size,))

    def apply_transform(self, selected_samples, sample_rate=None):
        batch_size, num_channels, num_samples = selected_samples.shape
        background = self.transform_parameters["background"].to(selected_samples.device)
        background_rms = calculate_rms(selected_samples) / (
            10 ** (self.transform_parameters["snr_in_db"].unsqueeze(dim=-1) / 20)
        )
        return selected_samples + background_rms.unsqueeze(-1) * background.view(batch_size, 1, num_samples).expand(
            -1, num_channels, -1
        )


def main(device):
    noise_bank = [torch.randn(64) for _ in range(3)]  # stands in for noise files read from disk
    augment = AddBackgroundNoise(noise_bank, p=1.0)
    audio = torch.randn(4, 1, 32, device=device)
    return augment(audio, sample_rate=16000)


def run(device):
    main(device)


if __name__ == "__main__":
    main(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
