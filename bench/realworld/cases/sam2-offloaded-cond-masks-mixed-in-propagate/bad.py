"""Video object tracking with optional state offloading (reconstruction of SAM2VideoPredictor)."""

import torch
import torch.nn.functional as F
from torch import nn


class TinyTracker(nn.Module):
    def __init__(self, image_size=32):
        super().__init__()
        self.image_size = image_size
        self.backbone = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.mask_head = nn.Conv2d(8 + 1, 1, 1)

    @property
    def device(self):
        return next(self.parameters()).device

    def track_step(self, image, prompt_map):
        feats = self.backbone(image[None])
        return {"pred_masks": self.mask_head(torch.cat([feats, prompt_map], 1))}

    def init_state(self, frames, offload_state_to_cpu=False):
        compute_device = self.device
        state = {
            "images": [f.to(compute_device) for f in frames],
            "num_frames": len(frames),
            "video_height": frames[0].shape[-2],
            "video_width": frames[0].shape[-1],
            "device": compute_device,
            "output_dict_per_obj": {},
        }
        state["storage_device"] = torch.device("cpu") if offload_state_to_cpu else compute_device
        return state

    def _obj_dict(self, state, obj_idx):
        return state["output_dict_per_obj"].setdefault(obj_idx, {"cond_frame_outputs": {}, "non_cond_frame_outputs": {}})

    def _run_single_frame_inference(self, state, frame_idx, prompt_map):
        out = self.track_step(state["images"][frame_idx], prompt_map)
        pred_masks_gpu = out["pred_masks"]
        pred_masks = pred_masks_gpu.to(state["storage_device"], non_blocking=True)
        return {"pred_masks": pred_masks}, pred_masks_gpu

    def add_new_points(self, state, frame_idx, obj_idx, points):
        size = self.image_size // 4
        prompt = torch.zeros(1, 1, size, size, device=state["device"])
        prompt[0, 0, points[:, 1] // 4, points[:, 0] // 4] = 1.0
        current_out, _ = self._run_single_frame_inference(state, frame_idx, prompt)
        self._obj_dict(state, obj_idx)["cond_frame_outputs"][frame_idx] = current_out

    def _get_orig_video_res_output(self, state, any_res_masks):
        any_res_masks = any_res_masks.to(state["device"], non_blocking=True)
        return F.interpolate(any_res_masks, size=(state["video_height"], state["video_width"]), mode="bilinear")

    def propagate_in_video(self, state):
        batch_size = len(state["output_dict_per_obj"])
        size = self.image_size // 4
        for frame_idx in range(state["num_frames"]):
            pred_masks_per_obj = [None] * batch_size
            for obj_idx in range(batch_size):
                obj_output_dict = self._obj_dict(state, obj_idx)
                if frame_idx in obj_output_dict["cond_frame_outputs"]:
                    current_out = obj_output_dict["cond_frame_outputs"][frame_idx]
                    pred_masks = current_out["pred_masks"]
                else:
                    no_prompt = torch.zeros(1, 1, size, size, device=state["device"])
                    current_out, pred_masks = self._run_single_frame_inference(state, frame_idx, no_prompt)
                    obj_output_dict["non_cond_frame_outputs"][frame_idx] = current_out
                pred_masks_per_obj[obj_idx] = pred_masks
            if len(pred_masks_per_obj) > 1:
                all_pred_masks = torch.cat(pred_masks_per_obj, dim=0)
            else:
                all_pred_masks = pred_masks_per_obj[0]
            yield frame_idx, self._get_orig_video_res_output(state, all_pred_masks)


def run(device):
    predictor = TinyTracker().to(device)
    frames = [torch.rand(3, 32, 32) for _ in range(3)]
    with torch.inference_mode():
        state = predictor.init_state(frames, offload_state_to_cpu=True)
        predictor.add_new_points(state, frame_idx=0, obj_idx=0, points=torch.tensor([[8, 8]]))
        predictor.add_new_points(state, frame_idx=1, obj_idx=1, points=torch.tensor([[20, 12]]))
        for _frame_idx, _masks in predictor.propagate_in_video(state):
            pass


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
