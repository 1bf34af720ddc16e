"""Fine-tune a GPT for spam classification (reconstruction of the chapter 6 script)."""

import argparse

import torch
from torch import nn


class TinyGPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.trf_blocks = nn.Sequential(*[nn.Linear(cfg["emb_dim"], cfg["emb_dim"]) for _ in range(cfg["n_layers"])])
        self.final_norm = nn.LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, idx):
        x = self.trf_blocks(self.tok_emb(idx))
        return self.out_head(self.final_norm(x))


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)[:, -1, :]
    return nn.functional.cross_entropy(logits, target_batch)


def train_classifier(model, batches, optimizer, device):
    model.train()
    for input_batch, target_batch in batches:
        optimizer.zero_grad()
        loss = calc_loss_batch(input_batch, target_batch, model, device)
        loss.backward()
        optimizer.step()


def main(test_mode, device_name=None):
    base_config = {"vocab_size": 50, "emb_dim": 16, "n_layers": 2}
    if test_mode:
        model = TinyGPT(base_config)
        model.eval()
        device = "cpu"
        model.to(device)
    else:
        model = TinyGPT(base_config)
        model.eval()
        device = torch.device(device_name or ("cuda" if torch.cuda.is_available() else "cpu"))
        model.to(device)

    for param in model.parameters():
        param.requires_grad = False
    num_classes = 2
    model.out_head = nn.Linear(in_features=base_config["emb_dim"], out_features=num_classes)
    for param in model.final_norm.parameters():
        param.requires_grad = True

    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    batches = [(torch.randint(0, 50, (4, 6)), torch.randint(0, 2, (4,)))]
    train_classifier(model, batches, optimizer, device)


def run(device):
    main(test_mode=False, device_name=str(device))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--test_mode", action="store_true")
    main(parser.parse_args().test_mode)
