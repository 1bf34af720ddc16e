"""Playing a virtual trajectory with a trained MuZero model (reconstruction of diagnose_model.py and of the
search that feeds it)."""

import torch

import models


def run_search(model, observation):
    """The search sends the observation to wherever the model's parameters are."""
    observation = torch.tensor(observation).float().unsqueeze(0).to(next(model.parameters()).device)
    return model.initial_inference(observation)


class DiagnoseModel:
    def __init__(self, checkpoint, config):
        self.config = config
        self.model = models.MuZeroNetwork(self.config)
        self.model.set_weights(checkpoint["weights"])
        self.model.eval()

    def get_virtual_trajectory_from_obs(self, observation, horizon):
        value, policy_logits, hidden_state = run_search(self.model, observation)
        actions = []
        for _ in range(horizon):
            action = policy_logits.argmax(dim=1, keepdim=True)
            value, policy_logits, hidden_state = self.model.recurrent_inference(
                hidden_state, action.to(hidden_state.device))
            actions.append(int(action))
        return actions


def main():
    config = {"observation_size": 4, "action_space_size": 2, "encoding_size": 8}
    trained = models.MuZeroNetwork(config)  # stands in for the checkpoint saved by the trainer
    checkpoint = {"weights": trained.get_weights()}
    diagnoser = DiagnoseModel(checkpoint, config)
    return diagnoser.get_virtual_trajectory_from_obs([0.1, -0.2, 0.05, 0.0], horizon=3)


if __name__ == "__main__":
    main()
