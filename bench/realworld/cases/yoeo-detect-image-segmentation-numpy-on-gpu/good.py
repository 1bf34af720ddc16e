"""Joint detection and segmentation inference (reconstruction of YOEO yoeo/detect.py and models.load_model)."""

import numpy as np
import torch
from torch import nn


class YOEOLite(nn.Module):
    def __init__(self, num_classes=2, seg_classes=3):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.det = nn.Conv2d(8, 5 + num_classes, 1)
        self.seg = nn.Conv2d(8, seg_classes, 1)

    def forward(self, x):
        f = torch.relu(self.backbone(x))
        det = self.det(f).flatten(2).transpose(1, 2)
        seg = nn.functional.interpolate(self.seg(f), size=x.shape[-2:])
        return det, torch.argmax(seg, dim=1)


def load_model(weights_path=None):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = YOEOLite().to(device)
    if weights_path:
        model.load_state_dict(torch.load(weights_path, map_location=device))
    return model


def non_max_suppression(prediction, conf_thres, nms_thres):
    output = [torch.zeros((0, 6), device="cpu")] * prediction.shape[0]
    for i, x in enumerate(prediction):
        x = x[x[:, 4] > conf_thres]
        if x.shape[0]:
            conf, cls = x[:, 5:].max(1, keepdim=True)
            output[i] = torch.cat((x[:, :4], conf, cls.float()), 1).cpu()
    return output


def rescale_boxes(boxes, current_dim, original_shape):
    h, w = original_shape
    boxes[:, [0, 2]] *= w / current_dim
    boxes[:, [1, 3]] *= h / current_dim
    return boxes


def detect_image(model, image, img_size=64, conf_thres=0.5, nms_thres=0.5):
    model.eval()
    input_img = torch.from_numpy(image).permute(2, 0, 1).float().div(255)
    input_img = nn.functional.interpolate(input_img[None], size=(img_size, img_size))
    if torch.cuda.is_available():
        input_img = input_img.to("cuda")
    with torch.no_grad():
        detections, segmentations = model(input_img)
        detections = non_max_suppression(detections, conf_thres, nms_thres)
        detections = rescale_boxes(detections[0], img_size, image.shape[:2])
    return detections.cpu().detach().numpy(), segmentations.cpu().detach().numpy()


if __name__ == "__main__":
    model = load_model()
    dets, seg = detect_image(model, np.random.randint(0, 255, (120, 160, 3), dtype=np.uint8))
    print(dets.shape, seg.shape)
