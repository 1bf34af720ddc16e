"""Multi-object tracking demo (reconstruction of ByteTrack tools/demo_track.py)."""

import argparse
import os

import torch
from torch import nn


def make_parser():
    parser = argparse.ArgumentParser("ByteTrack Demo!")
    parser.add_argument("demo", default="image", help="demo type, eg. image, video and webcam")
    parser.add_argument("-expn", "--experiment-name", type=str, default=None)
    parser.add_argument("-c", "--ckpt", default=None, type=str)
    parser.add_argument("--device", default="gpu", type=str, help="device to run our model, can either be cpu or gpu")
    parser.add_argument("--fp16", action="store_true")
    return parser


class Exp:
    exp_name = "yolox_s_mix_det"
    output_dir = "./YOLOX_outputs"

    def get_model(self):
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.SiLU(), nn.Conv2d(8, 6, 1))


class Predictor:
    def __init__(self, model, device="cpu", fp16=False):
        self.model = model
        self.device = device
        self.fp16 = fp16

    def inference(self, img):
        img = torch.from_numpy(img).permute(2, 0, 1)[None].float()
        if self.device == "gpu":
            img = img.cuda()
            if self.fp16:
                img = img.half()
        with torch.no_grad():
            return self.model(img)


def main(exp, args):
    torch.cuda.set_device("cuda:6")
    if not args.experiment_name:
        args.experiment_name = exp.exp_name
    file_name = os.path.join(exp.output_dir, args.experiment_name)
    model = exp.get_model()
    if args.device == "gpu":
        model.cuda()
    model.eval()
    ckpt_file = args.ckpt or os.path.join(file_name, "best_ckpt.pth.tar")
    if os.path.exists(ckpt_file):
        model.load_state_dict(torch.load(ckpt_file, map_location="cpu")["model"])
    if args.fp16:
        model = model.half()
    return Predictor(model, args.device, args.fp16)


if __name__ == "__main__":
    import numpy as np

    args = make_parser().parse_args()
    predictor = main(Exp(), args)
    predictor.inference(np.zeros((32, 32, 3), dtype=np.uint8))
