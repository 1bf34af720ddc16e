"""SpliceOut augmentation (reconstruction of augmentations/spliceout.py)."""

import torch


class SpliceOut(torch.nn.Module):
    """Cuts random intervals out of each example, cross-fading the seams, and pads the end with silence."""

    def __init__(self, num_time_intervals=8, max_width=400, sample_rate=16000):
        super().__init__()
        self.num_time_intervals = num_time_intervals
        self.max_width = max_width
        self.sample_rate = sample_rate
        self.transform_parameters = {}

    def randomize_parameters(self, samples, sample_rate):
        self.transform_parameters["splice_lengths"] = torch.randint(
            low=0, high=int(sample_rate * self.max_width * 1e-3), size=(samples.shape[0], self.num_time_intervals)
        )

    def apply_transform(self, samples, sample_rate):
        spliced = []
        for i in range(samples.shape[0]):
            lengths = self.transform_parameters["splice_lengths"][i]
            sample = samples[i][:, :]
            for j in range(self.num_time_intervals):
                start = torch.randint(0, sample.shape[-1] - lengths[j], size=(1,))
                if lengths[j] % 2 != 0:
                    lengths[j] += 1
                window_len = lengths[j]
                window = torch.hann_window(window_len)
                left, right = window[: window_len // 2], window[window_len // 2:]
                fade_out = sample[:, start: start + lengths[j] // 2]
                fade_in = sample[:, start + lengths[j] // 2: start + lengths[j]]
                crossfade = right * fade_out + left * fade_in
                sample = torch.cat((sample[:, :start], crossfade, sample[:, start + lengths[j]:]), dim=-1)
            padding = torch.zeros((samples[i].shape[0], samples[i].shape[-1] - sample.shape[-1]), dtype=torch.float32)
            sample = torch.cat((sample, padding), dim=-1)
            spliced.append(sample.unsqueeze(0))
        return torch.cat(spliced, dim=0)

    def forward(self, samples):
        self.randomize_parameters(samples, self.sample_rate)
        return self.apply_transform(samples, self.sample_rate)


def main(device):
    augment = SpliceOut(num_time_intervals=2, max_width=20, sample_rate=1000)
    audio = torch.randn(2, 1, 200, device=device)
    return augment(audio)


if __name__ == "__main__":
    main(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
