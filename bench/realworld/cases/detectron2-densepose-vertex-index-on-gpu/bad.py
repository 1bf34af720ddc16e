"""DensePose CSE vertex visualizer (reconstruction of densepose_outputs_vertex.py)."""

from functools import lru_cache

import numpy as np
import torch
import torch.nn.functional as F


def load_reference_embedding(path):
    return np.random.rand(6890, 16).astype(np.float32)


def build_mesh_vertices(mesh_name, device):
    return torch.rand(6890, 3, device=device)


@lru_cache()
def vertex_color_map(mesh_name, device):
    if mesh_name == "smpl_27554":
        raw = load_reference_embedding("mds_d=256.npy")
        colors = torch.tensor(raw).float()[:, 0]
        colors -= colors.min()
        colors /= colors.max()
    else:
        verts = build_mesh_vertices(mesh_name, device)
        colors = verts.sum(dim=1)
        colors -= colors.min()
        colors /= colors.max()
        colors = colors**2
    return colors


def nearest_vertices_and_mask(E, S, h, w, vertex_embeddings, device):
    emb = F.interpolate(E, size=(h, w), mode="bilinear")[0].to(device)
    segm = F.interpolate(S, size=(h, w), mode="bilinear")[0].to(device)
    mask = segm.argmax(0) > 0
    nearest = torch.zeros(mask.shape, dtype=torch.long, device=device)
    picked = emb[:, mask].t()
    nearest[mask] = torch.cdist(picked, vertex_embeddings).argmin(dim=1)
    return nearest, mask


class VertexVisualizer:
    def __init__(self, mesh_names, embedder, device="cuda"):
        self.mesh_names = mesh_names
        self.device = torch.device(device)
        self.vertex_embeddings = {name: embedder(name).to(self.device) for name in mesh_names}

    def visualize(self, image, E, S, boxes, classes):
        for i in range(len(boxes)):
            x, y, w, h = boxes[i].int().tolist()
            mesh_name = self.mesh_names[classes[i]]
            nearest, mask = nearest_vertices_and_mask(
                E[[i]], S[[i]], h, w, self.vertex_embeddings[mesh_name], self.device
            )
            colors = vertex_color_map(mesh_name, self.device)
            vis = (colors[nearest].clip(0, 1) * 255.0).cpu().numpy()
            mask_np = mask.cpu().numpy().astype(np.uint8)
            image[y : y + h, x : x + w][mask_np > 0] = vis[mask_np > 0, None]
        return image


if __name__ == "__main__":
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    viz = VertexVisualizer(["smpl_27554"], lambda name: torch.rand(6890, 16), device=dev)
    out = viz.visualize(
        np.zeros((64, 64, 3), np.float32),
        torch.rand(1, 16, 8, 8, device=dev),
        torch.rand(1, 2, 8, 8, device=dev),
        torch.tensor([[4.0, 4.0, 20.0, 20.0]]),
        [0],
    )
