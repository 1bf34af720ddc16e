"""Hierarchical codebook heads of a TTS decoder (reconstruction of ToucanTTS.forward's codebook loop)."""

import torch
from torch import nn


class CodebookTTS(nn.Module):
    def __init__(self, hidden=8, num_codebooks=2, codebook_size=5, backtranslation_dim=4, autoregressive_context=2):
        super().__init__()
        self.num_codebooks = num_codebooks
        self.backtranslation_dim = backtranslation_dim
        self.autoregressive_context = autoregressive_context
        self.decoder = nn.Linear(hidden, hidden)
        first_in = hidden + autoregressive_context * backtranslation_dim
        self.hierarchical_classifier = nn.ModuleList(
            [nn.Linear(first_in, codebook_size)]
            + [nn.Linear(hidden + i * backtranslation_dim, codebook_size) for i in range(1, num_codebooks)]
        )
        self.backtranslation_heads = nn.ModuleList(
            [nn.Embedding(codebook_size, backtranslation_dim) for _ in range(num_codebooks)]
        )

    def forward(self, encoded_texts):
        decoded_speech = self.decoder(encoded_texts)
        predicted = []
        previous_indexes = []
        for head_index, classifier_head in enumerate(self.hierarchical_classifier):
            if head_index == 0:
                step_predictions = []
                step_backtranslated = []
                for t in range(decoded_speech.size(1)):
                    context_tokens = []
                    if t < self.autoregressive_context:
                        for _ in range(self.autoregressive_context - t):
                            context_tokens.append(torch.zeros([decoded_speech.size(0), self.backtranslation_dim]))
                    context_tokens = context_tokens + step_backtranslated[-min(t, self.autoregressive_context):]
                    step_predictions.append(classifier_head(torch.cat(context_tokens + [decoded_speech[:, t, :]], dim=1)))
                    lookup = torch.argmax(step_predictions[-1], dim=-1)
                    step_backtranslated.append(self.backtranslation_heads[head_index](lookup))
                predicted.append(torch.stack(step_predictions, dim=1))
            else:
                predicted.append(classifier_head(torch.cat([decoded_speech] + previous_indexes, dim=2)))
            lookup = torch.argmax(predicted[-1], dim=-1)
            previous_indexes.append(self.backtranslation_heads[head_index](lookup))
        return torch.cat(predicted, dim=2)


def main(device):
    model = CodebookTTS().to(device)
    text = torch.rand(2, 4, 8, device=device)
    return model(text)


def run(device):
    main(device)


if __name__ == "__main__":
    main(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
