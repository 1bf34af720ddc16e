"""SetFit evaluation with a differentiable head (reconstruction of setfit/trainer.py SetFitTrainer.evaluate,
SetFitModel.predict and the user script from the issue)."""

import numpy as np
import torch
from torch import nn


class SetFitHead(nn.Module):
    def __init__(self, in_features, out_features, device=None):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))

    def predict(self, x_test):
        probs = self.linear(x_test).softmax(dim=-1)
        return torch.argmax(probs, dim=-1)


class SetFitModel:
    def __init__(self, dim=8, num_labels=3):
        self.model_body = nn.Linear(dim, dim)
        self.model_head = SetFitHead(dim, num_labels)
        self.model_body.to(next(self.model_head.parameters()).device)
        self.has_differentiable_head = True

    def predict(self, x_test, as_numpy=False):
        device = next(self.model_body.parameters()).device
        embeddings = self.model_body(torch.as_tensor(x_test, dtype=torch.float32).to(device))
        outputs = self.model_head.predict(embeddings)
        return outputs.cpu().numpy() if as_numpy else outputs


class SetFitTrainer:
    def __init__(self, model, eval_dataset, metric):
        self.model = model
        self.eval_dataset = eval_dataset
        self.metric = metric

    def evaluate(self):
        x_test = self.eval_dataset["text"]
        y_test = self.eval_dataset["label"]
        y_pred = self.model.predict(x_test)
        if isinstance(y_pred, torch.Tensor):
            y_pred = y_pred.cpu()

        if isinstance(self.metric, str):
            return {"accuracy": float(np.mean(np.asarray(y_pred) == np.asarray(y_test)))}
        elif callable(self.metric):
            return self.metric(y_pred, y_test)
        else:
            raise ValueError("metric must be a string or a callable")


def compute_metrics(predictions, references):
    predictions = predictions.numpy()
    return {"accuracy": float((predictions == np.asarray(references)).mean())}


if __name__ == "__main__":
    eval_dataset = {"text": np.random.rand(6, 8), "label": [0, 1, 2, 0, 1, 2]}
    trainer = SetFitTrainer(SetFitModel(), eval_dataset, metric=compute_metrics)
    print(trainer.evaluate())
