"""GRiT dense-captioning setup (reconstruction of models/grit_src/image_dense_captions.py)."""

from detectron2.config import get_cfg
from detectron2.data.detection_utils import read_image
from models.grit_src.grit.predictor import VisualizationDemo


def dense_pred_to_caption(predictions):
    instances = predictions["instances"]
    boxes = instances.pred_boxes
    names = instances.pred_object_descriptions.data
    return "; ".join(
        "{}: {}".format(name, [int(a) for a in boxes[i].tensor.cpu().numpy()[0]]) for i, name in enumerate(names)
    )


def setup_cfg(args):
    cfg = get_cfg()
    if args["cpu"]:
        cfg.MODEL.DEVICE = "cpu"
    cfg.merge_from_list(args["opts"])
    cfg.MODEL.ROI_HEADS.SCORE_THRESH_TEST = args["confidence_threshold"]
    cfg.freeze()
    return cfg


def get_parser(device):
    arg_dict = {"cpu": False, "confidence_threshold": 0.5,
                "opts": ["MODEL.WEIGHTS", "pretrained_models/grit_b_densecap_objectdet.pth"]}
    if device == "cpu":
        arg_dict["cpu"] = True
    return arg_dict


def image_caption_api(image_src, device):
    args2 = get_parser(device)
    cfg = setup_cfg(args2)
    demo = VisualizationDemo(cfg)
    img = read_image(image_src, format="BGR")
    predictions, _ = demo.run_on_image(img)
    return dense_pred_to_caption(predictions)
