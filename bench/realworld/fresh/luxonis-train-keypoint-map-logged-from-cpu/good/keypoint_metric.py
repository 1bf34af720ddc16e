"""COCO keypoint mAP as a torchmetrics metric (reconstruction of
luxonis_train/attached_modules/metrics/mean_average_precision_keypoints.py)."""

import contextlib
import io

import torch
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval
from torch import Tensor
from torchmetrics import Metric


class MeanAveragePrecisionKeypoints(Metric):
    def __init__(self, sigmas, max_dets=20):
        super().__init__()
        self.register_buffer("sigmas", torch.as_tensor(sigmas, dtype=torch.float32))
        self.max_dets = max_dets
        self.add_state("pred_keypoints", default=[], dist_reduce_fx=None)
        self.add_state("pred_scores", default=[], dist_reduce_fx=None)
        self.add_state("target_keypoints", default=[], dist_reduce_fx=None)

    def update(self, pred_keypoints: Tensor, pred_scores: Tensor, target_keypoints: Tensor):
        self.pred_keypoints.append(pred_keypoints)
        self.pred_scores.append(pred_scores)
        self.target_keypoints.append(target_keypoints)

    def _coco_format(self, keypoints, scores=None):
        anns = []
        for img_id, kpts in enumerate(keypoints):
            for j, k in enumerate(kpts.detach().cpu().tolist()):
                ann = {"image_id": img_id, "category_id": 1, "keypoints": k, "id": len(anns) + 1}
                if scores is not None:
                    ann["score"] = float(scores[img_id][j])
                anns.append(ann)
        return {"images": [{"id": i} for i in range(len(keypoints))], "annotations": anns,
                "categories": [{"id": 1}]}

    def compute(self) -> tuple[Tensor, dict[str, Tensor]]:
        coco_target, coco_preds = COCO(), COCO()
        coco_target.dataset = self._coco_format(self.target_keypoints)
        coco_preds.dataset = self._coco_format(self.pred_keypoints, self.pred_scores)
        with contextlib.redirect_stdout(io.StringIO()):
            coco_target.createIndex()
            coco_preds.createIndex()
            coco_eval = COCOeval(coco_target, coco_preds, iouType="keypoints")
            coco_eval.params.kpt_oks_sigmas = self.sigmas.cpu().numpy()
            coco_eval.params.maxDets = [self.max_dets]
            coco_eval.evaluate()
            coco_eval.accumulate()
            coco_eval.summarize()
            stats = coco_eval.stats

        device = self.pred_keypoints[0].device
        kpt_map = torch.tensor([stats[0]], dtype=torch.float32, device=device)
        return kpt_map, {
            "kpt_map_50": torch.tensor([stats[1]], dtype=torch.float32, device=device),
            "kpt_map_75": torch.tensor([stats[2]], dtype=torch.float32, device=device),
            "kpt_mar": torch.tensor([stats[5]], dtype=torch.float32, device=device),
        }
