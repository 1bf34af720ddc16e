"""Hierarchical VAE generator training loop (reconstruction of train_generator.py and the decoder)."""

import argparse

import numpy as np
import torch
from torch import nn


def hit_rate_binary(scores, labels):
    preds = torch.ge(scores, 0).long()
    return torch.eq(preds, labels).float().sum() / labels.nelement()


def hit_rate(scores, labels):
    preds = scores.argmax(dim=-1)
    return torch.eq(preds, labels).float().sum() / labels.nelement()


class TreeDecoder(nn.Module):
    def __init__(self, hidden, vocab):
        super().__init__()
        self.topo_head = nn.Linear(hidden, 1)
        self.cls_head = nn.Linear(hidden, vocab)
        self.icls_head = nn.Linear(hidden, vocab)

    def forward(self, root_vecs, topo_labels, cls_labels, assm_pairs):
        topo_scores = self.topo_head(root_vecs).squeeze(-1)
        cls_scores = self.cls_head(root_vecs)
        icls_scores = self.icls_head(root_vecs)
        loss = nn.functional.binary_cross_entropy_with_logits(topo_scores, topo_labels.float())
        loss = loss + nn.functional.cross_entropy(cls_scores, cls_labels)
        topo_acc = hit_rate_binary(topo_scores, topo_labels)
        cls_acc = hit_rate(cls_scores, cls_labels)
        icls_acc = hit_rate(icls_scores, cls_labels)
        if assm_pairs:
            assm_acc = hit_rate(cls_scores, cls_labels)
        else:
            assm_acc = 1
        return loss, cls_acc, icls_acc, topo_acc, assm_acc


class HierVAE(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.encoder = nn.Linear(args.feat, args.hidden)
        self.decoder = TreeDecoder(args.hidden, args.vocab)

    def forward(self, feats, topo_labels, cls_labels, beta):
        root_vecs = self.encoder(feats)
        kl_div = root_vecs.pow(2).mean()
        loss, wacc, iacc, tacc, sacc = self.decoder(root_vecs, topo_labels, cls_labels, assm_pairs=True)
        return loss + beta * kl_div, kl_div.item(), wacc, iacc, tacc, sacc


def main(args):
    model = HierVAE(args).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    meters = np.zeros(6)
    beta = 0.0
    for _ in range(args.steps):
        batch = (torch.randn(8, args.feat).cuda(), torch.randint(0, 2, (8,)).cuda(), torch.randint(0, args.vocab, (8,)).cuda())
        model.zero_grad()
        loss, kl_div, wacc, iacc, tacc, sacc = model(*batch, beta=beta)
        loss.backward()
        optimizer.step()
        meters = meters + np.array([kl_div, loss.item(), wacc.cpu() * 100, iacc.cpu() * 100, tacc.cpu() * 100, sacc.cpu() * 100])
    return meters / args.steps


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--feat", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--vocab", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3)
    print(main(parser.parse_args()))
