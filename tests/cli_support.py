"""Helpers for tests that drive the ``flake8-device`` command in a subprocess, as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

BUG = """import torch
from torch import nn

device = torch.device("cuda")
model = nn.Linear(4, 2)
model.to(device)
model.head = nn.Linear(2, 2)
"""

FIXED = BUG.replace("model.head = nn.Linear(2, 2)", "model.head = nn.Linear(2, 2).to(device)")


def run(
    *args: str,
    cwd: Path | None = None,
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m flake8_device ARGS`` (text in and out; pass bytes to ``run_bytes`` instead)."""
    assert not isinstance(stdin, bytes)
    return subprocess.run(
        [sys.executable, "-m", "flake8_device", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=None if env is None else {**os.environ, **env},
    )


def run_bytes(*args: str, cwd: Path | None = None, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "flake8_device", *args], cwd=cwd, input=stdin, capture_output=True, timeout=120
    )


def write(path: Path, text: str, **kwargs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, **kwargs)
    return path


def code_cell(source: str, number: int, outputs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": number,
        "id": f"cell-{number}",
        "metadata": {"tags": ["t"]},
        "outputs": outputs if outputs is not None else [],
        "source": source.splitlines(keepends=True),
    }


def markdown_cell(text: str, number: int) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": f"md-{number}", "metadata": {}, "source": text.splitlines(keepends=True)}


def notebook_json(cells: list[dict[str, Any]], **dump_options: Any) -> str:
    """A notebook as Jupyter writes it (nbformat 4: indent 1, sorted keys, a final newline)."""
    document = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.11.7"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    options = {"indent": 1, "sort_keys": True, "ensure_ascii": False, **dump_options}
    return json.dumps(document, **options) + "\n"
