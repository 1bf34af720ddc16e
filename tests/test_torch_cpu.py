"""The test command installs a CPU build of torch on any machine (scripts/torch_cpu.py).

The resolution is checked, not the download: ``pip install --dry-run --report`` reads metadata only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import torch_cpu  # noqa: E402


def _report(requires: list[str]) -> dict[str, object]:
    return {"install": [{"metadata": {"name": "torch", "version": "2.13.0", "requires_dist": requires}}]}


def test_a_build_requiring_nvidia_libraries_is_a_gpu_build() -> None:
    assert not torch_cpu.is_cpu_build(_report(["filelock", "nvidia-cublas-cu12==12.8.4.1; platform_system == 'Linux'"]))
    assert not torch_cpu.is_cpu_build(_report(["triton==3.5.0; platform_system == 'Linux'"]))
    assert torch_cpu.is_cpu_build(_report(["filelock", "sympy>=1.13.3", "typing-extensions>=4.10.0"]))


def test_where_pip_would_pick_a_gpu_build_the_cpu_index_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    builds = {
        (torch_cpu.REQUIREMENT,): _report(["nvidia-cudnn-cu12"]),
        (*torch_cpu.CPU_INDEX, torch_cpu.REQUIREMENT): _report([]),
    }
    monkeypatch.setattr(torch_cpu, "resolve", lambda arguments: builds[tuple(arguments)])
    assert torch_cpu.arguments() == [*torch_cpu.CPU_INDEX, torch_cpu.REQUIREMENT]
    monkeypatch.setattr(torch_cpu, "resolve", lambda arguments: _report(["filelock"]))
    assert torch_cpu.arguments() == [torch_cpu.REQUIREMENT]


def test_on_this_machine_the_test_command_resolves_a_cpu_build() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "torch_cpu.py"), "--check"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0 and "a GPU build" not in done.stdout:
        pytest.skip(f"pip could not resolve torch here (no package index?): {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "a CPU build" in done.stdout
