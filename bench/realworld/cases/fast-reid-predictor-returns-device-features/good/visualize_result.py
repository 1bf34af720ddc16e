"""Rank-list visualisation entry point (reconstruction of demo/visualize_result.py)."""

import argparse

import numpy as np
import torch

from predictor import FeatureExtractionDemo


def build_test_loader(num_batches=3, batch_size=4):
    return [
        {
            "images": torch.randn(batch_size, 3, 8, 4),
            "targets": torch.randint(0, 5, (batch_size,)),
            "camids": torch.randint(0, 2, (batch_size,)),
        }
        for _ in range(num_batches)
    ]


def main(args):
    cfg = {"in_dim": 3 * 8 * 4, "feat_dim": 16, "device": args.device}
    test_loader = build_test_loader()
    num_query = 4
    demo = FeatureExtractionDemo(cfg)

    feats, pids, camids = [], [], []
    for feat, pid, camid in demo.run_on_loader(test_loader):
        feats.append(feat)
        pids.extend(pid)
        camids.extend(camid)

    feats = torch.cat(feats, dim=0)
    q_feat = feats[:num_query]
    g_feat = feats[num_query:]
    q_pids = np.asarray(pids[:num_query])
    g_pids = np.asarray(pids[num_query:])

    distmat = 1 - torch.mm(q_feat, g_feat.t())
    distmat = distmat.numpy()
    ranks = np.argsort(distmat, axis=1)
    return (g_pids[ranks] == q_pids[:, None]).mean()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    main(parser.parse_args())
