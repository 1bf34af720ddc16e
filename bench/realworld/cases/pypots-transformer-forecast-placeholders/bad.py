"""Transformer forecaster core (reconstruction of pypots/forecasting/transformer/core.py) and its predict path."""

import torch
import torch.nn as nn


class SaitsEmbedding(nn.Module):
    def __init__(self, d_in, d_out, n_max_steps):
        super().__init__()
        self.embedding_layer = nn.Linear(d_in, d_out)
        self.register_buffer("pos_table", torch.randn(1, n_max_steps, d_out) * 0.02)

    def forward(self, X, missing_mask):
        return self.embedding_layer(torch.cat([X, missing_mask], dim=2)) + self.pos_table[:, : X.size(1)]


class _Transformer(nn.Module):
    def __init__(self, n_steps, n_features, n_pred_steps, n_pred_features, d_model=8, n_heads=2):
        super().__init__()
        self.n_steps = n_steps
        self.n_pred_steps = n_pred_steps
        self.n_pred_features = n_pred_features
        self.encoder_saits_embedding = SaitsEmbedding(n_features * 2, d_model, n_steps)
        self.decoder_saits_embedding = SaitsEmbedding(n_features * 2, d_model, n_pred_steps)
        self.encoder = nn.TransformerEncoderLayer(d_model, n_heads, 16, batch_first=True)
        self.decoder = nn.TransformerDecoderLayer(d_model, n_heads, 16, batch_first=True)
        self.output_projection = nn.Linear(d_model, n_pred_features)

    def forward(self, inputs):
        X, missing_mask = inputs["X"], inputs["missing_mask"]
        if self.training:
            X_pred, X_pred_missing_mask = inputs["X_pred"], inputs["X_pred_missing_mask"]
        else:
            batch_size = X.shape[0]
            X_pred, X_pred_missing_mask = (
                torch.zeros(batch_size, self.n_pred_steps, self.n_pred_features),
                torch.ones(batch_size, self.n_pred_steps, self.n_pred_features),
            )
        enc_output = self.encoder(self.encoder_saits_embedding(X, missing_mask))
        input_X_pred = self.decoder_saits_embedding(X_pred, X_pred_missing_mask)
        dec_output = self.decoder(input_X_pred, enc_output)
        results = {"forecasting_data": self.output_projection(dec_output)}
        if self.training:
            results["loss"] = ((results["forecasting_data"] - X_pred) ** 2 * X_pred_missing_mask).mean()
        return results


class Transformer:
    def __init__(self, n_steps, n_features, n_pred_steps, device=None):
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = _Transformer(n_steps, n_features, n_pred_steps, n_features).to(self.device)

    def _assemble_input_for_predicting(self, X):
        X = X.to(self.device)
        missing_mask = (~torch.isnan(X)).float()
        return {"X": torch.nan_to_num(X), "missing_mask": missing_mask}

    def predict(self, X):
        self.model.eval()
        with torch.no_grad():
            return self.model(self._assemble_input_for_predicting(X))["forecasting_data"]


def run(device):
    Transformer(n_steps=6, n_features=3, n_pred_steps=2, device=device).predict(torch.randn(4, 6, 3))


if __name__ == "__main__":
    Transformer(n_steps=6, n_features=3, n_pred_steps=2).predict(torch.randn(4, 6, 3))
