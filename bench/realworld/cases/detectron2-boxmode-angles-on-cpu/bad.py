"""Box-format conversion helper of a detection library (reconstruction of BoxMode.convert)."""

import math
from enum import IntEnum

import numpy as np
import torch


class BoxFormat(IntEnum):
    XYXY = 0
    XYWH = 1
    CXCYWHA = 4

    @staticmethod
    def convert(boxes, src, dst):
        if src == dst:
            return boxes
        as_numpy = isinstance(boxes, np.ndarray)
        if as_numpy:
            work = torch.from_numpy(np.asarray(boxes)).clone()
        else:
            work = boxes.clone()

        if src == BoxFormat.CXCYWHA and dst == BoxFormat.XYXY:
            keep_dtype = work.dtype
            work = work.double()
            cos_a = torch.abs(torch.cos(work[:, 4] * math.pi / 180.0))
            sin_a = torch.abs(torch.sin(work[:, 4] * math.pi / 180.0))
            span_w = cos_a * work[:, 2] + sin_a * work[:, 3]
            span_h = cos_a * work[:, 3] + sin_a * work[:, 2]
            work[:, 0] -= span_w / 2.0
            work[:, 1] -= span_h / 2.0
            work[:, 2] = work[:, 0] + span_w
            work[:, 3] = work[:, 1] + span_h
            work = work[:, :4].to(dtype=keep_dtype)
        elif src == BoxFormat.XYWH and dst == BoxFormat.CXCYWHA:
            keep_dtype = work.dtype
            work = work.double()
            work[:, 0] += work[:, 2] / 2.0
            work[:, 1] += work[:, 3] / 2.0
            zero_angle = torch.zeros((work.shape[0], 1), dtype=work.dtype)
            work = torch.cat((work, zero_angle), axis=1).to(dtype=keep_dtype)
        elif src == BoxFormat.XYWH and dst == BoxFormat.XYXY:
            work[:, 2] += work[:, 0]
            work[:, 3] += work[:, 1]
        else:
            raise NotImplementedError(f"{src} -> {dst}")

        return work.numpy() if as_numpy else work


def rotated_proposals(gt_boxes_xywh):
    """A rotated-box head turns its axis-aligned ground truth into rotated boxes."""
    return BoxFormat.convert(gt_boxes_xywh, BoxFormat.XYWH, BoxFormat.CXCYWHA)


def run(device):
    gt = torch.rand(5, 4, device=device) * 100
    rotated_proposals(gt)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
