"""Transfer of pretrained weights into a (possibly DDP-wrapped) network (reconstruction of nnunetv2/run/load_pretrained_weights.py)."""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def load_pretrained_weights(network, fname, verbose=False):
    if dist.is_initialized():
        saved_model = torch.load(fname, map_location=torch.device("cuda", dist.get_rank()))
    else:
        saved_model = torch.load(fname)
    pretrained_dict = saved_model["network_weights"]
    skip_strings_in_pretrained = [".seg_layers."]
    mod = network.module if isinstance(network, DDP) else network
    model_dict = mod.state_dict()
    for key, _ in model_dict.items():
        if all(i not in key for i in skip_strings_in_pretrained):
            assert key in pretrained_dict, f"Key {key} is missing in the pretrained model weights."
            assert model_dict[key].shape == pretrained_dict[key].shape
    pretrained_dict = {
        k: v
        for k, v in pretrained_dict.items()
        if k in model_dict.keys() and all(i not in k for i in skip_strings_in_pretrained)
    }
    model_dict.update(pretrained_dict)
    mod.load_state_dict(model_dict)
