"""The SSD example's evaluation loop handed the detector's GPU outputs (locations and class scores) to the box
encoder; in bad decode_single builds labels_out as a CPU tensor and indexes it with max_ids sorted on the GPU."""

import torch


def run(program, device):
    torch.manual_seed(0)
    n_anchors, n_classes = 50, 5
    # the network ran on the GPU, so both of its outputs live there
    ploc = torch.rand(n_anchors, 4, device=device)
    plabel = torch.rand(n_anchors, n_classes, device=device)
    bboxes, labels, scores = program["evaluate"]((ploc, plabel), device=device)
    assert bboxes.shape[0] == labels.shape[0] == scores.shape[0] > 0
