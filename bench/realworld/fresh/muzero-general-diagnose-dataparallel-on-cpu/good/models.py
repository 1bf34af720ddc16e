"""MuZero networks whose parts are wrapped in DataParallel (reconstruction of models.py)."""

import torch


def mlp(input_size, layer_sizes, output_size):
    sizes = [input_size] + list(layer_sizes) + [output_size]
    layers = []
    for i in range(len(sizes) - 1):
        layers += [torch.nn.Linear(sizes[i], sizes[i + 1]), torch.nn.ELU()]
    return torch.nn.Sequential(*layers[:-1])


class AbstractNetwork(torch.nn.Module):
    def get_weights(self):
        return {k: v.cpu() for k, v in self.state_dict().items()}

    def set_weights(self, weights):
        self.load_state_dict(weights)


class MuZeroFullyConnectedNetwork(AbstractNetwork):
    def __init__(self, observation_size, action_space_size, encoding_size, hidden=(16,)):
        super().__init__()
        self.action_space_size = action_space_size
        self.representation_network = torch.nn.DataParallel(mlp(observation_size, hidden, encoding_size))
        self.dynamics_network = torch.nn.DataParallel(mlp(encoding_size + action_space_size, hidden, encoding_size))
        self.prediction_network = torch.nn.DataParallel(mlp(encoding_size, hidden, action_space_size + 1))

    def initial_inference(self, observation):
        encoded = self.representation_network(observation.view(observation.shape[0], -1))
        out = self.prediction_network(encoded)
        return out[:, -1:], out[:, :-1], encoded

    def recurrent_inference(self, encoded_state, action):
        one_hot = torch.zeros((action.shape[0], self.action_space_size), device=action.device)
        one_hot.scatter_(1, action.long(), 1.0)
        next_state = self.dynamics_network(torch.cat((encoded_state, one_hot), dim=1))
        out = self.prediction_network(next_state)
        return out[:, -1:], out[:, :-1], next_state


class MuZeroNetwork:
    def __new__(cls, config):
        return MuZeroFullyConnectedNetwork(config["observation_size"], config["action_space_size"],
                                           config["encoding_size"])
