"""Synthetic-data example for CEVAE (reconstruction of examples/contrib/cevae/synthetic.py)."""

import argparse

import torch

from cevae import CEVAE


def generate_data(args):
    z = torch.distributions.Bernoulli(0.5).sample([args.num_data])
    x = torch.distributions.Normal(z, 5 * z + 3 * (1 - z)).sample([args.feature_dim]).t()
    t = torch.distributions.Bernoulli(0.75 * z + 0.25 * (1 - z)).sample()
    y = torch.distributions.Bernoulli(torch.sigmoid(3 * (z + 2 * (2 * t - 2)))).sample()
    return x, t, y


def main(args):
    if args.cuda:
        torch.set_default_tensor_type("torch.cuda.FloatTensor")
    x_train, t_train, y_train = generate_data(args)
    cevae = CEVAE(feature_dim=args.feature_dim)
    return cevae.fit(x_train, t_train, y_train, num_epochs=args.num_epochs, batch_size=args.batch_size)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-data", default=100, type=int)
    parser.add_argument("--feature-dim", default=5, type=int)
    parser.add_argument("--num-epochs", default=2, type=int)
    parser.add_argument("--batch-size", default=10, type=int)
    parser.add_argument("--cuda", action="store_true")
    main(parser.parse_args())
