"""SetFit model loading with a differentiable head (reconstruction of setfit/modeling.py: SetFitHead.__init__
and SetFitModel._from_pretrained / predict)."""

import torch
from torch import nn


class SentenceEncoder(nn.Module):
    """Stand-in for the SentenceTransformer body."""

    def __init__(self, vocab=100, dim=16, device=None):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim)
        self.to(device or "cpu")

    @property
    def device(self):
        return next(self.parameters()).device

    def get_sentence_embedding_dimension(self):
        return self.embed.embedding_dim

    def encode(self, token_ids):
        return self.embed(token_ids.to(self.device))


class SetFitHead(nn.Module):
    def __init__(self, in_features=None, out_features=2, temperature=1.0, device=None, multitarget=False):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.temperature = temperature
        self._device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.multitarget = multitarget
        self.to(self._device)

    def forward(self, x):
        logits = self.linear(x) / self.temperature
        return logits, (torch.sigmoid(logits) if self.multitarget else logits.softmax(dim=-1))

    def predict(self, x):
        self.eval()
        return self(x)[1].argmax(dim=-1)


class SetFitModel:
    def __init__(self, model_body, model_head):
        self.model_body = model_body
        self.model_head = model_head

    @classmethod
    def from_pretrained(cls, model_id, use_differentiable_head=True, device=None, head_params=None):
        model_body = SentenceEncoder(device=device)
        device = model_body.device
        model_body.to(device)
        if use_differentiable_head:
            base_head_params = {"in_features": model_body.get_sentence_embedding_dimension(), "device": device}
            model_head = SetFitHead(**{**(head_params or {}), **base_head_params})
        else:
            raise NotImplementedError("logistic-regression head")
        return cls(model_body, model_head)

    def predict(self, token_ids):
        embeddings = self.model_body.encode(token_ids)
        return self.model_head.predict(embeddings)


def run(device):
    model = SetFitModel.from_pretrained("paraphrase-mpnet-base-v2", use_differentiable_head=True, device=device)
    return model.predict(torch.randint(0, 100, (4, 7)))


if __name__ == "__main__":
    print(run(torch.device("mps")))
