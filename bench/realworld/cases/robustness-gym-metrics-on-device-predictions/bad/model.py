"""Model wrapper evaluation (reconstruction of robustnessgym/core/model.py, Model.evaluate)."""

import torch
from torch import nn

from metrics import compute_metric


class Model:
    def __init__(self, net, device=None):
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.net = net.to(self.device)

    def predict_batch(self, batch):
        with torch.no_grad():
            logits = self.net(batch["x"].to(self.device))
        return {"pred": logits.argmax(dim=-1)}

    def evaluate(self, dataset, metrics, num_classes, batch_size=4):
        predictions, targets = [], []
        for idx in range(0, len(dataset["x"]), batch_size):
            batch = {k: v[idx : idx + batch_size] for k, v in dataset.items()}
            predictions.append(self.predict_batch(batch))
            targets.append({"label": torch.tensor(batch["label"])})
        predictions = {"pred": torch.cat([p["pred"] for p in predictions]).to("cpu")}
        labels = torch.cat([t["label"] for t in targets]).to("cpu")

        pred = predictions["pred"].to(self.device)
        target = labels.to(self.device)
        return {metric: compute_metric(metric, pred, target, num_classes) for metric in metrics}


if __name__ == "__main__":
    data = {"x": torch.randn(12, 5), "label": torch.randint(0, 3, (12,)).tolist()}
    print(Model(nn.Linear(5, 3)).evaluate(data, ["accuracy", "f1_macro"], num_classes=3))
