"""Sequence tagger for grammatical error correction (reconstruction of gector/seq2labels_model.py and its predictor)."""

import torch
import torch.nn.functional as F
from torch import nn


class Seq2Labels(nn.Module):
    def __init__(self, vocab_size, num_labels_classes, num_detect_classes=4, dim=16, confidence=0.0,
                 incorr_index=1):
        super().__init__()
        self.embedder = nn.Embedding(vocab_size, dim)
        self.num_labels_classes = num_labels_classes
        self.num_detect_classes = num_detect_classes
        self.confidence = confidence
        self.incorr_index = incorr_index
        self.predictor_dropout = nn.Dropout(0.0)
        self.tag_labels_projection_layer = nn.Linear(dim, num_labels_classes)
        self.tag_detect_projection_layer = nn.Linear(dim, num_detect_classes)

    def forward(self, tokens):
        encoded_text = self.embedder(tokens)
        batch_size, sequence_length, _ = encoded_text.size()
        mask = (tokens != 0).float()
        logits_labels = self.tag_labels_projection_layer(self.predictor_dropout(encoded_text))
        logits_d = self.tag_detect_projection_layer(encoded_text)
        class_probabilities_labels = F.softmax(logits_labels, dim=-1).view(
            [batch_size, sequence_length, self.num_labels_classes])
        class_probabilities_d = F.softmax(logits_d, dim=-1).view([batch_size, sequence_length, self.num_detect_classes])
        incorr_prob = torch.max(class_probabilities_d[:, :, self.incorr_index] * mask, dim=-1)[0]

        if self.confidence > 0:
            probability_change = [self.confidence] + [0] * (self.num_labels_classes - 1)
            class_probabilities_labels += torch.FloatTensor(probability_change).repeat(
                (batch_size, sequence_length, 1)).to(class_probabilities_labels.device)

        return {"logits_labels": logits_labels, "class_probabilities_labels": class_probabilities_labels,
                "max_error_probability": incorr_prob}


class GecModel:
    def __init__(self, confidence=0.0):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = Seq2Labels(vocab_size=50, num_labels_classes=6, confidence=confidence).to(self.device)
        self.model.eval()

    def predict(self, batch):
        with torch.no_grad():
            return self.model(batch.to(self.device))


if __name__ == "__main__":
    GecModel(confidence=0.2).predict(torch.randint(1, 50, (2, 7)))
