"""BiLSTM representation of a text classifier (reconstruction of pytext/models/representations/bilstm.py)."""

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

CUDA_ENABLED = False  # pytext.utils.cuda_utils: set once from the run config


class BiLSTMConfig:
    dropout = 0.4
    lstm_dim = 8
    num_layers = 1
    bidirectional = True


class BiLSTM(nn.Module):
    def __init__(self, config, embed_dim, padding_value=0.0):
        super().__init__()
        self.config = config
        self.padding_value = padding_value
        self.dropout = nn.Dropout(config.dropout)
        self.lstm = nn.LSTM(embed_dim, config.lstm_dim, num_layers=config.num_layers,
                            bidirectional=config.bidirectional)
        self.representation_dim = config.lstm_dim * (2 if config.bidirectional else 1)

    def forward(self, embedded_tokens, seq_lengths, states=None):
        embedded_tokens = self.dropout(embedded_tokens)
        if states is not None:
            states = (states[0].transpose(0, 1).contiguous(), states[1].transpose(0, 1).contiguous())
        else:
            # a zero state that matches the batch size, so that tracing does not freeze it
            state = torch.zeros(
                self.config.num_layers * (2 if self.config.bidirectional else 1),
                seq_lengths.size(0),
                self.config.lstm_dim,
            )
            states = (state, state)
        rnn_input = pack_padded_sequence(embedded_tokens, seq_lengths.int(), batch_first=True)
        rep, new_state = self.lstm(rnn_input, states)
        rep, _ = pad_packed_sequence(rep, padding_value=self.padding_value, batch_first=True,
                                     total_length=embedded_tokens.size(1))
        return rep, (new_state[0].transpose(0, 1), new_state[1].transpose(0, 1))


class DocModel(nn.Module):
    def __init__(self, vocab=30, embed_dim=6, classes=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed_dim)
        self.representation = BiLSTM(BiLSTMConfig(), embed_dim)
        self.decoder = nn.Linear(self.representation.representation_dim, classes)

    def forward(self, tokens, seq_lengths):
        rep, _ = self.representation(self.embedding(tokens), seq_lengths)
        return self.decoder(rep[:, 0])


def main():
    global CUDA_ENABLED
    CUDA_ENABLED = torch.cuda.is_available()
    model = DocModel()
    tokens, seq_lengths = torch.randint(1, 30, (2, 5)), torch.tensor([5, 3])
    if CUDA_ENABLED:
        model, tokens, seq_lengths = model.cuda(), tokens.cuda(), seq_lengths.cuda()
    return model(tokens, seq_lengths)


if __name__ == "__main__":
    main()
