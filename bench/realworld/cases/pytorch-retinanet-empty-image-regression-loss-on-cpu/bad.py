"""RetinaNet focal loss over a batch (reconstruction of pytorch-retinanet retinanet/losses.py and train.py)."""

import torch
import torch.nn as nn


def calc_iou(a, b):
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    iw = torch.clamp(torch.min(a[:, 2:3], b[:, 2]) - torch.max(a[:, 0:1], b[:, 0]), min=0)
    ih = torch.clamp(torch.min(a[:, 3:4], b[:, 3]) - torch.max(a[:, 1:2], b[:, 1]), min=0)
    inter = iw * ih
    ua = ((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]))[:, None] + area - inter
    return inter / torch.clamp(ua, min=1e-8)


class FocalLoss(nn.Module):
    def forward(self, classifications, regressions, anchors, annotations):
        alpha, gamma = 0.25, 2.0
        batch_size = classifications.shape[0]
        classification_losses = []
        regression_losses = []
        anchor = anchors[0, :, :]
        for j in range(batch_size):
            classification = torch.clamp(classifications[j], 1e-4, 1.0 - 1e-4)
            regression = regressions[j]
            bbox_annotation = annotations[j]
            bbox_annotation = bbox_annotation[bbox_annotation[:, 4] != -1]
            if bbox_annotation.shape[0] == 0:
                if torch.cuda.is_available():
                    alpha_factor = 1.0 - torch.ones(classification.shape).cuda() * alpha
                    cls_loss = alpha_factor * torch.pow(classification, gamma) * -(torch.log(1.0 - classification))
                    classification_losses.append(cls_loss.sum())
                    regression_losses.append(torch.tensor(0).float())
                else:
                    alpha_factor = 1.0 - torch.ones(classification.shape) * alpha
                    cls_loss = alpha_factor * torch.pow(classification, gamma) * -(torch.log(1.0 - classification))
                    classification_losses.append(cls_loss.sum())
                    regression_losses.append(torch.tensor(0).float())
                continue
            iou_max, iou_argmax = torch.max(calc_iou(anchor, bbox_annotation[:, :4]), dim=1)
            positive = torch.ge(iou_max, 0.5)
            targets = torch.zeros(classification.shape)
            if torch.cuda.is_available():
                targets = targets.cuda()
            assigned = bbox_annotation[iou_argmax, :]
            targets[positive, :] = 0
            targets[positive, assigned[positive, 4].long()] = 1
            bce = -(targets * torch.log(classification) + (1.0 - targets) * torch.log(1.0 - classification))
            classification_losses.append(bce.sum() / torch.clamp(positive.sum().float(), min=1.0))
            if positive.sum() > 0:
                diff = torch.abs(assigned[positive, :4] - regression[positive])
                regression_losses.append(diff.mean())
            else:
                if torch.cuda.is_available():
                    regression_losses.append(torch.tensor(0).float().cuda())
                else:
                    regression_losses.append(torch.tensor(0).float())
        return (
            torch.stack(classification_losses).mean(dim=0, keepdim=True),
            torch.stack(regression_losses).mean(dim=0, keepdim=True),
        )


class TinyRetinaNet(nn.Module):
    def __init__(self, num_classes=3, num_anchors=16):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, stride=8, padding=1)
        self.cls = nn.Linear(8, num_anchors * num_classes)
        self.reg = nn.Linear(8, num_anchors * 4)
        self.focalLoss = FocalLoss()
        self.num_classes, self.num_anchors = num_classes, num_anchors

    def forward(self, inputs):
        img_batch, annotations = inputs
        f = self.backbone(img_batch).mean(dim=(2, 3))
        classification = torch.sigmoid(self.cls(f)).view(-1, self.num_anchors, self.num_classes)
        regression = self.reg(f).view(-1, self.num_anchors, 4)
        anchors = torch.rand(1, self.num_anchors, 2, device=img_batch.device).repeat(1, 1, 2) * 0.5
        anchors[..., 2:] += 0.5
        return self.focalLoss(classification, regression, anchors, annotations)


if __name__ == "__main__":
    retinanet = TinyRetinaNet()
    if torch.cuda.is_available():
        retinanet = retinanet.cuda()
    annot = torch.tensor([[[0.1, 0.1, 0.6, 0.7, 1.0]], [[-1.0, -1.0, -1.0, -1.0, -1.0]]])
    data = {"img": torch.rand(2, 3, 32, 32), "annot": annot}
    if torch.cuda.is_available():
        classification_loss, regression_loss = retinanet([data["img"].cuda().float(), data["annot"].cuda()])
    else:
        classification_loss, regression_loss = retinanet([data["img"].float(), data["annot"]])
    (classification_loss + regression_loss).mean().backward()
