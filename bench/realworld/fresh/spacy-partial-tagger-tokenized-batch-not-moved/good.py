"""A spaCy/thinc layer that feeds a Hugging Face transformer (reconstruction of
spacy_partial_tagger/layers/tok2vec_transformer.py)."""

from typing import Any, Optional

import torch
from thinc.api import Model, get_torch_default_device, torch2xp
from torch.nn import Module
from transformers import AutoModel, AutoTokenizer
from spacy.util import registry


class TransformerOutputs(Module):
    def __init__(self, transformer: Module) -> None:
        super().__init__()
        self.transformer = transformer

    def forward(self, encoded):
        lengths = encoded.attention_mask.sum(dim=-1)
        hidden = self.transformer(**encoded).last_hidden_state
        return hidden, lengths


@registry.architectures.register("example.Tok2VecTransformer.v1")
def build_tok2vec_transformer(model_name: str, max_length: Optional[int] = None) -> Model:
    return Model(
        "tok2vec_transformer",
        forward=forward,
        init=init,
        dims={"nO": None},
        attrs={"model_name": model_name, "max_length": max_length},
    )


def init(model: Model, X: Any = None, Y: Any = None) -> None:
    if model.layers:
        return
    name = model.attrs["model_name"]
    model.attrs["tokenizer"] = AutoTokenizer.from_pretrained(name)
    wrap = registry.get("layers", "PyTorchWrapper.v2")
    encoder = AutoModel.from_pretrained(name)
    # thinc's wrapper puts the torch module on thinc's default torch device (the GPU after spacy.require_gpu())
    model._layers = [wrap(TransformerOutputs(encoder), convert_outputs=convert_outputs)]
    model.set_dim("nO", encoder.config.hidden_size)


def forward(model: Model, docs: Any, is_train: bool):
    tokenizer = model.attrs["tokenizer"]
    texts = [doc.text for doc in docs]
    device = get_torch_default_device()
    max_length = model.attrs["max_length"]
    padding = "max_length" if max_length is not None else "longest"
    encoded = tokenizer(
        texts,
        return_attention_mask=True,
        return_tensors="pt",
        padding=padding,
        max_length=max_length,
        truncation=False,
    ).to(device)
    hidden, backprop = model.layers[0](encoded, is_train)
    return hidden, backprop


def convert_outputs(model: Model, inputs_outputs, is_train: bool):
    _, (hidden, lengths) = inputs_outputs
    padded = torch2xp(hidden)
    return model.ops.unpad(padded, lengths.tolist()), lambda d_hidden: None
