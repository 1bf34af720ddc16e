"""Users of pytorch_geometric_temporal moved the DCRNN cell to the GPU and fed it node features, edge_index and edge
weights that were already there; in bad the diffusion convolution multiplies the GPU adjacency with a torch.ones
vector made on the CPU while computing node degrees."""

import torch


def run(program, device):
    torch.manual_seed(0)
    cell = program["DCRNN"](in_channels=3, out_channels=5, hops=2).to(device)
    edge_index = torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]], device=device)
    edge_weight = torch.rand(5, device=device) + 0.5
    hidden = None
    for _ in range(2):
        features = torch.rand(5, 3, device=device)
        hidden = cell(features, edge_index, edge_weight, hidden)
    assert hidden.shape == (5, 5) and hidden.device.type == device.type
