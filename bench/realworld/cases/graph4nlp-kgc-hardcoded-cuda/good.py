"""Knowledge-graph completion example (reconstruction of examples/pytorch/kg_completion/kinship_main.py)."""

import argparse

import torch
from torch import nn


class Config:
    cuda = False
    embedding_dim = 8


class Batcher:
    """Stands in for spodernet's batcher: it moves each batch to the GPU only when Config.cuda is set."""

    def __init__(self, num_entities, num_relations, batches=2):
        self.num_entities, self.num_relations, self.batches = num_entities, num_relations, batches

    def __iter__(self):
        for _ in range(self.batches):
            batch = {
                "e1": torch.randint(self.num_entities, (4, 1)),
                "rel": torch.randint(self.num_relations, (4, 1)),
                "e2_multi1_binary": torch.randint(2, (4, self.num_entities)),
            }
            if Config.cuda:
                batch = {k: v.cuda() for k, v in batch.items()}
            yield batch


class GraphDistMult(nn.Module):
    def __init__(self, num_entities, num_relations):
        super().__init__()
        self.emb_e = nn.Embedding(num_entities, Config.embedding_dim)
        self.emb_rel = nn.Embedding(num_relations, Config.embedding_dim)
        self.loss = nn.BCELoss()

    def forward(self, e1, rel, kg_graph):
        e1_emb = self.emb_e(e1).squeeze(1)
        if kg_graph is not None:
            e1_emb = e1_emb + kg_graph.mean() * 0
        return torch.sigmoid((e1_emb * self.emb_rel(rel).squeeze(1)) @ self.emb_e.weight.t())


def main(args):
    num_entities, num_relations = 10, 3
    train_batcher = Batcher(num_entities, num_relations)
    model = GraphDistMult(num_entities, num_relations)
    if args.model in ["ggnn_distmult", "gcn_distmult"]:
        kg_graph = torch.rand(num_entities, num_entities)  # stands in for torch.load of the processed graph
        if Config.cuda == True:
            kg_graph = kg_graph.to("cuda")
        else:
            kg_graph = kg_graph.to("cpu")
    else:
        kg_graph = None

    if Config.cuda == True:
        model.cuda()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    for _ in range(args.epochs):
        model.train()
        for str2var in train_batcher:
            opt.zero_grad()
            e2_multi = str2var["e2_multi1_binary"].float()
            e2_multi = ((1.0 - args.label_smoothing) * e2_multi) + (1.0 / e2_multi.size(1))
            pred = model.forward(str2var["e1"], str2var["rel"], kg_graph)
            loss = model.loss(pred, e2_multi)
            loss.backward()
            opt.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="gcn_distmult")
    parser.add_argument("--lr", type=float, default=0.003)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--label-smoothing", type=float, default=0.1)
    Config.cuda = False
    main(parser.parse_args())
