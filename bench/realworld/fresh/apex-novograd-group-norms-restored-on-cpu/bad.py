"""NovoGrad keeping its per-layer gradient norms in the param groups (reconstruction of
apex/optimizers/fused_novograd.py, with the fused kernel written out in torch), and a resumed run."""

import torch


def novograd_update(grads, params, exp_avgs, norms, lr, beta1, beta2, eps, weight_decay):
    # stands in for amp_C.multi_tensor_novograd: one norm per tensor of the group
    for i, (g, p, m) in enumerate(zip(grads, params, exp_avgs)):
        norm = g.norm()
        norms[i] = beta2 * norms[i] + (1 - beta2) * norm
        m.mul_(beta1).add_(g / (norms[i] + eps) + weight_decay * p)
        p.add_(m, alpha=-lr)


class FusedNovoGrad(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.95, 0.98), eps=1e-8, weight_decay=0.0, init_zero=False):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, init_zero=init_zero)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            group["step"] = group.get("step", 0) + 1
            grads, params, exp_avgs = [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)
                grads.append(p.grad)
                params.append(p)
                exp_avgs.append(state["exp_avg"])
            # one norm per tensor, stored in the group rather than in the per-parameter state
            if "exp_avg_sq" not in group:
                if group["init_zero"]:
                    group["exp_avg_sq"] = torch.cuda.FloatTensor(len(grads)).fill_(0)
                else:
                    group["exp_avg_sq"] = torch.cuda.FloatTensor([g.norm().item() for g in grads])
            novograd_update(grads, params, exp_avgs, group["exp_avg_sq"], group["lr"], beta1, beta2,
                            group["eps"], group["weight_decay"])


def resume(checkpoint_path, batches):
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).cuda()
    optimizer = FusedNovoGrad(model.parameters(), lr=1e-2)
    checkpoint = torch.load(checkpoint_path, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    for x, y in batches:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model
