"""Incremental retraining of a PyTorch recommender (reconstruction of libreco/torchops/rebuild.py and its model base)."""

import torch
from torch import nn


def load_torch_state_dict(saved, device):
    """Stands in for reading the saved model/optimizer states with map_location=device."""
    model_sd = {k: v.to(device) for k, v in saved["model"].items()}
    opt_sd = {"state": {i: {k: v.to(device) if torch.is_tensor(v) and v.dim() else v for k, v in s.items()}
                        for i, s in saved["optimizer"]["state"].items()},
              "param_groups": saved["optimizer"]["param_groups"]}
    return model_sd, opt_sd


@torch.no_grad()
def rebuild_torch_model(self, saved):
    self.build_model()
    self.optimizer = torch.optim.Adam(self.torch_model.parameters(), lr=1e-3)
    model_state_dict, optimizer_state_dict = load_torch_state_dict(saved, self.device)
    user_param_indices, item_param_indices = [], []
    user_params, item_params = {}, {}
    for i, name in enumerate(list(model_state_dict.keys())):
        if "user" in name and "embed" in name:
            user_param_indices.append(i)
            user_params[name] = model_state_dict.pop(name)
        elif "item" in name and "embed" in name:
            item_param_indices.append(i)
            item_params[name] = model_state_dict.pop(name)
    self.torch_model.load_state_dict(model_state_dict, strict=False)

    for name, param in self.torch_model.named_parameters():
        if name in user_params:
            param.index_copy_(0, torch.arange(self.data_info.old_n_users), user_params[name])
        elif name in item_params:
            param.index_copy_(0, torch.arange(self.data_info.old_n_items), item_params[name])

    for i in user_param_indices:
        assign_adam_optimizer_states(optimizer_state_dict["state"][i], self.data_info.old_n_users, self.n_users,
                                     self.embed_size)
    for i in item_param_indices:
        assign_adam_optimizer_states(optimizer_state_dict["state"][i], self.data_info.old_n_items, self.n_items,
                                     self.embed_size)
    self.optimizer.load_state_dict(optimizer_state_dict)


def assign_adam_optimizer_states(state, old_num, new_num, embed_size):
    new_first_moment = nn.init.zeros_(torch.empty(new_num, embed_size))
    new_first_moment.index_copy_(0, torch.arange(old_num), state["exp_avg"])
    state["exp_avg"] = new_first_moment
    new_second_moment = nn.init.zeros_(torch.empty(new_num, embed_size))
    new_second_moment.index_copy_(0, torch.arange(old_num), state["exp_avg_sq"])
    state["exp_avg_sq"] = new_second_moment


class DataInfo:
    def __init__(self, n_users, n_items, old_n_users, old_n_items):
        self.n_users, self.n_items = n_users, n_items
        self.old_n_users, self.old_n_items = old_n_users, old_n_items


class MatrixFactorization(nn.Module):
    def __init__(self, n_users, n_items, embed_size):
        super().__init__()
        self.user_embed = nn.Embedding(n_users, embed_size)
        self.item_embed = nn.Embedding(n_items, embed_size)
        self.bias = nn.Parameter(torch.zeros(1))


class TwoTower:
    rebuild_model = rebuild_torch_model

    def __init__(self, data_info, embed_size=4, device="cuda"):
        self.data_info = data_info
        self.n_users, self.n_items = data_info.n_users, data_info.n_items
        self.embed_size = embed_size
        self.device = torch.device(device)

    def build_model(self):
        self.torch_model = MatrixFactorization(self.n_users, self.n_items, self.embed_size).to(self.device)


def saved_states(n_users, n_items, embed_size):
    old = MatrixFactorization(n_users, n_items, embed_size)
    state = {i: {"step": torch.tensor(3.0), "exp_avg": torch.zeros_like(p), "exp_avg_sq": torch.zeros_like(p)}
             for i, p in enumerate(old.parameters())}
    groups = [{"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False,
               "maximize": False, "foreach": None, "capturable": False, "differentiable": False, "fused": None,
               "params": list(range(3))}]
    return {"model": old.state_dict(), "optimizer": {"state": state, "param_groups": groups}}


def retrain(device):
    saved = saved_states(n_users=5, n_items=7, embed_size=4)
    model = TwoTower(DataInfo(n_users=6, n_items=9, old_n_users=5, old_n_items=7), device=device)
    model.rebuild_model(saved)
    return model


def run(device):
    retrain(device)


if __name__ == "__main__":
    retrain("cuda" if torch.cuda.is_available() else "cpu")
