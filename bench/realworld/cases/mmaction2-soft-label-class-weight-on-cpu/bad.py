"""Video recognizer with a class-weighted cross entropy and mixup (reconstruction of mmaction2 losses/heads)."""

import torch
import torch.nn.functional as F
from torch import nn


class BaseWeightedLoss(nn.Module):
    def __init__(self, loss_weight=1.0):
        super().__init__()
        self.loss_weight = loss_weight

    def _forward(self, *args, **kwargs):
        raise NotImplementedError

    def forward(self, *args, **kwargs):
        return self._forward(*args, **kwargs) * self.loss_weight


class CrossEntropyLoss(BaseWeightedLoss):
    def __init__(self, loss_weight=1.0, class_weight=None):
        super().__init__(loss_weight=loss_weight)
        self.class_weight = None
        if class_weight is not None:
            self.class_weight = torch.Tensor(class_weight)

    def _forward(self, cls_score, label, **kwargs):
        if cls_score.size() == label.size():
            assert cls_score.dim() == 2, "Only support 2-dim soft label"
            lsm = F.log_softmax(cls_score, 1)
            if self.class_weight is not None:
                lsm = lsm * self.class_weight.unsqueeze(0)
            loss_cls = -(label * lsm).sum(1)
            if self.class_weight is not None:
                loss_cls = loss_cls.sum() / torch.sum(self.class_weight.unsqueeze(0) * label)
            else:
                loss_cls = loss_cls.mean()
        else:
            if self.class_weight is not None:
                kwargs["weight"] = self.class_weight.to(cls_score.device)
            loss_cls = F.cross_entropy(cls_score, label, **kwargs)
        return loss_cls


class I3DHead(nn.Module):
    def __init__(self, num_classes, in_channels, loss_cls):
        super().__init__()
        self.fc_cls = nn.Linear(in_channels, num_classes)
        self.loss_cls = loss_cls

    def forward(self, x):
        return self.fc_cls(x.mean(dim=(2, 3, 4)))

    def loss(self, cls_score, labels):
        return {"loss_cls": self.loss_cls(cls_score, labels)}


class Recognizer3D(nn.Module):
    def __init__(self, num_classes=4, blending=None):
        super().__init__()
        self.backbone = nn.Conv3d(3, 8, 3, padding=1)
        self.cls_head = I3DHead(num_classes, 8, CrossEntropyLoss(class_weight=[1.0, 2.0, 1.0, 0.5]))
        self.num_classes = num_classes
        self.blending = blending

    def forward_train(self, imgs, labels):
        if self.blending is not None:
            imgs, labels = self.blending(imgs, labels, self.num_classes)
        cls_score = self.cls_head(self.backbone(imgs))
        return self.cls_head.loss(cls_score, labels)


def mixup_blending(imgs, label, num_classes, alpha=0.2):
    one_hot = F.one_hot(label, num_classes=num_classes).float()
    lam = torch.distributions.Beta(alpha, alpha).sample().item()
    index = torch.randperm(imgs.size(0), device=imgs.device)
    mixed_imgs = lam * imgs + (1 - lam) * imgs[index]
    mixed_label = lam * one_hot + (1 - lam) * one_hot[index]
    return mixed_imgs, mixed_label


def train_step(model, optimizer, data_batch, device):
    imgs, labels = data_batch["imgs"].to(device), data_batch["label"].to(device)
    losses = model.forward_train(imgs, labels)
    loss = sum(losses.values())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def run(device):
    model = Recognizer3D(blending=mixup_blending).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    batch = {"imgs": torch.rand(2, 3, 4, 8, 8), "label": torch.tensor([0, 3])}
    train_step(model, optimizer, batch, device)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
