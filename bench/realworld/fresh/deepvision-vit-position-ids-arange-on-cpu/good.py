"""ViT patching and position embedding layer (reconstruction of deepvision/layers/patching_and_embedding.py)."""

import torch
from torch import nn
from torch.nn import functional as F


class PatchingAndEmbedding(nn.Module):
    def __init__(self, project_dim, input_shape, patch_size, padding="valid"):
        super().__init__()
        if patch_size < 0:
            raise ValueError(f"patch_size must not be negative, got {patch_size}")
        self.project_dim = project_dim
        self.patch_size = patch_size
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.projection = nn.Conv2d(input_shape[0], project_dim, kernel_size=patch_size, stride=patch_size,
                                    padding=padding)
        self.class_token = nn.Parameter(torch.rand(1, 1, project_dim))
        self.num_patches = input_shape[1] // patch_size * input_shape[2] // patch_size
        self.position_embedding = nn.Embedding(self.num_patches + 1, project_dim)

    def forward(self, images, interpolate=False, interpolate_width=None, interpolate_height=None):
        patches = self.projection(images)
        b, c, h, w = patches.shape
        tokens = patches.reshape(b, c, h * w).transpose(1, 2)
        tokens = torch.cat([self.class_token.expand(b, -1, -1), tokens], 1)
        positions = torch.arange(start=0, end=self.num_patches + 1, step=1).to(self.device)

        if interpolate and None not in (interpolate_width, interpolate_height):
            table = self.position_embedding(positions)
            cls_pos, grid = table[:1].unsqueeze(0), self._resize(table[1:], interpolate_width, interpolate_height)
            return torch.cat([cls_pos.expand(b, -1, -1) + tokens[:, :1], tokens[:, 1:] + grid], 1)
        elif interpolate:
            raise ValueError("interpolate_width and interpolate_height are needed to interpolate")
        return tokens + self.position_embedding(positions)

    def _resize(self, grid, width, height):
        side = int(grid.shape[0] ** 0.5)
        grid = grid.reshape(1, side, side, -1).permute(0, 3, 1, 2)
        grid = F.interpolate(grid, size=(height // self.patch_size, width // self.patch_size), mode="bicubic")
        return grid.permute(0, 2, 3, 1).reshape(1, -1, self.project_dim)


class ViT(nn.Module):
    def __init__(self, input_shape=(3, 32, 32), patch_size=8, project_dim=16, classes=10):
        super().__init__()
        self.embed = PatchingAndEmbedding(project_dim, input_shape, patch_size)
        self.encoder = nn.TransformerEncoderLayer(project_dim, 2, 32, batch_first=True)
        self.head = nn.Linear(project_dim, classes)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x))[:, 0])


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = ViT().to(device)
    return model(torch.rand(2, 3, 32, 32, device=device))


if __name__ == "__main__":
    main()
