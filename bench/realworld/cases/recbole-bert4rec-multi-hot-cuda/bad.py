"""BERT4Rec masked-item training loss (reconstruction of recbole/model/sequential_recommender/bert4rec.py)."""

import torch
from torch import nn


class BERT4Rec(nn.Module):
    def __init__(self, n_items=20, hidden_size=8, max_seq_length=6, mask_ratio=0.34):
        super().__init__()
        self.n_items = n_items
        self.max_seq_length = max_seq_length
        self.mask_token = n_items
        self.mask_item_length = max(1, int(mask_ratio * max_seq_length))
        self.item_embedding = nn.Embedding(n_items + 1, hidden_size, padding_idx=0)
        self.position_embedding = nn.Embedding(max_seq_length + 1, hidden_size)
        self.trm_encoder = nn.TransformerEncoderLayer(hidden_size, 2, 16, batch_first=True)

    def reconstruct_train_data(self, item_seq):
        device = item_seq.device
        batch_size = item_seq.size(0)
        masked_seqs, pos_items, masked_index = [], [], []
        for seq in item_seq.tolist():
            positions = list(range(self.mask_item_length))
            masked = list(seq)
            for p in positions:
                masked[p] = self.mask_token
            masked_seqs.append(masked)
            pos_items.append([seq[p] for p in positions])
            masked_index.append(positions)
        masked_item_sequence = torch.tensor(masked_seqs, dtype=torch.long, device=device).view(batch_size, -1)
        pos_items = torch.tensor(pos_items, dtype=torch.long, device=device).view(batch_size, -1)
        masked_index = torch.tensor(masked_index, dtype=torch.long, device=device).view(batch_size, -1)
        return masked_item_sequence, pos_items, masked_index

    def forward(self, item_seq):
        position_ids = torch.arange(item_seq.size(1), dtype=torch.long, device=item_seq.device)
        hidden = self.item_embedding(item_seq) + self.position_embedding(position_ids).unsqueeze(0)
        return self.trm_encoder(hidden)

    def multi_hot_embed(self, masked_index, max_length):
        masked_index = masked_index.view(-1)
        multi_hot = torch.zeros(masked_index.size(0), max_length).cuda()
        multi_hot[torch.arange(masked_index.size(0)), masked_index] = 1
        return multi_hot

    def calculate_loss(self, interaction):
        item_seq = interaction["item_id_list"]
        masked_item_seq, pos_items, masked_index = self.reconstruct_train_data(item_seq)
        seq_output = self.forward(masked_item_seq)
        pred_index_map = self.multi_hot_embed(masked_index, masked_item_seq.size(-1))
        pred_index_map = pred_index_map.view(masked_index.size(0), masked_index.size(1), -1)
        seq_output = torch.bmm(pred_index_map, seq_output)
        logits = torch.matmul(seq_output, self.item_embedding.weight[: self.n_items].transpose(0, 1))
        return nn.functional.cross_entropy(logits.view(-1, self.n_items), pos_items.view(-1))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = BERT4Rec().to(device)
    model.calculate_loss({"item_id_list": torch.randint(1, 20, (3, 6), device=device)}).backward()
