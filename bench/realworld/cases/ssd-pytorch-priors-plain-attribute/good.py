"""SSD detector evaluation (reconstruction of ssd.pytorch ssd.py, layers/functions/detection.py and test.py)."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class PriorBox:
    def __init__(self, feature_maps=(4, 2), image_size=32):
        self.feature_maps, self.image_size = feature_maps, image_size

    def forward(self):
        boxes = []
        for f in self.feature_maps:
            for i in range(f):
                for j in range(f):
                    boxes.append([(j + 0.5) / f, (i + 0.5) / f, 1.0 / f, 1.0 / f])
        return torch.tensor(boxes).clamp_(max=1, min=0)


def decode(loc, priors, variances):
    boxes = torch.cat(
        (priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:], priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1])), 1
    )
    boxes[:, :2] -= boxes[:, 2:] / 2
    boxes[:, 2:] += boxes[:, :2]
    return boxes


class Detect:
    def __init__(self, num_classes, top_k, conf_thresh):
        self.num_classes, self.top_k, self.conf_thresh = num_classes, top_k, conf_thresh
        self.variance = [0.1, 0.2]

    def __call__(self, loc_data, conf_data, prior_data):
        num = loc_data.size(0)
        conf_preds = conf_data.view(num, prior_data.size(0), self.num_classes).transpose(2, 1)
        output = []
        for i in range(num):
            decoded_boxes = decode(loc_data[i], prior_data, self.variance)
            for cl in range(1, self.num_classes):
                scores, ids = conf_preds[i, cl].topk(min(self.top_k, prior_data.size(0)))
                keep = scores > self.conf_thresh
                output.append(torch.cat((scores[keep, None], decoded_boxes[ids[keep]]), 1))
        return output


class SSD(nn.Module):
    def __init__(self, phase, num_classes):
        super().__init__()
        self.phase = phase
        self.num_classes = num_classes
        self.priorbox = PriorBox()
        self.priors = self.priorbox.forward()
        self.base = nn.ModuleList([nn.Conv2d(3, 8, 3, stride=8, padding=1), nn.Conv2d(8, 8, 3, stride=2, padding=1)])
        self.loc = nn.ModuleList([nn.Conv2d(8, 4, 1), nn.Conv2d(8, 4, 1)])
        self.conf = nn.ModuleList([nn.Conv2d(8, num_classes, 1), nn.Conv2d(8, num_classes, 1)])
        if phase == "test":
            self.softmax = nn.Softmax(dim=-1)
            self.detect = Detect(num_classes, 200, 0.01)

    def forward(self, x):
        sources, loc, conf = [], [], []
        for layer in self.base:
            x = F.relu(layer(x))
            sources.append(x)
        for s, l, c in zip(sources, self.loc, self.conf):
            loc.append(l(s).permute(0, 2, 3, 1).contiguous())
            conf.append(c(s).permute(0, 2, 3, 1).contiguous())
        loc = torch.cat([o.view(o.size(0), -1) for o in loc], 1)
        conf = torch.cat([o.view(o.size(0), -1) for o in conf], 1)
        if self.phase == "test":
            return self.detect(loc.view(loc.size(0), -1, 4), self.softmax(conf.view(-1, self.num_classes)), self.priors.type_as(x))
        return loc.view(loc.size(0), -1, 4), conf.view(conf.size(0), -1, self.num_classes), self.priors


def build_ssd(phase, num_classes=21):
    return SSD(phase, num_classes)


def test_net(net, cuda, testset):
    results = []
    for img in testset:
        x = img.unsqueeze(0)
        if cuda:
            x = x.cuda()
        results.append(net(x))
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", default=False, type=bool)
    args = parser.parse_args()
    net = build_ssd("test", 21)
    net.eval()
    if args.cuda:
        net = net.cuda()
    test_net(net, args.cuda, [torch.rand(3, 32, 32)])
