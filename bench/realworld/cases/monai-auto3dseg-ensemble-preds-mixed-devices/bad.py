"""Auto3DSeg model ensembling (reconstruction of monai.apps.auto3dseg.ensemble_builder.AlgoEnsemble)."""

import torch
from torch import nn


class MeanEnsemble:
    def __init__(self, weights=None):
        self.weights = torch.as_tensor(weights, dtype=torch.float) if weights is not None else None

    def __call__(self, img):
        img_ = torch.stack(img) if isinstance(img, (list, tuple)) else torch.as_tensor(img)
        if self.weights is not None:
            img_ = img_ * self.weights.to(img_.device).view(-1, *([1] * (img_.ndim - 1)))
        return img_.mean(0)


def prob2class(x, dim=0, keepdim=True, sigmoid=False):
    return (x > 0.5).int() if sigmoid else x.argmax(dim=dim, keepdim=keepdim)


class BundleInfer:
    """One trained algorithm; large volumes are stitched on the CPU when the config asks for it."""

    def __init__(self, net, device, cpu_stitching):
        self.net = net.to(device).eval()
        self.device = device
        self.cpu_stitching = cpu_stitching

    def predict(self, predict_files, predict_params=None):
        outs = []
        for image in predict_files:
            with torch.no_grad():
                prob = torch.softmax(self.net(image[None].to(self.device))[0], 0)
            outs.append(prob.cpu() if self.cpu_stitching else prob)
        return outs


class AlgoEnsemble:
    def __init__(self, algos, infer_files, mode="mean"):
        self.algo_ensemble = [{"algo_instance": a} for a in algos]
        self.infer_files = infer_files
        self.mode = mode

    def ensemble_pred(self, preds, sigmoid=False):
        if self.mode == "mean":
            prob = MeanEnsemble()(preds)
            return prob2class(prob, dim=0, keepdim=True, sigmoid=sigmoid)
        classes = [prob2class(p, dim=0, keepdim=True, sigmoid=sigmoid) for p in preds]
        return torch.mode(torch.stack(classes), dim=0).values

    def __call__(self, pred_param=None):
        param = dict(pred_param or {})
        sigmoid = param.pop("sigmoid", False)
        outputs = []
        for file in self.infer_files:
            preds = []
            for algo in self.algo_ensemble:
                infer_instance = algo["algo_instance"]
                pred = infer_instance.predict(predict_files=[file], predict_params=param)
                preds.append(pred[0])
            outputs.append(self.ensemble_pred(preds, sigmoid=sigmoid))
        return outputs


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    algos = [BundleInfer(nn.Conv3d(1, 3, 1), dev, cpu_stitching=False), BundleInfer(nn.Conv3d(1, 3, 1), dev, cpu_stitching=True)]
    AlgoEnsemble(algos, [torch.rand(1, 8, 8, 8)])()
