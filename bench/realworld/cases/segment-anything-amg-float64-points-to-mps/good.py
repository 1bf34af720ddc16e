"""Automatic mask generation (reconstruction of segment_anything automatic_mask_generator.py, utils/amg.py, transforms.py)."""

from copy import deepcopy

import numpy as np
import torch
from torch import nn


def build_point_grid(n_per_side):
    offset = 1 / (2 * n_per_side)
    one_side = np.linspace(offset, 1 - offset, n_per_side)
    xs = np.tile(one_side[None, :], (n_per_side, 1))
    ys = np.tile(one_side[:, None], (1, n_per_side))
    return np.stack([xs, ys], axis=-1).reshape(-1, 2)


def batch_iterator(batch_size, *args):
    for b in range((len(args[0]) + batch_size - 1) // batch_size):
        yield [arg[b * batch_size : (b + 1) * batch_size] for arg in args]


class ResizeLongestSide:
    def __init__(self, target_length):
        self.target_length = target_length

    def apply_coords(self, coords, original_size):
        old_h, old_w = original_size
        scale = self.target_length / max(old_h, old_w)
        coords = deepcopy(coords).astype(float)
        coords[..., 0] = coords[..., 0] * (old_w * scale / old_w)
        coords[..., 1] = coords[..., 1] * (old_h * scale / old_h)
        return coords


class SamPredictor:
    def __init__(self, model):
        self.model = model
        self.transform = ResizeLongestSide(64)

    @property
    def device(self):
        return next(self.model.parameters()).device

    def predict_torch(self, point_coords, point_labels):
        feats = self.model(point_coords.flatten(1).to(torch.float))
        return feats.view(-1, 3, 1), feats.mean(-1, keepdim=True).expand(-1, 3)


class SamAutomaticMaskGenerator:
    def __init__(self, predictor, points_per_side=8, points_per_batch=16):
        self.predictor = predictor
        self.point_grids = [build_point_grid(points_per_side)]
        self.points_per_batch = points_per_batch

    def generate(self, image):
        return self._process_crop(image, [0, 0, image.shape[1], image.shape[0]], 0)

    def _process_crop(self, image, crop_box, crop_layer_idx):
        x0, y0, x1, y1 = crop_box
        cropped_im_size = image[y0:y1, x0:x1].shape[:2]
        points_scale = np.array(cropped_im_size)[None, ::-1]
        points_for_image = self.point_grids[crop_layer_idx] * points_scale
        out = []
        for (points,) in batch_iterator(self.points_per_batch, points_for_image):
            out.append(self._process_batch(points, cropped_im_size))
        return out

    def _process_batch(self, points, im_size):
        transformed_points = self.predictor.transform.apply_coords(points, im_size).astype(np.float32)
        in_points = torch.as_tensor(transformed_points, device=self.predictor.device)
        in_labels = torch.ones(in_points.shape[0], dtype=torch.int, device=in_points.device)
        masks, iou_preds = self.predictor.predict_torch(in_points[:, None, :], in_labels[:, None])
        return masks, iou_preds


if __name__ == "__main__":
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    sam = nn.Linear(2, 3).to(device)
    generator = SamAutomaticMaskGenerator(SamPredictor(sam))
    generator.generate(np.zeros((48, 64, 3), dtype=np.uint8))
