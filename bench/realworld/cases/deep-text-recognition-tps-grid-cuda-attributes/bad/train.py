"""Training script (reconstruction of train.py / model.py of the recognition benchmark)."""

import argparse

import torch
import torch.nn as nn

from transformation import TPS_STN


class Model(nn.Module):
    def __init__(self, opt):
        super().__init__()
        if opt.Transformation == "TPS":
            self.Transformation = TPS_STN(
                opt.num_fiducial, (opt.imgH, opt.imgW), int(opt.batch_size / opt.num_gpu), opt.input_channel
            )
        else:
            self.Transformation = None
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(opt.input_channel * opt.imgH * opt.imgW, opt.num_class))

    def forward(self, x):
        if self.Transformation is not None:
            x = self.Transformation(x)
        return self.head(x)


def train(opt):
    model = Model(opt)
    model = torch.nn.DataParallel(model).cuda()
    model.train()
    criterion = torch.nn.CrossEntropyLoss(ignore_index=0).cuda()
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    for _ in range(2):
        cpu_images = torch.rand(opt.batch_size, opt.input_channel, opt.imgH, opt.imgW)
        labels = torch.randint(0, opt.num_class, (opt.batch_size,))
        image = cpu_images.cuda()
        loss = criterion(model(image), labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--Transformation", default="TPS")
    parser.add_argument("--num_fiducial", type=int, default=20)
    parser.add_argument("--imgH", type=int, default=32)
    parser.add_argument("--imgW", type=int, default=100)
    parser.add_argument("--input_channel", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=192)
    parser.add_argument("--num_class", type=int, default=38)
    opt = parser.parse_args()
    opt.num_gpu = torch.cuda.device_count()
    train(opt)
