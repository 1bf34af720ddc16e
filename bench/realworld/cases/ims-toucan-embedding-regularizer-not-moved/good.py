"""TTS training loop with a style-embedding regularizer (reconstruction of toucantts_train_loop.py and diverse_losses.py)."""

import torch


def off_diagonal(x):
    n, m = x.shape
    assert n == m
    return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()


class RedundancyReduction(torch.nn.Module):
    def __init__(self, lambd=1e-5, vector_dimensions=256):
        super().__init__()
        self.lambd = lambd
        self.bn = torch.nn.BatchNorm1d(vector_dimensions, affine=False)

    def forward(self, z1, z2):
        c = self.bn(z1).T @ self.bn(z2)
        c.div_(z1.size(0))
        return self.lambd * off_diagonal(c).pow_(2).sum()


class StyleEmbedding(torch.nn.Module):
    def __init__(self, n_mels=8, embedding_dim=16):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.gru = torch.nn.GRU(n_mels, embedding_dim, batch_first=True)

    def forward(self, batch_of_spectrograms, batch_of_spectrogram_lengths):
        _, h = self.gru(batch_of_spectrograms)
        return h[-1]


class TinyTTS(torch.nn.Module):
    def __init__(self, vocab=20, n_mels=8, utt_dim=16):
        super().__init__()
        self.encoder = torch.nn.Embedding(vocab, utt_dim)
        self.decoder = torch.nn.Linear(utt_dim, n_mels)

    def forward(self, text_tensors, gold_speech, utterance_embedding):
        hidden = self.encoder(text_tensors) + utterance_embedding.unsqueeze(1)
        return torch.nn.functional.l1_loss(self.decoder(hidden), gold_speech[:, : text_tensors.size(1)])


def train_loop(net, train_loader, device, lr, path_to_embed_model, train_embed, steps):
    net = net.to(device)
    style_embedding_function = StyleEmbedding().to(device)
    if path_to_embed_model is not None:
        style_embedding_function.load_state_dict(torch.load(path_to_embed_model, map_location=device))
        if not train_embed:
            style_embedding_function.eval()
            style_embedding_function.requires_grad_(False)

    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    if path_to_embed_model is None or train_embed:
        embedding_regularization_loss = RedundancyReduction(vector_dimensions=style_embedding_function.embedding_dim).to(device)
        optimizer.add_param_group({"params": style_embedding_function.parameters()})
        optimizer.add_param_group({"params": embedding_regularization_loss.parameters()})

    step_counter = 0
    while step_counter < steps:
        net.train()
        for batch in train_loader:
            style_embedding = style_embedding_function(batch_of_spectrograms=batch[1].to(device),
                                                       batch_of_spectrogram_lengths=batch[2].to(device))
            train_loss = net(text_tensors=batch[0].to(device), gold_speech=batch[1].to(device),
                             utterance_embedding=style_embedding)
            if path_to_embed_model is None or train_embed:
                train_loss = train_loss + embedding_regularization_loss(style_embedding, style_embedding)
            optimizer.zero_grad()
            train_loss.backward()
            optimizer.step()
            step_counter += 1


def run(device):
    batches = [(torch.randint(0, 20, (4, 5)), torch.randn(4, 7, 8), torch.tensor([7, 7, 6, 5]))]
    train_loop(TinyTTS(), batches, device, lr=1e-3, path_to_embed_model=None, train_embed=True, steps=1)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
