"""Label-attention head of a text classifier (reconstruction of
torchTextClassifiers/model/components/text_embedder.py: LabelAttentionClassifier, and the model around it)."""

from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn


def norm(x):
    return F.rms_norm(x, (x.size(-1),))


class LabelAttentionClassifier(nn.Module):
    """Each label is a query that attends over the token embeddings."""

    def __init__(self, embedding_dim, num_classes, n_head):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.num_classes = num_classes
        self.n_head = n_head
        self.head_dim = embedding_dim // n_head
        self.label_embeds = nn.Embedding(num_classes, embedding_dim)
        self.c_q = nn.Linear(embedding_dim, embedding_dim, bias=False)
        self.c_k = nn.Linear(embedding_dim, embedding_dim, bias=False)
        self.c_v = nn.Linear(embedding_dim, embedding_dim, bias=False)
        self.c_proj = nn.Linear(embedding_dim, embedding_dim, bias=False)

    def forward(self, token_embeddings, compute_attention_matrix: Optional[bool] = False):
        B, T, C = token_embeddings.size()
        # one query per label, for every example of the batch
        label_indices = torch.arange(self.num_classes).expand(B, -1)
        label_embeddings = norm(self.label_embeds(label_indices))

        q = self.c_q(label_embeddings).view(B, self.num_classes, self.n_head, self.head_dim).transpose(1, 2)
        k = self.c_k(token_embeddings).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        v = self.c_v(token_embeddings).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        q, k = norm(q), norm(k)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=False)
        y = self.c_proj(y.transpose(1, 2).contiguous().view(B, self.num_classes, -1))
        attention = None
        if compute_attention_matrix:
            attention = torch.softmax(q @ k.transpose(-2, -1) / self.head_dim ** 0.5, dim=-1)
        return {"sentence_embedding": y, "attention_matrix": attention}


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size=100, embedding_dim=16, num_classes=4, n_head=2):
        super().__init__()
        self.token_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.label_attention = LabelAttentionClassifier(embedding_dim, num_classes, n_head)
        self.classifier = nn.Linear(embedding_dim, 1)

    def forward(self, input_ids):
        out = self.label_attention(self.token_embeddings(input_ids))
        return self.classifier(out["sentence_embedding"]).squeeze(-1)  # (batch, num_classes)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TextClassificationModel().to(device)
    input_ids = torch.randint(0, 100, (3, 7), device=device)
    return model(input_ids)


if __name__ == "__main__":
    main()
