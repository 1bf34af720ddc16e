"""Quick evaluations of a language model (reconstruction of transformer_lens/evals.py)."""

import torch
import torch.nn.functional as F
from torch import nn


class TinyLM(nn.Module):
    """Stands in for a HookedTransformer: forward(tokens, return_type)."""

    def __init__(self, d_vocab=20100, d_model=16, bos_token_id=0):
        super().__init__()
        self.embed = nn.Embedding(d_vocab, d_model)
        self.unembed = nn.Linear(d_model, d_vocab)
        self.bos_token_id = bos_token_id

    def forward(self, tokens, return_type="logits"):
        logits = self.unembed(self.embed(tokens))
        if return_type == "logits":
            return logits
        return F.cross_entropy(logits[:, :-1].flatten(0, 1), tokens[:, 1:].flatten(), reduction="none")


@torch.inference_mode()
def evaluate_on_dataset(model, data_loader, truncate=100, device="cuda"):
    running_loss, total = 0.0, 0
    for batch in data_loader:
        loss = model(batch["tokens"].to(device), return_type="loss").mean()
        running_loss += loss.item()
        total += 1
        if total > truncate:
            break
    return running_loss / total


@torch.inference_mode()
def induction_loss(model, batch_size=4, subseq_len=384, prepend_bos=True, device="cuda"):
    """Random sequences repeated twice; an induction-capable model predicts the second half."""
    first_half_tokens = torch.randint(100, 20000, (batch_size, subseq_len)).to(device)
    repeated_tokens = first_half_tokens.repeat(1, 2)
    if prepend_bos:
        repeated_tokens[:, 0] = model.bos_token_id
    logits = model(repeated_tokens, return_type="logits")
    log_probs = logits.log_softmax(-1)[:, :-1].gather(-1, repeated_tokens[:, 1:, None])[..., 0]
    return log_probs[:, subseq_len + 1:].mean()


def evaluate(model, data_loader, truncate=100, device="cuda"):
    return {"loss": evaluate_on_dataset(model, data_loader, truncate, device=device),
            "induction": induction_loss(model, device=device)}


def main():
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = TinyLM().to(device)
    loader = [{"tokens": torch.randint(0, 20100, (2, 16))} for _ in range(3)]
    return evaluate(model, loader, device=device)


if __name__ == "__main__":
    main()
