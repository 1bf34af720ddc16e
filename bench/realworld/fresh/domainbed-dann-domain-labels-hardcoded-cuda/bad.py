"""Domain-adversarial training step (reconstruction of domainbed/algorithms.py: AbstractDANN, and of the
train.py loop that drives it)."""

import torch
import torch.nn.functional as F
from torch import autograd, nn


class AbstractDANN(nn.Module):
    def __init__(self, in_features, num_classes, num_domains, hparams, conditional, class_balance):
        super().__init__()
        self.hparams = hparams
        self.register_buffer("update_count", torch.tensor([0]))
        self.conditional = conditional
        self.class_balance = class_balance
        self.featurizer = nn.Sequential(nn.Linear(in_features, 16), nn.ReLU())
        self.classifier = nn.Linear(16, num_classes)
        self.discriminator = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, num_domains))
        self.class_embeddings = nn.Embedding(num_classes, 16)
        self.disc_opt = torch.optim.Adam(
            list(self.discriminator.parameters()) + list(self.class_embeddings.parameters()), lr=hparams["lr_d"])
        self.gen_opt = torch.optim.Adam(
            list(self.featurizer.parameters()) + list(self.classifier.parameters()), lr=hparams["lr_g"])

    def update(self, minibatches):
        self.update_count += 1
        all_x = torch.cat([x for x, y in minibatches])
        all_y = torch.cat([y for x, y in minibatches])
        all_z = self.featurizer(all_x)
        disc_input = all_z + self.class_embeddings(all_y) if self.conditional else all_z
        disc_out = self.discriminator(disc_input)
        # one domain label per example, domain i for the i-th minibatch
        disc_labels = torch.cat([
            torch.full((x.shape[0],), i, dtype=torch.int64, device="cuda")
            for i, (x, y) in enumerate(minibatches)
        ])

        if self.class_balance:
            y_counts = F.one_hot(all_y).sum(dim=0)
            weights = 1.0 / (y_counts[all_y] * y_counts.shape[0]).float()
            disc_loss = (weights * F.cross_entropy(disc_out, disc_labels, reduction="none")).sum()
        else:
            disc_loss = F.cross_entropy(disc_out, disc_labels)

        input_grad = autograd.grad(F.softmax(disc_out, dim=1)[:, disc_labels].sum(), [disc_input],
                                   create_graph=True)[0]
        disc_loss = disc_loss + self.hparams["grad_penalty"] * (input_grad ** 2).sum(dim=1).mean(dim=0)

        if self.update_count.item() % 2 == 0:
            self.disc_opt.zero_grad()
            disc_loss.backward()
            self.disc_opt.step()
            return {"disc_loss": disc_loss.item()}
        gen_loss = F.cross_entropy(self.classifier(all_z), all_y) - self.hparams["lambda"] * disc_loss
        self.disc_opt.zero_grad()
        self.gen_opt.zero_grad()
        gen_loss.backward()
        self.gen_opt.step()
        return {"gen_loss": gen_loss.item()}


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    hparams = {"lr_d": 1e-3, "lr_g": 1e-3, "grad_penalty": 0.1, "lambda": 1.0}
    algorithm = AbstractDANN(8, 3, 2, hparams, conditional=True, class_balance=False)
    algorithm.to(device)
    domains = [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(2)]
    for step in range(2):
        minibatches = [(x.to(device), y.to(device)) for x, y in domains]
        algorithm.update(minibatches)


if __name__ == "__main__":
    main()
