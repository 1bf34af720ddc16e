"""Prodigy + schedule-free optimiser core (reconstruction of prodigyplus/core_optimiser.py) resumed
through a trainer that loads optimizer states onto the CPU."""

import torch


class CoreOptimiser(torch.optim.Optimizer):
    def __init__(self, params, lr=1.0, beta3=None, d0=1e-6, split_groups=True, prodigy_steps=0):
        defaults = dict(lr=lr, beta3=beta3 if beta3 is not None else 0.999, d=d0, d0=d0, k=0,
                        prodigy_steps=prodigy_steps, use_speed=False)
        super().__init__(params, defaults)
        self.split_groups = split_groups
        # use tensors to keep everything on device during the parameter loop
        for group in (self.param_groups if self.split_groups else self.param_groups[:1]):
            p = group["params"][0]
            group["running_d_numerator"] = torch.tensor(0.0, dtype=torch.float32, device=p.device)
            group["running_d_denom"] = torch.tensor(0.0, dtype=torch.float32, device=p.device)

    @torch.no_grad()
    def get_sliced_tensor(self, tensor, slice_p=11):
        return tensor.ravel()[::slice_p]

    @torch.no_grad()
    def get_running_values_for_group(self, group, p=None):
        if not self.split_groups:
            group = self.param_groups[0]
        running_d_numerator, running_d_denom = group["running_d_numerator"], group["running_d_denom"]
        if p is not None:
            if running_d_numerator.device != p.device:
                group["running_d_numerator"] = running_d_numerator = running_d_numerator.to(p.device)
            if running_d_denom.device != p.device:
                group["running_d_denom"] = running_d_denom = running_d_denom.to(p.device)
        return running_d_numerator, running_d_denom

    def update_prodigy(self, state, group, grad, data):
        if group["prodigy_steps"] <= 0 or group["k"] < group["prodigy_steps"]:
            d = group["d"]
            sliced_grad = self.get_sliced_tensor(grad)
            sliced_data = self.get_sliced_tensor(data)
            running_d_numerator, running_d_denom = self.get_running_values_for_group(group, data)
            s = state["s"]
            x0_dot = torch.dot(sliced_grad, state["p0"] - sliced_data)
            d_update = d ** 0.5
            running_d_numerator.add_(x0_dot, alpha=d_update)
            s.mul_(group["beta3"]).add_(sliced_grad, alpha=d_update)
            running_d_denom.add_(s.abs().sum())

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["s"] = torch.zeros_like(self.get_sliced_tensor(p))
                    state["p0"] = self.get_sliced_tensor(p).clone()
                self.update_prodigy(state, group, p.grad, p)
                p.add_(p.grad, alpha=-group["lr"] * group["d"])
            group["k"] += 1


def resume_training(model, state_path, device):
    model.to(device)
    optimizer = CoreOptimiser(model.parameters())
    # the trainer loads saved optimizer states onto the CPU and lets load_state_dict place them
    optimizer.load_state_dict(torch.load(state_path, map_location="cpu"))
    for _ in range(2):
        loss = model(torch.randn(4, 8, device=device)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    resume_training(torch.nn.Linear(8, 8), "optimizer.bin", torch.device("cuda"))
