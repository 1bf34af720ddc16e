"""Single-image pose estimation demo (reconstruction of tools/mpii_demo.py of a fast hourglass pose repo)."""

import argparse
import os
from collections import OrderedDict

import numpy as np
import torch
from torch import nn


class HourglassNet(nn.Module):
    def __init__(self, num_stacks=2, num_blocks=1, num_classes=16, mobile=False):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, stride=2, padding=3), nn.BatchNorm2d(16), nn.ReLU(True))
        self.stacks = nn.ModuleList(nn.Conv2d(16, 16, 3, padding=1) for _ in range(num_stacks))
        self.heads = nn.ModuleList(nn.Conv2d(16, num_classes, 1) for _ in range(num_stacks))

    def forward(self, x):
        x = self.stem(x)
        out = []
        for block, head in zip(self.stacks, self.heads):
            x = torch.relu(block(x))
            out.append(head(x))
        return out


def load_model(stacks, blocks, num_classes, mobile, checkpoint_resume):
    model = HourglassNet(num_stacks=stacks, num_blocks=blocks, num_classes=num_classes, mobile=mobile)
    if os.path.isfile(checkpoint_resume):
        checkpoint = torch.load(checkpoint_resume, map_location=lambda storage, loc: storage)
        state = OrderedDict((k[7:], v) for k, v in checkpoint["state_dict"].items())
        model.load_state_dict(state)
    model.eval()
    return model


def post_process_heatmap(heatmap, threshold=0.2):
    kps = []
    for i in range(heatmap.shape[0]):
        m = heatmap[i]
        y, x = np.unravel_index(np.argmax(m), m.shape)
        kps.append((int(x), int(y), float(m[y, x])) if m[y, x] > threshold else (0, 0, 0))
    return np.array(kps)


def inference(model, image, device):
    input_tensor = torch.from_numpy(image).float().to(device)
    model = model.to(device)
    output = model(input_tensor)
    output = output[-1]
    output = output.data.cpu()
    return post_process_heatmap(output[0].numpy())


def main(args):
    model = load_model(args.stacks, args.blocks, args.num_classes, args.mobile, args.checkpoint)
    image = np.random.rand(1, 3, args.in_res, args.in_res)
    with torch.no_grad():
        return inference(model, image, args.device)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-s", "--stacks", default=2, type=int)
    parser.add_argument("-b", "--blocks", default=1, type=int)
    parser.add_argument("--num-classes", default=16, type=int)
    parser.add_argument("--mobile", default=False, type=bool)
    parser.add_argument("--checkpoint", default="model_best.pth.tar", type=str)
    parser.add_argument("--in_res", default=64, type=int)
    parser.add_argument("--device", default="cuda", type=str)
    main(parser.parse_args())
