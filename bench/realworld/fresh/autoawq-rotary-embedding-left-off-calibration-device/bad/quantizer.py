"""Calibration start of the AWQ quantizer (reconstruction of awq/quantize/quantizer.py: init_quant)."""

import torch
from torch import nn

from llama_awq import LlamaAWQForCausalLM, LlamaForCausalLM


def get_best_device():
    if torch.cuda.is_available():
        return "cuda:0"
    return "cpu"


class AwqQuantizer:
    def __init__(self, awq_model, model, samples):
        self.awq_model = awq_model
        self.model = model
        self.samples = samples

    def init_quant(self):
        modules = self.awq_model.get_model_layers(self.model)
        samples = torch.cat(self.samples, dim=0)
        inps = []
        layer_kwargs = {}

        # only the first block and the embeddings visit the accelerator; the rest stays on the CPU
        best_device = get_best_device()
        modules[0] = modules[0].to(best_device)
        self.awq_model.move_embed(self.model, best_device)

        class Catcher(nn.Module):
            def __init__(self, module):
                super().__init__()
                self.module = module

            def forward(self, *args, **kwargs):
                inps.append(args[0])
                layer_kwargs.update(kwargs)
                raise ValueError  # stop once the first block's input is known

        modules[0] = Catcher(modules[0])
        try:
            self.model(samples.to(next(self.model.parameters()).device))
        except ValueError:
            pass
        modules[0] = modules[0].module

        modules[0] = modules[0].cpu()
        self.awq_model.move_embed(self.model, "cpu")
        return modules, layer_kwargs, inps[0]


def main():
    model = LlamaForCausalLM()
    samples = [torch.randint(0, 32, (1, 6)) for _ in range(2)]
    quantizer = AwqQuantizer(LlamaAWQForCausalLM(), model, samples)
    return quantizer.init_quant()


if __name__ == "__main__":
    main()
