"""A language model with prediction heads on top (reconstruction of farm/modeling/adaptive_model.py)."""

import torch
from torch import nn

from prediction_head import TextClassificationHead


class TinyLanguageModel(nn.Module):
    def __init__(self, vocab=100, hidden=32):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, hidden)
        self.encoder = nn.Linear(hidden, hidden)
        self.hidden = hidden

    def get_output_dims(self):
        return self.hidden

    def forward(self, input_ids):
        sequence_output = torch.tanh(self.encoder(self.embeddings(input_ids)))
        return sequence_output, sequence_output[:, 0]


class AdaptiveModel(nn.Module):
    def __init__(self, language_model, prediction_heads, embeds_dropout_prob, lm_output_types, device):
        super().__init__()
        self.language_model = language_model.to(device)
        self.lm_output_dims = language_model.get_output_dims()
        self.prediction_heads = nn.ModuleList([ph.to(device) for ph in prediction_heads])
        self.fit_heads_to_lm()
        self.dropout = nn.Dropout(embeds_dropout_prob)
        self.lm_output_types = [lm_output_types] if isinstance(lm_output_types, str) else lm_output_types

    def fit_heads_to_lm(self):
        for ph in self.prediction_heads:
            ph.resize_input(self.lm_output_dims)

    def forward(self, input_ids):
        sequence_output, pooled_output = self.language_model(input_ids)
        all_logits = []
        for head, lm_out in zip(self.prediction_heads, self.lm_output_types):
            output = pooled_output if lm_out == "per_sequence" else sequence_output
            all_logits.append(head(self.dropout(output)))
        return all_logits

    def logits_to_loss_per_head(self, logits, label_ids):
        return [head.logits_to_loss(lg, label_ids) for head, lg in zip(self.prediction_heads, logits)]


def run(device):
    head = TextClassificationHead(layer_dims=[768, 2])
    model = AdaptiveModel(TinyLanguageModel(), [head], embeds_dropout_prob=0.1,
                          lm_output_types=["per_sequence"], device=device)
    input_ids = torch.randint(0, 100, (4, 6)).to(device)
    labels = torch.randint(0, 2, (4,)).to(device)
    logits = model(input_ids)
    return sum(loss.mean() for loss in model.logits_to_loss_per_head(logits, labels))


if __name__ == "__main__":
    run("cuda" if torch.cuda.is_available() else "cpu")
