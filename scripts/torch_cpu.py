"""The pip arguments that install the CPU build of torch, on any machine.

The tests need torch (the meta-device oracle), never a GPU.  On an ordinary machine
``pip install torch==2.13.0`` resolves, on Linux, to the CUDA build: a wheel whose
requirements name NVIDIA's libraries, several GB in all.  PyTorch's CPU wheel index serves
the same release without them (about 190 MB).  This script asks pip which build it would
pick (``pip install --dry-run --report``, nothing downloaded but metadata) and prints:

- ``torch==2.13.0`` where that build is already a CPU one (a machine whose pip is set up
  for it, macOS, Windows), so nothing changes there;
- the CPU index arguments and ``torch==2.13.0`` otherwise.

    python scripts/torch_cpu.py            # the arguments, one per line (scripts/test.sh uses them)
    python scripts/torch_cpu.py --check    # resolve with those arguments; exit 1 if it is not a CPU build
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REQUIREMENT = "torch==2.13.0"
CPU_INDEX = ("--index-url", "https://download.pytorch.org/whl/cpu", "--extra-index-url", "https://pypi.org/simple")
# What a CUDA build of torch requires and a CPU build does not.
_GPU_REQUIREMENTS = ("nvidia-", "triton")


def resolve(arguments: Sequence[str]) -> dict[str, object]:
    """pip's report of what ``pip install ARGUMENTS`` would install (torch only, no dependencies)."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--no-deps", "--ignore-installed"]
            + ["--report", str(report), *arguments],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        found: dict[str, object] = json.loads(report.read_text(encoding="utf-8"))
    return found


def is_cpu_build(report: dict[str, object]) -> bool:
    """The torch that ``report`` installs requires no GPU library."""
    installs = report.get("install", [])
    assert isinstance(installs, list)
    torch = [i for i in installs if i.get("metadata", {}).get("name", "").lower() == "torch"]
    if not torch:
        raise ValueError("pip would not install torch")
    requires = torch[0]["metadata"].get("requires_dist") or []
    return not any(r.lower().startswith(_GPU_REQUIREMENTS) for r in requires)


def arguments() -> list[str]:
    if is_cpu_build(resolve([REQUIREMENT])):
        return [REQUIREMENT]
    return [*CPU_INDEX, REQUIREMENT]


def main(argv: Sequence[str]) -> int:
    chosen = arguments()
    if "--check" in argv:
        build = "a CPU build" if is_cpu_build(resolve(chosen)) else "a GPU build"
        print(f"pip install {' '.join(chosen)}: {build}")
        return 0 if build == "a CPU build" else 1
    print("\n".join(chosen))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
