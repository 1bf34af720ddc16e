"""A normalized SDD evaluated as a torch arithmetic circuit (reconstruction of
semantic_loss_pytorch/py3psdd/sdd.py: SddNode.generate_pt_ac_v2)."""

import torch


class SddNode:
    FALSE, TRUE, LITERAL, DECOMPOSITION = range(4)

    def __init__(self, kind, literal=None, elements=()):
        self.kind = kind
        self.literal = literal
        self.elements = list(elements)  # (prime, sub) pairs of a decomposition
        self.data = None

    def is_false(self):
        return self.kind == SddNode.FALSE

    def is_true(self):
        return self.kind == SddNode.TRUE

    def is_literal(self):
        return self.kind == SddNode.LITERAL

    def as_list(self):
        """Children before parents."""
        order, seen = [], set()

        def visit(node):
            if id(node) in seen:
                return
            seen.add(id(node))
            for prime, sub in node.elements:
                visit(prime)
                visit(sub)
            order.append(node)

        visit(self)
        return order

    def generate_pt_ac(self, trueprobs):
        """Weighted model count of every sample, the circuit evaluated bottom-up."""
        true_tensor = torch.ones(1, device=trueprobs.device)
        false_tensor = torch.zeros(1, device=trueprobs.device)

        for node in self.as_list():
            if node.is_false():
                data = false_tensor
            elif node.is_true():
                data = true_tensor
            elif node.is_literal():
                if node.literal > 0:
                    data = trueprobs[:, node.literal - 1]
                else:
                    data = 1.0 - trueprobs[:, -node.literal - 1]
            else:
                res = []
                for p, s in node.elements:
                    if p.data is false_tensor or s.data is false_tensor:
                        pass
                    elif p.data is true_tensor:
                        res.append(s.data)
                    elif s.data is true_tensor:
                        res.append(p.data)
                    else:
                        res.append(s.data * p.data)
                if len(res) == 0:
                    res.append(false_tensor)
                data = torch.stack(res, dim=0).sum(dim=0)
            node.data = data
        return data
