"""The real-code corpus the benchmarks share: pinned releases fetched by ../shared/corpus/fetch.sh.

``small`` is the four mature libraries (timm, Lightning, torchmetrics, Accelerate, ~315k
lines); ``full`` adds Composer, kornia and transformers (~1.7M lines).  A full fetch serves
both sizes, so it is fetched once under bench/.work/.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / ".work"
FETCH = ROOT.parent / "shared" / "corpus" / "fetch.sh"
SMALL = ("accelerate", "pytorch_lightning", "timm", "torchmetrics")
FULL = (*SMALL, "mosaicml", "kornia", "transformers")


def corpus(size: str, given: str | None = None) -> Path:
    """The corpus directory (with ``src/<project>`` and ``MANIFEST.tsv``), fetched when missing."""
    if given:
        return Path(given).resolve()
    candidates = [WORK / "corpus-full", WORK / "corpus-small"] if size == "small" else [WORK / "corpus-full"]
    for candidate in candidates:
        if (candidate / "MANIFEST.tsv").exists():
            return candidate
    destination = WORK / f"corpus-{size}"
    subprocess.run(["bash", str(FETCH), str(destination), size], check=True)
    return destination


def projects(source: Path, size: str) -> list[str]:
    """The project directories of ``size`` present under ``source``."""
    return [name for name in (FULL if size == "full" else SMALL) if (source / name).exists()]


def python_files(directories: list[Path]) -> list[Path]:
    """The ``.py`` files under ``directories``, sorted (installed packages beside a stdlib left out)."""
    return sorted(p for d in directories for p in d.rglob("*.py") if "site-packages" not in p.parts)


def line_count(files: list[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in files)
