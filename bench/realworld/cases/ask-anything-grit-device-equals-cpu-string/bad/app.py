"""Video chat app wiring (reconstruction of app.py and models/grit_model.py, DenseCaptioning)."""

import torch

from image_dense_captions import image_caption_api

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class DenseCaptioning:
    def __init__(self, device):
        self.device = device

    def image_dense_caption(self, image_src):
        return image_caption_api(image_src, self.device)


dense_caption_model = DenseCaptioning(device)


def caption_frame(path):
    return dense_caption_model.image_dense_caption(path)
