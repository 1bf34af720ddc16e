"""Instance segmentation training over several GPUs (reconstruction of yolact train.py and MultiBoxLoss)."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", default=True, type=lambda s: s.lower() in ("yes", "true", "1"))
parser.add_argument("--batch_size", default=8, type=int)


class ScatterWrapper:
    """Keeps python lists of targets intact through a DataParallel scatter: only an index mask is scattered."""

    def __init__(self, *args):
        self.args = args
        self.batch_size = len(args[0])

    def make_mask(self, use_cuda):
        out = torch.Tensor(list(range(self.batch_size)))
        return out.cuda() if use_cuda else out

    def get_args(self, mask):
        device = mask.device
        mask = [int(x) for x in mask]
        out_args = [[] for _ in self.args]
        for out, arg in zip(out_args, self.args):
            for idx in mask:
                x = arg[idx]
                if isinstance(x, torch.Tensor):
                    x = x.to(device)
                out.append(x)
        return out_args


class MultiBoxLoss(nn.Module):
    def forward(self, predictions, wrapper, wrapper_mask):
        loc_data, conf_data = predictions
        targets, masks = wrapper.get_args(wrapper_mask)
        loss_l, loss_c = 0, 0
        for i, (truth, mask) in enumerate(zip(targets, masks)):
            loss_l = loss_l + F.smooth_l1_loss(loc_data[i, : truth.size(0)], truth[:, :4], reduction="sum")
            labels = truth[:, 4].long()
            loss_c = loss_c + F.cross_entropy(conf_data[i, : truth.size(0)], labels, reduction="sum")
        return loss_l.view(1), loss_c.view(1)


class TinyYolact(nn.Module):
    def __init__(self, num_priors=16, num_classes=3):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, stride=8, padding=1)
        self.loc = nn.Linear(8, num_priors * 4)
        self.conf = nn.Linear(8, num_priors * num_classes)
        self.num_priors, self.num_classes = num_priors, num_classes

    def forward(self, x):
        f = self.backbone(x).mean(dim=(2, 3))
        return self.loc(f).view(-1, self.num_priors, 4), self.conf(f).view(-1, self.num_priors, self.num_classes)


def prepare_data(datum, use_cuda):
    images, (targets, masks) = datum
    if use_cuda:
        images = images.cuda()
        targets = [ann.cuda() for ann in targets]
        masks = [mask.cuda() for mask in masks]
    return images, targets, masks


def train(args):
    net = TinyYolact()
    criterion = MultiBoxLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    if args.cuda:
        net = nn.DataParallel(net).cuda()
        criterion = nn.DataParallel(criterion).cuda()
    n = args.batch_size
    targets = [torch.cat([torch.rand(2, 4), torch.randint(0, 3, (2, 1)).float()], 1) for _ in range(n)]
    masks = [torch.zeros(2, 16, 16) for _ in range(n)]
    datum = (torch.rand(n, 3, 32, 32), (targets, masks))
    images, targets, masks = prepare_data(datum, args.cuda)
    out = net(images)
    wrapper = ScatterWrapper(targets, masks)
    losses = criterion(out, wrapper, wrapper.make_mask(args.cuda))
    loss = sum(x.sum() for x in losses)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    train(parser.parse_args())
