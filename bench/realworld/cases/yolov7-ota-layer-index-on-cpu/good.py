"""OTA label assignment of a YOLO detector (reconstruction of yolov7 utils/loss.py ComputeLossOTA.build_targets)."""

import torch
import torch.nn.functional as F


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    inter = (rb - lt).clamp(0).prod(2)
    area_a = (a[:, 2:] - a[:, :2]).prod(1)
    area_b = (b[:, 2:] - b[:, :2]).prod(1)
    return inter / (area_a[:, None] + area_b - inter)


def xywh2xyxy(x):
    return torch.cat((x[:, :2] - x[:, 2:] / 2, x[:, :2] + x[:, 2:] / 2), 1)


class ComputeLossOTA:
    def __init__(self, nc, stride, anchors):
        self.nc, self.stride, self.anchors = nc, stride, anchors
        self.nl = len(stride)

    def find_3_positive(self, p, targets):
        indices, anch = [], []
        for i, pi in enumerate(p):
            _, na, ny, nx, _ = pi.shape
            b = targets[:, 0].long()
            gxy = targets[:, 2:4] * torch.tensor([nx, ny], device=targets.device)
            gi, gj = gxy.long().clamp(0, nx - 1).T
            a = torch.zeros_like(b)
            indices.append((b, a, gj, gi))
            anch.append(self.anchors[i][a])
        return indices, anch

    def build_targets(self, p, targets, imgs):
        indices, anch = self.find_3_positive(p, targets)
        matching_bs = [[] for _ in p]
        for batch_idx in range(p[0].shape[0]):
            this_target = targets[targets[:, 0] == batch_idx]
            if this_target.shape[0] == 0:
                continue
            txyxy = xywh2xyxy(this_target[:, 2:6] * imgs[batch_idx].shape[1])
            pxyxys, p_cls, from_which_layer, all_b = [], [], [], []
            for i, pi in enumerate(p):
                b, a, gj, gi = indices[i]
                idx = b == batch_idx
                b, a, gj, gi = b[idx], a[idx], gj[idx], gi[idx]
                all_b.append(b)
                from_which_layer.append(torch.ones(size=(len(b),)) * i)
                fg_pred = pi[b, a, gj, gi]
                p_cls.append(fg_pred[:, 5:])
                grid = torch.stack([gi, gj], dim=1)
                pxy = (fg_pred[:, :2].sigmoid() * 2.0 - 0.5 + grid) * self.stride[i]
                pwh = (fg_pred[:, 2:4].sigmoid() * 2) ** 2 * anch[i][idx] * self.stride[i]
                pxyxys.append(xywh2xyxy(torch.cat([pxy, pwh], dim=-1)))
            pxyxys = torch.cat(pxyxys, dim=0)
            if pxyxys.shape[0] == 0:
                continue
            p_cls = torch.cat(p_cls, dim=0)
            from_which_layer = torch.cat(from_which_layer, dim=0)
            all_b = torch.cat(all_b, dim=0)

            iou = box_iou(txyxy, pxyxys)
            top_k, _ = torch.topk(iou, min(10, iou.shape[1]), dim=1)
            dynamic_ks = torch.clamp(top_k.sum(1).int(), min=1)
            gt_cls = F.one_hot(this_target[:, 1].long(), self.nc).float().unsqueeze(1).repeat(1, pxyxys.shape[0], 1)
            cls_loss = F.binary_cross_entropy_with_logits(
                p_cls.unsqueeze(0).repeat(len(this_target), 1, 1), gt_cls, reduction="none"
            ).sum(-1)
            cost = cls_loss + 3.0 * -torch.log(iou + 1e-8)

            matching_matrix = torch.zeros_like(cost, device="cpu")
            for gt_idx in range(len(this_target)):
                _, pos_idx = torch.topk(cost[gt_idx], k=dynamic_ks[gt_idx].item(), largest=False)
                matching_matrix[gt_idx][pos_idx] = 1.0
            fg_mask_inboxes = matching_matrix.sum(0) > 0.0

            from_which_layer = from_which_layer[fg_mask_inboxes]
            all_b = all_b[fg_mask_inboxes]
            for i in range(self.nl):
                matching_bs[i].append(all_b[from_which_layer == i])
        return [torch.cat(m) if m else torch.zeros(0, dtype=torch.long) for m in matching_bs]

    def __call__(self, p, targets, imgs):
        return self.build_targets(p, targets, imgs)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    anchors = [torch.tensor([[1.5, 2.0]], device=device), torch.tensor([[2.5, 3.0]], device=device)]
    loss = ComputeLossOTA(nc=3, stride=[8, 16], anchors=anchors)
    p = [torch.randn(2, 1, 8, 8, 8, device=device), torch.randn(2, 1, 4, 4, 8, device=device)]
    targets = torch.tensor([[0, 1, 0.5, 0.5, 0.2, 0.3], [1, 2, 0.3, 0.6, 0.1, 0.1]], device=device)
    print(loss(p, targets, torch.zeros(2, 3, 64, 64, device=device)))
