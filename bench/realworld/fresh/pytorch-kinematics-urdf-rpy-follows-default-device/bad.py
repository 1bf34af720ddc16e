"""Building a kinematic chain from URDF joint origins (reconstruction of src/pytorch_kinematics/urdf.py and the
Transform3d it builds, from src/pytorch_kinematics/transforms/transform3d.py)."""

from dataclasses import dataclass
from typing import List, Optional

import torch


def quaternion_from_euler(rpy, axes="sxyz"):
    r, p, y = rpy.unbind(-1)
    cr, sr, cp, sp, cy, sy = (torch.cos(r / 2), torch.sin(r / 2), torch.cos(p / 2), torch.sin(p / 2),
                              torch.cos(y / 2), torch.sin(y / 2))
    return torch.stack([cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
                        cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy], -1)


def quaternion_to_matrix(q):
    w, x, y, z = q.unbind(-1)
    return torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1).reshape(-1, 3, 3)


class Transform3d:
    def __init__(self, default_batch_size=1, dtype=torch.float32, device="cpu", matrix=None, rot=None, pos=None):
        if matrix is None:
            self._matrix = torch.eye(4, dtype=dtype, device=device).unsqueeze(0).repeat(default_batch_size, 1, 1)
        else:
            device = matrix.device
            self._matrix = matrix.view(-1, 4, 4)
        if pos is not None:
            ones = torch.ones([1], dtype=dtype, device=device)
            if not torch.is_tensor(pos):
                pos = torch.tensor(pos, dtype=dtype, device=device)
            pos_h = torch.cat((pos, ones), dim=-1).reshape(-1, 4, 1)
            self._matrix = torch.cat((self._matrix[:, :, :3], pos_h), dim=-1)
        if rot is not None:
            zeros = torch.zeros(1, 3, dtype=dtype, device=device)
            if not torch.is_tensor(rot):
                rot = torch.tensor(rot, dtype=dtype, device=device)
            if rot.shape[-1] == 4:
                rot = quaternion_to_matrix(rot)
            rot_h = torch.cat((rot, zeros.expand(rot.shape[0], 1, 3)), dim=-2)
            self._matrix = torch.cat((rot_h, self._matrix[:, :, 3:]), dim=-1)

    def get_matrix(self):
        return self._matrix


@dataclass
class Origin:
    xyz: List[float]
    rpy: List[float]


def _convert_transform(origin: Optional[Origin]):
    if origin is None:
        return Transform3d()
    rpy = torch.tensor(origin.rpy, dtype=torch.float32)
    return Transform3d(rot=quaternion_from_euler(rpy, "sxyz"), pos=origin.xyz)


def build_chain(joint_origins):
    return [_convert_transform(origin) for origin in joint_origins]


def run(device):
    # the user works under a default device; the chain is built from parsed URDF numbers
    with torch.device(device):
        chain = build_chain([Origin([0.0, 0.0, 0.3], [0.0, 0.0, 0.0]), None, Origin([0.1, 0.0, 0.0], [0.0, 1.57, 0.0])])
        return [t.get_matrix() for t in chain]


if __name__ == "__main__":
    run("cuda" if torch.cuda.is_available() else "cpu")
