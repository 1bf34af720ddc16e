"""Drawing parameters and simulating them in parallel (reconstruction of sbi/utils/simulation_utils.py)."""

from typing import Any, Callable, Optional

import numpy as np
import torch
from joblib import Parallel, delayed
from torch import Tensor


def seed_all_backends(seed: Optional[int]) -> None:
    if seed is not None:
        np.random.seed(seed)
        torch.manual_seed(seed)


def simulate_for_sbi(simulator: Callable, proposal: Any, num_simulations: int, num_workers: int = 1,
                     simulation_batch_size: Optional[int] = 1, seed: Optional[int] = None):
    if num_simulations == 0:
        return torch.tensor([]), torch.tensor([])

    seed_all_backends(seed)
    theta = proposal.sample((num_simulations,))
    simulation_batch_size = num_simulations if simulation_batch_size is None else min(simulation_batch_size, num_simulations)

    if num_workers != 1:
        # joblib iterates faster over numpy arrays than over tensors
        num_batches = num_simulations // simulation_batch_size
        batches = np.array_split(theta.cpu().numpy(), num_batches, axis=0)
        batch_seeds = np.random.randint(low=0, high=1_000_000, size=(len(batches),))

        def simulator_seeded(batch, batch_seed):
            seed_all_backends(batch_seed)
            return simulator(batch)

        outputs = list(Parallel(n_jobs=num_workers)(
            delayed(simulator_seeded)(batch, batch_seed) for batch, batch_seed in zip(batches, batch_seeds)))
        x = torch.from_numpy(np.concatenate(outputs, axis=0)).float()
    else:
        x = torch.cat([simulator(batch) for batch in theta.split(simulation_batch_size, dim=0)], dim=0)
    return theta, x


class BoxUniform(torch.distributions.Independent):
    def __init__(self, low, high, device="cpu"):
        low = torch.as_tensor(low, dtype=torch.float32, device=device)
        high = torch.as_tensor(high, dtype=torch.float32, device=device)
        super().__init__(torch.distributions.Uniform(low, high), 1)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    prior = BoxUniform(low=-2 * torch.ones(3), high=2 * torch.ones(3), device=device)

    def simulator(theta):
        return theta + 0.1 * np.random.randn(*theta.shape)

    return simulate_for_sbi(simulator, prior, num_simulations=100, num_workers=4, simulation_batch_size=10)


if __name__ == "__main__":
    main()
