"""LibRecommender users built LightGCN with device="cuda" and called fit(); in bad the module's Laplacian is made on
the GPU but its embedding tables stay on the CPU (the algorithm never moves the module), so torch.sparse.mm in the
propagation meets the two devices."""

import torch


def run(program, device):
    torch.manual_seed(0)
    consumed = {0: [0, 2], 1: [1], 2: [2, 3], 3: [0]}
    model = program["LightGCN"](4, 4, consumed, embed_size=4, n_layers=2, device=str(device))
    model.fit([(0, 0), (0, 2), (1, 1), (2, 3), (3, 0)], epochs=2)
    user_embeds, item_embeds = model.torch_model()
    assert user_embeds.shape == (4, 4) and item_embeds.shape == (4, 4)
