"""RHO-LOSS downsampling inside the trainer server (reconstruction of
modyn/trainer_server/internal/trainer/remote_downsamplers/remote_rho_loss_downsampling.py and the
trainer's sample-then-batch loop)."""

import torch
from torch import nn


class AbstractRemoteDownsamplingStrategy:
    def __init__(self, pipeline_id, trigger_id, batch_size, params_from_selector, modyn_config, device):
        self.pipeline_id = pipeline_id
        self.trigger_id = trigger_id
        self.batch_size = batch_size
        self.downsampling_ratio = params_from_selector["downsampling_ratio"]
        self.device = device


class IrreducibleLossProducer:
    """Stand-in: a holdout model that scores each sample."""

    def __init__(self, per_sample_loss, modyn_config, rho_pipeline_id, il_model_id, device):
        self.per_sample_loss = per_sample_loss
        self.model = nn.Linear(4, 3).to(device)

    def get_irreducible_loss(self, sample_ids, forward_input, target):
        with torch.no_grad():
            return self.per_sample_loss(self.model(forward_input), target)


class RemoteRHOLossDownsampling(AbstractRemoteDownsamplingStrategy):
    def __init__(self, pipeline_id, trigger_id, batch_size, params_from_selector, modyn_config,
                 per_sample_loss, device):
        super().__init__(pipeline_id, trigger_id, batch_size, params_from_selector, modyn_config, device)
        self.per_sample_loss_fct = per_sample_loss
        self.irreducible_loss_producer = IrreducibleLossProducer(
            per_sample_loss, modyn_config, params_from_selector["rho_pipeline_id"],
            params_from_selector["il_model_id"], device)
        self.rho_loss = torch.tensor([])
        self.number_of_points_seen = 0
        self._device = device

    def init_downsampler(self):
        self.index_sampleid_map = []
        self.rho_loss = torch.tensor([]).to(self._device)
        self.number_of_points_seen = 0

    def inform_samples(self, sample_ids, forward_input, forward_output, target, embedding=None):
        training_loss = self.per_sample_loss_fct(forward_output, target).detach()
        self.index_sampleid_map += sample_ids
        irreducible_loss = self.irreducible_loss_producer.get_irreducible_loss(sample_ids, forward_input, target)
        self.rho_loss = torch.cat([self.rho_loss, training_loss - irreducible_loss]).to(training_loss.dtype)
        self.number_of_points_seen += forward_output.shape[0]

    def select_points(self):
        target_size = max(int(self.downsampling_ratio * self.number_of_points_seen / 100), 1)
        selected_indices = torch.topk(self.rho_loss, target_size).indices
        return [self.index_sampleid_map[i] for i in sorted(selected_indices.tolist())], torch.ones(target_size)


class PytorchTrainer:
    def __init__(self, device):
        self._device = device
        self._model = nn.Linear(4, 3).to(device)
        self._downsampler = RemoteRHOLossDownsampling(
            1, 0, 8, {"downsampling_ratio": 50, "rho_pipeline_id": 2, "il_model_id": 3}, {},
            nn.CrossEntropyLoss(reduction="none"), device)

    def inform_downsampler(self, batches):
        self._downsampler.init_downsampler()
        self._model.eval()
        with torch.no_grad():
            for sample_ids, data, target in batches:
                data, target = data.to(self._device), target.to(self._device)
                self._downsampler.inform_samples(sample_ids, data, self._model(data), target)


def run(device):
    batches = [([0, 1, 2, 3], torch.randn(4, 4), torch.randint(0, 3, (4,)))]
    PytorchTrainer(device).inform_downsampler(batches)
