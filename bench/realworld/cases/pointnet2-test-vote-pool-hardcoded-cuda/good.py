"""Point cloud classification evaluation with voting (reconstruction of Pointnet_Pointnet2_pytorch test_classification.py)."""

import argparse
import os

import numpy as np
import torch
from torch import nn


def parse_args():
    parser = argparse.ArgumentParser("Testing")
    parser.add_argument("--use_cpu", action="store_true", default=False, help="use cpu mode")
    parser.add_argument("--gpu", type=str, default="0")
    parser.add_argument("--num_category", default=4, type=int)
    parser.add_argument("--num_votes", type=int, default=3)
    parser.add_argument("--log_dir", type=str, default="pointnet2_cls")
    return parser.parse_args()


class PointNetLite(nn.Module):
    def __init__(self, num_class):
        super().__init__()
        self.feat = nn.Conv1d(3, 32, 1)
        self.fc = nn.Linear(32, num_class)

    def forward(self, xyz):
        x = torch.relu(self.feat(xyz)).max(dim=2)[0]
        return torch.log_softmax(self.fc(x), -1), x


def test(model, loader, num_class=4, vote_num=1):
    mean_correct = []
    classifier = model.eval()
    for points, target in loader:
        vote_pool = torch.zeros(target.size()[0], num_class)
        if not args.use_cpu:
            points, target, vote_pool = points.cuda(), target.cuda(), vote_pool.cuda()
        points = points.transpose(2, 1)
        for _ in range(vote_num):
            pred, _ = classifier(points)
            vote_pool += pred
        pred = vote_pool / vote_num
        pred_choice = pred.data.max(1)[1]
        correct = pred_choice.eq(target.long().data).cpu().sum()
        mean_correct.append(correct.item() / float(points.size()[0]))
    return np.mean(mean_correct)


def main(args):
    os.environ["CUDA_VISIBLE_DEVICES"] = args.gpu
    experiment_dir = "log/classification/" + args.log_dir
    loader = [(torch.rand(8, 64, 3), torch.randint(0, args.num_category, (8,)))]
    classifier = PointNetLite(args.num_category)
    if not args.use_cpu:
        classifier = classifier.cuda()
    torch_load_map_location = torch.device("cpu") if args.use_cpu else torch.device("cuda")
    checkpoint = torch.load(str(experiment_dir) + "/checkpoints/best_model.pth", map_location=torch_load_map_location)
    classifier.load_state_dict(checkpoint["model_state_dict"])
    with torch.no_grad():
        print("Test Instance Accuracy: %f" % test(classifier.eval(), loader, num_class=args.num_category, vote_num=args.num_votes))


if __name__ == "__main__":
    args = parse_args()
    main(args)
