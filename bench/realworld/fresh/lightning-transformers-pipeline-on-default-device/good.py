"""Inference through a Hugging Face pipeline built lazily from the task module
(reconstruction of lightning_transformers/core/model.py: TaskTransformer.hf_pipeline)."""

from typing import Any, Optional

import pytorch_lightning as pl
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer
from transformers import pipeline as hf_transformers_pipeline


class TaskTransformer(pl.LightningModule):
    def __init__(self, backbone: str, pipeline_kwargs: Optional[dict] = None):
        super().__init__()
        self.model = AutoModelForSequenceClassification.from_pretrained(backbone)
        self.tokenizer = AutoTokenizer.from_pretrained(backbone)
        self._hf_pipeline = None
        self._hf_pipeline_kwargs = pipeline_kwargs or {}

    @property
    def hf_pipeline_task(self) -> Optional[str]:
        return None

    @property
    def hf_pipeline(self):
        if self._hf_pipeline is None:
            if self.hf_pipeline_task is None:
                raise RuntimeError("No task was defined for this model. Try overriding `hf_pipeline_task`")
            # unless told otherwise, the pipeline runs where the module is
            self._hf_pipeline_kwargs["device"] = self._hf_pipeline_kwargs.get("device", self.device)
            self._hf_pipeline = hf_transformers_pipeline(
                task=self.hf_pipeline_task, model=self.model, tokenizer=self.tokenizer, **self._hf_pipeline_kwargs
            )
        return self._hf_pipeline

    def hf_predict(self, *args, **kwargs) -> Any:
        return self.hf_pipeline(*args, **kwargs)


class TextClassificationTransformer(TaskTransformer):
    @property
    def hf_pipeline_task(self) -> str:
        return "sentiment-analysis"


def main():
    model = TextClassificationTransformer("prajjwal1/bert-tiny")
    model.to(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
    return model.hf_predict("Lightning rocks!")


if __name__ == "__main__":
    main()
