"""SSD post-processing in the PyTorch detector example (reconstruction of
docs/examples/use_cases/pytorch/single_stage_detector/src/utils.py, Encoder.decode_single)."""

import torch


def calc_iou_tensor(box1, box2):
    lt = torch.max(box1[:, None, :2], box2[None, :, :2])
    rb = torch.min(box1[:, None, 2:], box2[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(dim=2)
    area1 = (box1[:, 2:] - box1[:, :2]).prod(dim=1)
    area2 = (box2[:, 2:] - box2[:, :2]).prod(dim=1)
    return inter / (area1[:, None] + area2[None, :] - inter)


class Encoder:
    def __init__(self, dboxes):
        self.dboxes = dboxes

    def decode_single(self, bboxes_in, scores_in, criteria, max_output, max_num=200):
        bboxes_out, scores_out, labels_out = [], [], []
        for i, score in enumerate(scores_in.split(1, 1)):
            if i == 0:
                continue
            score = score.squeeze(1)
            mask = score > 0.05
            bboxes, score = bboxes_in[mask, :], score[mask]
            if score.size(0) == 0:
                continue
            _, score_idx_sorted = score.sort(dim=0)
            score_idx_sorted = score_idx_sorted[-max_num:]
            candidates = []
            while score_idx_sorted.numel() > 0:
                idx = score_idx_sorted[-1].item()
                iou_sorted = calc_iou_tensor(bboxes[score_idx_sorted, :], bboxes[idx, :].unsqueeze(dim=0)).squeeze(1)
                score_idx_sorted = score_idx_sorted[iou_sorted < criteria]
                candidates.append(idx)
            bboxes_out.append(bboxes[candidates, :])
            scores_out.append(score[candidates])
            labels_out.extend([i] * len(candidates))

        bboxes_out, labels_out, scores_out = torch.cat(bboxes_out, dim=0), \
            torch.tensor(labels_out, dtype=torch.long), \
            torch.cat(scores_out, dim=0)

        _, max_ids = scores_out.sort(dim=0)
        max_ids = max_ids[-max_output:]
        return bboxes_out[max_ids, :], labels_out[max_ids], scores_out[max_ids]


def evaluate(model_out, device="cuda"):
    encoder = Encoder(dboxes=None)
    ploc, plabel = model_out
    xy = torch.rand(ploc.shape[0], 2, device=device)
    boxes = torch.cat([xy, xy + 0.1], dim=1)
    return encoder.decode_single(boxes, plabel.softmax(dim=-1), criteria=0.5, max_output=20)


if __name__ == "__main__":
    dev = "cuda"
    print(evaluate((torch.rand(50, 4, device=dev), torch.rand(50, 5, device=dev)), device=dev))
