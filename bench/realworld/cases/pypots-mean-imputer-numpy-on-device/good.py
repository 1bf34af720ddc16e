"""Mean-value imputer (reconstruction of pypots/imputation/mean/model.py)."""

import numpy as np
import torch


class Mean:
    """Fills every missing value with its feature's mean; accepts numpy arrays or torch tensors."""

    def fit(self, train_set, val_set=None):
        pass

    def predict(self, test_set):
        X = test_set["X"]
        assert len(X.shape) == 3, "X should be [n_samples, n_steps, n_features]"
        if isinstance(X, list):
            X = np.asarray(X)
        n_samples, n_steps, n_features = X.shape

        if isinstance(X, np.ndarray):
            X_imputed_reshaped = np.copy(X).reshape(-1, n_features)
            mean_values = np.nanmean(X_imputed_reshaped, axis=0)
            for i, v in enumerate(mean_values):
                X_imputed_reshaped[:, i] = np.nan_to_num(X_imputed_reshaped[:, i], nan=v)
            imputed_data = X_imputed_reshaped.reshape(n_samples, n_steps, n_features)
        elif isinstance(X, torch.Tensor):
            X_imputed_reshaped = torch.clone(X).reshape(-1, n_features)
            mean_values = torch.nanmean(X_imputed_reshaped, dim=0)
            mean_values = torch.nan_to_num(mean_values, nan=0.0)
            nan_mask = torch.isnan(X_imputed_reshaped)
            X_imputed_reshaped = torch.where(
                nan_mask, mean_values.unsqueeze(0).expand_as(X_imputed_reshaped), X_imputed_reshaped
            )
            imputed_data = X_imputed_reshaped.reshape(n_samples, n_steps, n_features)
        else:
            raise ValueError()
        return {"imputation": imputed_data}


def main(device):
    X = torch.randn(2, 5, 3)
    X[0, 1, 2] = float("nan")
    return Mean().predict({"X": X.to(device)})["imputation"]


if __name__ == "__main__":
    main(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
