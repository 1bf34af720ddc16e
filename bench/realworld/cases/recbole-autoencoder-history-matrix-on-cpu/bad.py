"""Auto-encoder recommender base and a MultiDAE-style model (reconstruction of recbole/model/abstract_recommender.py)."""

import torch
from torch import nn


class Dataset:
    """Stands in for RecBole's dataset: the user-history matrix is built on the CPU."""

    def __init__(self, n_users, n_items, history_len=3):
        self.n_users, self.n_items = n_users, n_items
        self.history = torch.randint(1, n_items, (n_users, history_len))

    def history_item_matrix(self):
        return self.history, torch.ones(self.history.shape), torch.full((self.n_users,), self.history.shape[1])


class GeneralRecommender(nn.Module):
    def __init__(self, config, dataset):
        super().__init__()
        self.n_users = dataset.n_users
        self.n_items = dataset.n_items
        self.device = config["device"]


class AutoEncoderMixin(object):
    def build_histroy_items(self, dataset):
        self.history_item_id, self.history_item_value, _ = dataset.history_item_matrix()

    def get_rating_matrix(self, user):
        col_indices = self.history_item_id[user].flatten()
        row_indices = torch.arange(user.shape[0]).repeat_interleave(self.history_item_id.shape[1], dim=0)
        rating_matrix = torch.zeros(1).repeat(user.shape[0], self.n_items)
        rating_matrix.index_put_((row_indices, col_indices), self.history_item_value[user].flatten())
        rating_matrix = rating_matrix.to(self.device)
        return rating_matrix


class MultiDAE(GeneralRecommender, AutoEncoderMixin):
    def __init__(self, config, dataset):
        super().__init__(config, dataset)
        self.build_histroy_items(dataset)
        self.encoder = nn.Sequential(nn.Linear(self.n_items, 16), nn.Tanh())
        self.decoder = nn.Linear(16, self.n_items)

    def forward(self, rating_matrix):
        return self.decoder(self.encoder(nn.functional.normalize(rating_matrix)))

    def calculate_loss(self, interaction):
        user = interaction["user_id"]
        rating_matrix = self.get_rating_matrix(user)
        logits = self.forward(rating_matrix)
        return -(nn.functional.log_softmax(logits, 1) * rating_matrix).sum(1).mean()


def train(config):
    dataset = Dataset(n_users=6, n_items=10)
    model = MultiDAE(config, dataset).to(config["device"])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for users in (torch.tensor([0, 1, 2]), torch.tensor([3, 4, 5])):
        interaction = {"user_id": users.to(config["device"])}  # the trainer moves each batch to config["device"]
        loss = model.calculate_loss(interaction)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    train({"device": torch.device("cuda" if torch.cuda.is_available() else "cpu")})
