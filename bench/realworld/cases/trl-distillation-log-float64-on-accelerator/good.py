"""On/off-policy loss logging of a distillation trainer (reconstruction of
trl/experimental/distillation/distillation_trainer.py, compute_loss bookkeeping and log())."""

import torch
import torch.distributed as dist
from accelerate import Accelerator
from accelerate.utils import DistributedType
from torch import nn


class DistillationTrainer:
    def __init__(self, model, gradient_accumulation_steps=1):
        self.accelerator = Accelerator()
        self.model = self.accelerator.prepare(model)
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self._on_policy_loss_total = self._off_policy_loss_total = 0.0
        self._on_policy_step_equiv = self._off_policy_step_equiv = 0.0

    def compute_loss(self, inputs, is_on_policy):
        loss = self.model(inputs.to(self.accelerator.device)).pow(2).mean()
        loss_scalar = float(loss.detach())
        step_equiv = 1.0 / self.gradient_accumulation_steps
        if is_on_policy:
            self._on_policy_loss_total += loss_scalar
            self._on_policy_step_equiv += step_equiv
        else:
            self._off_policy_loss_total += loss_scalar
            self._off_policy_step_equiv += step_equiv
        return loss

    def log(self, logs):
        device = self.accelerator.device if hasattr(self.accelerator, "device") else torch.device("cpu")
        vec = torch.tensor(
            [
                self._on_policy_loss_total,
                self._off_policy_loss_total,
                self._on_policy_step_equiv,
                self._off_policy_step_equiv,
            ],
            dtype=torch.float32,
            device=device,
        )
        if (
            getattr(self.accelerator, "distributed_type", DistributedType.NO) != DistributedType.NO
            and dist.is_available()
            and dist.is_initialized()
        ):
            dist.all_reduce(vec, op=dist.ReduceOp.SUM)
        on_sum, off_sum, on_eq, off_eq = vec.tolist()
        if on_eq > 0:
            logs["on_policy_loss"] = round(on_sum / on_eq, 4)
        if off_eq > 0:
            logs["off_policy_loss"] = round(off_sum / off_eq, 4)
        self._on_policy_loss_total = self._off_policy_loss_total = 0.0
        self._on_policy_step_equiv = self._off_policy_step_equiv = 0.0
        return logs


if __name__ == "__main__":
    trainer = DistillationTrainer(nn.Linear(4, 4))
    for step in range(4):
        trainer.compute_loss(torch.randn(2, 4), is_on_policy=step % 2 == 0)
    print(trainer.log({}))
