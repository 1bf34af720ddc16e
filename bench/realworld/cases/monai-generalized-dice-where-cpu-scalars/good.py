"""Generalized Dice score metric (reconstruction of monai.metrics.generalized_dice)."""

import torch


class GeneralizedDiceScore:
    def __init__(self, include_background=True, weight_type="square"):
        self.include_background = include_background
        self.weight_type = weight_type
        self._buffer = []

    def __call__(self, y_pred, y):
        self._buffer.append(compute_generalized_dice(y_pred, y, self.include_background, self.weight_type))

    def aggregate(self):
        return torch.cat(self._buffer, 0).mean(0)


def compute_generalized_dice(y_pred, y, include_background=True, weight_type="square"):
    if y_pred.dim() < 3:
        raise ValueError("y_pred should have at least 3 dimensions")
    if y.shape != y_pred.shape:
        raise ValueError("y_pred and y should have the same shapes")
    if not include_background:
        y_pred, y = y_pred[:, 1:], y[:, 1:]

    axes = list(range(2, y_pred.dim()))
    intersection = torch.sum(y * y_pred, dim=axes)
    y_o = torch.sum(y, dim=axes)
    y_pred_o = torch.sum(y_pred, dim=axes)
    denominator = y_o + y_pred_o

    if weight_type == "simple":
        w = torch.reciprocal(y_o.float())
    elif weight_type == "square":
        w = torch.reciprocal(y_o.float() * y_o.float())
    else:
        w = torch.ones_like(y_o.float())
    for b in w:
        infs = torch.isinf(b)
        b[infs] = 0
        b[infs] = torch.max(b)

    numer = 2.0 * (intersection * w).sum(dim=1)
    denom = (denominator * w).sum(dim=1)
    score = numer / denom

    y_pred_o = y_pred_o.sum(dim=-1)
    denom_zeros = denom == 0
    score[denom_zeros] = torch.where(
        (y_pred_o == 0)[denom_zeros],
        torch.tensor(1.0, device=score.device),
        torch.tensor(0.0, device=score.device),
    )
    return score


def evaluate(model, loader, device):
    metric = GeneralizedDiceScore()
    with torch.no_grad():
        for image, label in loader:
            image, label = image.to(device), label.to(device)
            pred = torch.nn.functional.one_hot(model(image).argmax(1), 3).permute(0, 3, 1, 2).float()
            metric(pred, label)
    return metric.aggregate()


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = torch.nn.Conv2d(1, 3, 1).to(dev)
    lbl = torch.nn.functional.one_hot(torch.randint(0, 3, (2, 8, 8)), 3).permute(0, 3, 1, 2).float()
    print(evaluate(net, [(torch.rand(2, 1, 8, 8), lbl)], dev))
