"""Character-level GPT with a training runner (reconstruction of main.py)."""

import numpy as np
import torch

_DEVICE_OVERRIDE = None


def get_device():
    if _DEVICE_OVERRIDE is not None:
        return _DEVICE_OVERRIDE
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


class PositionalEncoding(torch.nn.Module):
    def __init__(self, embedding_dimension, max_sequence_length):
        super().__init__()
        self.embedding_dimension = embedding_dimension
        self.max_sequence_length = max_sequence_length
        self.positional_encoding = self.create_positional_encoding()

    def create_positional_encoding(self):
        table = np.zeros((self.max_sequence_length, self.embedding_dimension))
        for pos in range(self.max_sequence_length):
            for i in range(0, self.embedding_dimension, 2):
                table[pos, i] = np.sin(pos / (10000 ** ((2 * i) / self.embedding_dimension)))
                table[pos, i + 1] = np.cos(pos / (10000 ** ((2 * (i + 1)) / self.embedding_dimension)))
        return torch.from_numpy(table).float().to(get_device())

    def forward(self, x):
        return x + self.positional_encoding[: x.size(1), :]


class LanguageModel(torch.nn.Module):
    def __init__(self, number_of_tokens, max_sequence_length=16, embedding_dimension=8):
        super().__init__()
        self.max_sequence_length = max_sequence_length
        self.token_embedding = torch.nn.Embedding(number_of_tokens, embedding_dimension)
        self.positional_encoding = PositionalEncoding(embedding_dimension, max_sequence_length)
        self.layer_normalization = torch.nn.LayerNorm(embedding_dimension)
        self.attention = torch.nn.MultiheadAttention(embedding_dimension, 2, batch_first=True)
        self.lm_head = torch.nn.Linear(embedding_dimension, number_of_tokens)

    def forward(self, x, mask):
        hidden = self.layer_normalization(self.positional_encoding(self.token_embedding(x)))
        hidden, _ = self.attention(hidden, hidden, hidden, key_padding_mask=mask == 0)
        return self.lm_head(hidden)


class AutoregressiveWrapper(torch.nn.Module):
    def __init__(self, gpt_model):
        super().__init__()
        self.model = gpt_model
        self.max_sequence_length = self.model.max_sequence_length

    def forward(self, x, mask):
        inp, target = x[:, :-1], x[:, 1:]
        return self.model(inp, mask[:, :-1]), target


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.loss_function = torch.nn.CrossEntropyLoss()

    def train(self, data, epochs, batch_size):
        for _ in range(epochs):
            for i in range(0, len(data), batch_size):
                self.model.train()
                input_tensor = torch.tensor(data[i: i + batch_size], dtype=torch.long)
                mask_tensor = torch.ones_like(input_tensor)
                model_output, target = self.model.forward(x=input_tensor.to(get_device()),
                                                          mask=mask_tensor.to(get_device()))
                loss = self.loss_function(model_output.transpose(1, 2), target)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()


class Runner:
    def run(self):
        model = AutoregressiveWrapper(LanguageModel(number_of_tokens=12, max_sequence_length=16)).to(get_device())
        sequences = [[(i + j) % 12 for j in range(17)] for i in range(4)]
        optimizer = torch.optim.Adam(model.parameters(), lr=0.0001)
        Trainer(model, optimizer).train(sequences, epochs=1, batch_size=2)


def run(device):
    global _DEVICE_OVERRIDE
    _DEVICE_OVERRIDE = device
    Runner().run()


if __name__ == "__main__":
    Runner().run()
