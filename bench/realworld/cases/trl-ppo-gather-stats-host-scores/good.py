"""PPO step statistics under multi-GPU Accelerate (reconstruction of trl/trainer/ppo_trainer.py:
step(), record_step_stats() and gather_stats())."""

import torch
import torch.distributed as dist
from accelerate import Accelerator
from torch import nn


class PPOTrainer:
    def __init__(self, model, batch_size):
        self.accelerator = Accelerator()
        self.model = self.accelerator.prepare(model)
        self.batch_size = batch_size
        self.is_distributed = self.accelerator.num_processes > 1

    def train_minibatch(self, queries):
        logprobs = torch.log_softmax(self.model(queries), dim=-1)
        loss = -logprobs.mean()
        return dict(loss=loss.detach(), entropy=(-logprobs.exp() * logprobs).sum(-1).mean().detach()), logprobs

    def step(self, queries, responses, scores):
        scores = torch.tensor(scores)
        queries = queries.to(self.accelerator.device)
        train_stats, logprobs = self.train_minibatch(queries)
        stats = self.record_step_stats(scores=scores, logprobs=logprobs, train_stats=train_stats, responses=responses)
        if self.is_distributed:
            stats = self.gather_stats(stats)
        return {k: v.cpu().numpy() if isinstance(v, torch.Tensor) else v for k, v in stats.items()}

    def record_step_stats(self, **data):
        mean_kl = data["logprobs"].sum(-1).mean()
        stats = {
            "objective/kl": mean_kl,
            "ppo/mean_scores": data["scores"].mean(),
            "ppo/std_scores": data["scores"].std(),
        }
        response_lens = torch.tensor([len(r) for r in data["responses"]], dtype=torch.float)
        stats["tokens/responses_len_mean"] = torch.mean(response_lens).cpu().numpy().item()
        for k, v in data["train_stats"].items():
            stats[f"ppo/{k}"] = v
        return stats

    def gather_stats(self, stats):
        dist.barrier()
        for k, v in stats.items():
            if isinstance(v, torch.Tensor):
                v = v.to(self.accelerator.device)
                dist.all_reduce(v, dist.ReduceOp.SUM)
                v /= self.accelerator.num_processes
            stats[k] = v
        return stats


def main():
    trainer = PPOTrainer(nn.Linear(8, 8), batch_size=4)
    queries = torch.randn(4, 8)
    responses = [[1, 2], [3], [4, 5, 6], [7]]
    scores = [1.0, 0.5, -0.2, 0.3]
    return trainer.step(queries, responses, scores)


if __name__ == "__main__":
    print(main())
