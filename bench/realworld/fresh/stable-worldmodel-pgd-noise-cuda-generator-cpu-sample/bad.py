"""Projected-gradient planning over discrete actions (reconstruction of stable_worldmodel/solver/discrete_solvers.py:
PGDSolver)."""

import torch


class PGDSolver(torch.nn.Module):
    def __init__(self, model, n_steps, n_envs, horizon, n_actions, num_samples=1, var_scale=1.0,
                 action_noise=0.0, device="cpu", seed=1234):
        super().__init__()
        self.model = model
        self.n_steps = n_steps
        self.n_envs, self.horizon, self.n_actions = n_envs, horizon, n_actions
        self.num_samples = num_samples
        self.var_scale = var_scale
        self.action_noise = action_noise
        self.device = device
        # one generator for every random draw of the solver, made on the solver's device
        self.torch_gen = torch.Generator(device=device).manual_seed(seed)

    def init_action(self):
        actions = torch.zeros(self.n_envs, self.horizon, self.n_actions).to(self.device)
        actions = actions.unsqueeze(1).repeat_interleave(self.num_samples, dim=1)
        actions[:, 1:] += torch.randn(actions[:, 1:].shape, generator=self.torch_gen, device=self.device) * self.var_scale
        self.register_parameter("init", torch.nn.Parameter(actions))

    def _project_action_simplex(self, actions):
        clipped = actions.clamp(min=0)
        return clipped / clipped.sum(-1, keepdim=True).clamp(min=1e-6)

    def solve(self, info):
        with torch.no_grad():
            self.init_action()
        batch_init = self.init.clone().detach()
        batch_init.requires_grad = True
        optim = torch.optim.SGD([batch_init], lr=1.0)
        for step in range(self.n_steps):
            cost = self.model.get_cost(info, batch_init).sum()
            cost.backward()
            optim.step()
            optim.zero_grad(set_to_none=True)
            if self.action_noise > 0:
                batch_init.data += torch.randn(batch_init.shape, generator=self.torch_gen) * self.action_noise
            with torch.no_grad():
                batch_init.copy_(self._project_action_simplex(batch_init))
        return batch_init.argmax(-1)


class GoalCost(torch.nn.Module):
    def __init__(self, n_actions):
        super().__init__()
        self.values = torch.nn.Linear(n_actions, 1)

    def get_cost(self, info, actions):
        return self.values(actions).squeeze(-1).sum(-1) + (actions - info["goal"][:, None]).pow(2).sum((-1, -2))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = GoalCost(n_actions=4).to(device)
    solver = PGDSolver(model, n_steps=5, n_envs=2, horizon=3, n_actions=4, num_samples=2, action_noise=0.1,
                       device=device)
    goal = torch.softmax(torch.randn(2, 3, 4), -1).to(device)
    return solver.solve({"goal": goal})


if __name__ == "__main__":
    main()
