"""EMA algorithm of a training framework (reconstruction of composer/algorithms/ema/ema.py) and a
resume-then-evaluate driver."""

import enum

import torch
from torch import nn


class Event(enum.Enum):
    INIT = "init"
    FIT_START = "fit_start"
    BATCH_START = "batch_start"
    BATCH_END = "batch_end"
    EVAL_START = "eval_start"
    EVAL_END = "eval_end"


class EMAParameters:
    def __init__(self, model):
        self.named_parameters_dict = {n: p.data.clone() for n, p in model.named_parameters()}
        self.named_buffers_dict = {n: b.data.clone() for n, b in model.named_buffers()}

    def swap_params(self, model):
        with torch.no_grad():
            for name, param in model.named_parameters():
                param.data, self.named_parameters_dict[name] = self.named_parameters_dict[name], param.data
            for name, buffer in model.named_buffers():
                buffer.data, self.named_buffers_dict[name] = self.named_buffers_dict[name], buffer.data

    def move_params_to_device(self, destination_model):
        model_state_dict = destination_model.state_dict()
        for name, param in self.named_parameters_dict.items():
            self.named_parameters_dict[name] = param.to(model_state_dict[name].device)
        for name, buffer in self.named_buffers_dict.items():
            self.named_buffers_dict[name] = buffer.to(model_state_dict[name].device)


class EMA:
    def __init__(self, smoothing=0.99):
        self.smoothing = smoothing
        self.ema_model = None
        self.ema_weights_active = False
        self.ema_started = True

    def apply(self, event, state):
        if event == Event.INIT:
            self.ema_model = EMAParameters(state.model)
        if event == Event.FIT_START:
            # ensure that params are on the right device if a checkpoint has been loaded
            self.ema_model.move_params_to_device(destination_model=state.model)
        if event == Event.EVAL_START:
            # verify that the ema params are on the correct device, also when eval runs before fit
            self.ema_model.move_params_to_device(destination_model=state.model)
        if event == Event.EVAL_START and self.ema_weights_active is False:
            self.ema_model.swap_params(state.model)
            self.ema_weights_active = True
        if event == Event.EVAL_END and self.ema_weights_active:
            self.ema_model.swap_params(state.model)
            self.ema_weights_active = False

    def load_state_dict(self, state_dict):
        self.ema_model.named_parameters_dict = state_dict["named_parameters_dict"]
        self.ema_model.named_buffers_dict = state_dict["named_buffers_dict"]


class State:
    def __init__(self, model):
        self.model = model


class Trainer:
    def __init__(self, model, algorithms, device, load_path=None):
        self.state = State(model)
        self.algorithms = algorithms
        self.device = device
        for algorithm in algorithms:
            algorithm.apply(Event.INIT, self.state)
        self.state.model.to(device)
        if load_path is not None:
            checkpoint = torch.load(load_path, map_location="cpu")
            for algorithm in algorithms:
                algorithm.load_state_dict(checkpoint["algorithms"]["EMA"])

    def eval(self, batches):
        for algorithm in self.algorithms:
            algorithm.apply(Event.EVAL_START, self.state)
        with torch.no_grad():
            for x in batches:
                self.state.model(x.to(self.device))
        for algorithm in self.algorithms:
            algorithm.apply(Event.EVAL_END, self.state)


if __name__ == "__main__":
    trainer = Trainer(nn.Linear(4, 2), [EMA()], torch.device("cuda"), load_path="ep1.pt")
    trainer.eval([torch.randn(3, 4)])
