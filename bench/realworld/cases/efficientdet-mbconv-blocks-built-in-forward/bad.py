"""EfficientNet backbone feeding a detector (reconstruction of EfficientDet.Pytorch models/efficientnet.py)."""

import argparse
from collections import namedtuple

import torch
import torch.nn.functional as F
from torch import nn

BlockArgs = namedtuple("BlockArgs", ["num_repeat", "kernel_size", "stride", "input_filters", "output_filters"])
GlobalParams = namedtuple("GlobalParams", ["width", "depth", "drop_connect_rate"])


def round_filters(filters, gp):
    return int(filters * gp.width)


def round_repeats(repeats, gp):
    return int(repeats * gp.depth)


class MBConvBlock(nn.Module):
    def __init__(self, block_args, global_params):
        super().__init__()
        self._block_args = block_args
        inp, oup = block_args.input_filters, block_args.output_filters
        self._depthwise_conv = nn.Conv2d(inp, inp, block_args.kernel_size, block_args.stride,
                                         padding=block_args.kernel_size // 2, groups=inp, bias=False)
        self._bn1 = nn.BatchNorm2d(inp)
        self._project_conv = nn.Conv2d(inp, oup, 1, bias=False)
        self._bn2 = nn.BatchNorm2d(oup)

    def forward(self, inputs, drop_connect_rate=None):
        x = F.silu(self._bn1(self._depthwise_conv(inputs)))
        x = self._bn2(self._project_conv(x))
        if self._block_args.stride == 1 and self._block_args.input_filters == self._block_args.output_filters:
            x = x + inputs
        return x


class EfficientNet(nn.Module):
    def __init__(self, blocks_args, global_params):
        super().__init__()
        self._global_params = global_params
        self._blocks_args = blocks_args
        out_channels = round_filters(32, global_params)
        self._conv_stem = nn.Conv2d(3, out_channels, 3, stride=2, padding=1, bias=False)
        self._bn0 = nn.BatchNorm2d(out_channels)
        self._blocks = nn.ModuleList([])
        for block_args in self._blocks_args:
            block_args = block_args._replace(
                input_filters=round_filters(block_args.input_filters, global_params),
                output_filters=round_filters(block_args.output_filters, global_params),
                num_repeat=round_repeats(block_args.num_repeat, global_params),
            )
            self._blocks.append(MBConvBlock(block_args, global_params))
            if block_args.num_repeat > 1:
                block_args = block_args._replace(input_filters=block_args.output_filters, stride=1)
            for _ in range(block_args.num_repeat - 1):
                self._blocks.append(MBConvBlock(block_args, global_params))

    def extract_features(self, inputs):
        P = []
        x = F.silu(self._bn0(self._conv_stem(inputs)))
        drop_connect_rate = self._global_params.drop_connect_rate
        idx = 0
        for block_args in self._blocks_args:
            if drop_connect_rate:
                drop_connect_rate *= float(idx) / len(self._blocks)
            block_args = block_args._replace(
                input_filters=round_filters(block_args.input_filters, self._global_params),
                output_filters=round_filters(block_args.output_filters, self._global_params),
                num_repeat=round_repeats(block_args.num_repeat, self._global_params),
            )
            x = MBConvBlock(block_args, self._global_params)(x, drop_connect_rate=drop_connect_rate)
            idx += 1
            if block_args.num_repeat > 1:
                block_args = block_args._replace(input_filters=block_args.output_filters, stride=1)
            for _ in range(block_args.num_repeat - 1):
                x = MBConvBlock(block_args, self._global_params)(x, drop_connect_rate=drop_connect_rate)
                idx += 1
            P.append(x)
        return P

    def forward(self, inputs):
        return self.extract_features(inputs)


class EfficientDet(nn.Module):
    def __init__(self, num_classes=21):
        super().__init__()
        blocks = [BlockArgs(1, 3, 1, 32, 16), BlockArgs(2, 3, 2, 16, 24), BlockArgs(2, 5, 2, 24, 40)]
        self.efficientnet = EfficientNet(blocks, GlobalParams(1.0, 1.0, 0.2))
        self.classifier = nn.Conv2d(40, num_classes, 3, padding=1)

    def forward(self, inputs):
        features = self.efficientnet(inputs)
        return self.classifier(features[-1])


def train(args):
    device = args.device
    model = EfficientDet(num_classes=args.num_class).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    images = torch.rand(2, 3, 64, 64).to(device)
    loss = model(images).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def run(device):
    train(argparse.Namespace(device=device, num_class=21))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_class", default=21, type=int)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    train(parser.parse_args())
