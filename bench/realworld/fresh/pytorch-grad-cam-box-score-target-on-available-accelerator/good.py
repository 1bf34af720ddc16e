"""Explaining a detector's boxes with a CAM (reconstruction of pytorch_grad_cam/utils/model_targets.py:
FasterRCNNBoxScoreTarget, and the Faster R-CNN tutorial that drives it)."""

import numpy as np
import torch
import torchvision


class FasterRCNNBoxScoreTarget:
    """Sum over the reference boxes of IoU + score of the best matching detection with the same label."""

    def __init__(self, labels, bounding_boxes, iou_threshold=0.5):
        self.labels = labels
        self.bounding_boxes = bounding_boxes
        self.iou_threshold = iou_threshold

    def __call__(self, model_outputs):
        boxes = model_outputs["boxes"]
        device, dtype = boxes.device, boxes.dtype
        output = torch.tensor([0.0], device=device, dtype=dtype)

        if len(boxes) == 0:
            return output

        for box, label in zip(self.bounding_boxes, self.labels):
            box = torch.as_tensor(box[None, :], device=device, dtype=dtype)

            ious = torchvision.ops.box_iou(box, boxes)
            index = ious.argmax()
            if ious[0, index] > self.iou_threshold and model_outputs["labels"][index] == label:
                score = ious[0, index] + model_outputs["scores"][index]
                output = output + score
        return output


def explain(model, image_tensor, device):
    """The tutorial pins the model to the device the user chose (the CPU here)."""
    model = model.eval().to(device)
    outputs = model([image_tensor.to(device)])[0]
    keep = outputs["scores"] > 0.9
    boxes = outputs["boxes"][keep].detach().cpu().numpy()
    labels = outputs["labels"][keep].tolist()
    targets = [FasterRCNNBoxScoreTarget(labels=labels, bounding_boxes=boxes)]
    # the CAM calls each target with the model's (CPU) outputs
    return [target(model([image_tensor.to(device)])[0]) for target in targets]


def main():
    model = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights="DEFAULT")
    image = torch.rand(3, 240, 320)
    return explain(model, image, torch.device("cpu"))


if __name__ == "__main__":
    main()
