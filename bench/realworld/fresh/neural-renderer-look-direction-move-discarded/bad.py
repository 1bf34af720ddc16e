"""The "look" camera transform of a mesh renderer (reconstruction of neural_renderer/look.py and its use)."""

import numpy as np
import torch
import torch.nn.functional as F


def look(vertices, eye, up, direction=[0, 1, 0]):
    """Express the vertices in the frame of a camera at `eye` looking along `direction`."""
    if vertices.ndimension() != 3:
        raise ValueError("vertices should have 3 dimensions")
    device = vertices.device

    if isinstance(direction, (list, tuple)):
        direction = torch.tensor(direction, dtype=torch.float32, device=device)
    elif isinstance(direction, np.ndarray):
        direction = torch.from_numpy(direction).to(device)
    elif torch.is_tensor(direction):
        direction.to(device)

    if isinstance(eye, (list, tuple)):
        eye = torch.tensor(eye, dtype=torch.float32, device=device)
    elif isinstance(eye, np.ndarray):
        eye = torch.from_numpy(eye).to(device)
    elif torch.is_tensor(eye):
        eye = eye.to(device)

    if eye.ndimension() == 1:
        eye = eye[None, :]
    if direction.ndimension() == 1:
        direction = direction[None, :]
    if up.ndimension() == 1:
        up = up[None, :]

    z_axis = F.normalize(direction, eps=1e-5)
    x_axis = F.normalize(torch.cross(up, z_axis, dim=-1), eps=1e-5)
    y_axis = F.normalize(torch.cross(z_axis, x_axis, dim=-1), eps=1e-5)
    r = torch.cat((x_axis[:, None, :], y_axis[:, None, :], z_axis[:, None, :]), dim=1)

    if vertices.shape != eye.shape:
        eye = eye[:, None, :]
    vertices = vertices - eye
    return torch.matmul(vertices, r.transpose(1, 2))


def run(device):
    vertices = torch.rand(1, 8, 3, device=device)
    camera_direction = torch.tensor([0.0, 0.0, 1.0])  # e.g. read from a scene description
    up = torch.tensor([0.0, 1.0, 0.0], device=device)
    return look(vertices, eye=[0.0, 0.0, -2.7], direction=camera_direction, up=up)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
