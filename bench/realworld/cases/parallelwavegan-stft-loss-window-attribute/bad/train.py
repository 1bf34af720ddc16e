"""GAN vocoder training entry point (reconstruction of parallel_wavegan/bin/train.py)."""

import torch

from stft_loss import MultiResolutionSTFTLoss


class TinyGenerator(torch.nn.Module):
    def __init__(self, aux_channels=4, hop=16):
        super().__init__()
        self.hop = hop
        self.proj = torch.nn.Linear(aux_channels, hop)

    def forward(self, noise, mel):
        return torch.tanh(self.proj(mel.transpose(1, 2)).reshape(mel.size(0), 1, -1) + noise)


class Trainer:
    def __init__(self, data_loader, model, criterion, optimizer, config, device=torch.device("cpu")):
        self.data_loader = data_loader
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.config = config
        self.device = device

    def _train_step(self, batch):
        x, y = batch
        x = tuple([x_.to(self.device) for x_ in x])
        y = y.to(self.device)
        y_ = self.model["generator"](*x)
        sc_loss, mag_loss = self.criterion["stft"](y_.squeeze(1), y.squeeze(1))
        gen_loss = sc_loss + mag_loss
        self.optimizer["generator"].zero_grad()
        gen_loss.backward()
        self.optimizer["generator"].step()

    def run(self):
        for batch in self.data_loader:
            self._train_step(batch)


def main(device_name=None):
    if device_name is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(device_name)
    config = {"stft_loss_params": {"fft_sizes": [64, 128], "hop_sizes": [16, 32], "win_lengths": [48, 96]}}
    model = {"generator": TinyGenerator().to(device)}
    criterion = {
        "stft": MultiResolutionSTFTLoss(**config["stft_loss_params"]).to(device),
        "mse": torch.nn.MSELoss().to(device),
    }
    optimizer = {"generator": torch.optim.Adam(model["generator"].parameters(), lr=1e-4)}
    batches = [((torch.randn(2, 1, 256), torch.randn(2, 4, 16)), torch.randn(2, 1, 256))]
    Trainer(batches, model, criterion, optimizer, config, device=device).run()


def run(device):
    main(device_name=str(device))


if __name__ == "__main__":
    main()
