"""The five real stories flake8-device exists for, as a user would meet them: whole files,
checked through the CLI, each bug reported at its line with the expected code.

Each story is a bug class; the fixtures hold the variants, these are the end-to-end proof.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

STORIES: dict[str, dict[str, object]] = {
    "submodule replaced after the move": {
        "files": {
            "finetune.py": """
                import torch
                import torchvision
                from torch import nn

                device = "cuda" if torch.cuda.is_available() else "cpu"
                model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
                model = model.to(device)
                model.fc = nn.Linear(model.fc.in_features, 10)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
            """,
        },
        "expected": [("finetune.py", 8, "DEV101")],
    },
    "outputs moved to the CPU, targets left on the accelerator": {
        "files": {
            "evaluate.py": """
                import torch
                from torchmetrics.classification import MulticlassAccuracy


                def evaluate(model, val_loader, device):
                    metric = MulticlassAccuracy(num_classes=10).to(device)
                    model.eval()
                    with torch.no_grad():
                        for batch in val_loader:
                            images = batch["image"].to(device)
                            labels = batch["label"].to(device)
                            preds = model(images).argmax(dim=1).cpu()  # workaround for an MPS kernel
                            metric.update(preds, labels)
                    return metric.compute()
            """,
        },
        "expected": [("evaluate.py", 13, "DEV201")],
    },
    "batched augmentation before the batch is moved": {
        "files": {
            "train.py": """
                import kornia.augmentation as K
                import torch.nn.functional as F


                def train_epoch(model, train_loader, optimizer, device):
                    augment = K.RandomHorizontalFlip()
                    for images, targets in train_loader:
                        images = augment(images)
                        images = images.to(device)
                        targets = targets.to(device)
                        loss = F.cross_entropy(model(images), targets)
                        loss.backward()
                        optimizer.step()
            """,
        },
        "expected": [("train.py", 8, "DEV206")],
    },
    "state kept as a plain tensor meets device tensors and NCCL": {
        "files": {
            "stats.py": """
                import torch
                import torch.distributed as dist
                from torch import nn

                dist.init_process_group("nccl")


                class RunningMean(nn.Module):
                    def __init__(self, dim):
                        super().__init__()
                        self.mean = torch.zeros(dim)

                    def forward(self, x):
                        self.mean = 0.9 * self.mean + 0.1 * x.mean(0)
                        return x - self.mean


                def global_count(local_count):
                    total = torch.tensor([local_count])
                    dist.all_reduce(total)
                    return total.item()
            """,
        },
        "expected": [("stats.py", 11, "DEV102"), ("stats.py", 20, "DEV503")],
    },
    "ZeRO-3 CPU offload with gradient clipping on DeepSpeed 0.14.2": {
        "files": {
            "requirements.txt": "torch==2.13.0\ndeepspeed==0.14.2\n",
            "ds_config.json": """
                {
                  "train_micro_batch_size_per_gpu": 4,
                  "gradient_clipping": 1.0,
                  "zero_optimization": {
                    "stage": 3,
                    "offload_optimizer": {"device": "cpu", "pin_memory": true},
                    "offload_param": {"device": "none"}
                  }
                }
            """,
        },
        "expected": [("ds_config.json", 3, "DEV601")],
    },
}


def lint(project: Path, *paths: str) -> list[tuple[str, int, str]]:
    result = subprocess.run(
        [sys.executable, "-m", "flake8_device", "--format", "json", *paths],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    return sorted((Path(f["filename"]).name, f["line"], f["code"]) for f in json.loads(result.stdout))


@pytest.mark.parametrize("story", STORIES, ids=list(STORIES))
def test_story_is_caught(story: str, tmp_path: Path) -> None:
    spec = STORIES[story]
    files: dict[str, str] = spec["files"]  # type: ignore[assignment]
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    checked = [name for name in files if name.endswith((".py", ".json"))]
    assert lint(tmp_path, *checked) == sorted(spec["expected"])  # type: ignore[arg-type]
