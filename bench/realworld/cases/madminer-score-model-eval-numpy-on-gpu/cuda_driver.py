"""MadMiner's score estimator evaluated a numpy array of observables through evaluate_local_score_model, which moves
model and inputs to CUDA whenever run_on_gpu (the default) holds and a GPU exists; in bad the estimated scores are
turned into numpy with .numpy() while still on the GPU."""

import numpy as np
import torch


def run(program, device):
    # evaluate_local_score_model picks CUDA itself (run_on_gpu=True and torch.cuda.is_available()).
    torch.manual_seed(0)
    x = np.random.default_rng(0).random((5, 3))
    estimator = program["ScoreEstimator"](n_observables=3, n_parameters=2)
    t_hat = estimator.evaluate_score(x)
    assert isinstance(t_hat, np.ndarray) and t_hat.shape == (5, 2)
