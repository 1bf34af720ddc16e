"""The real-code corpora the benchmarks share, rebuilt from pinned lists (never committed).

Libraries (``bench/fetch_corpus.sh``, pinned wheels from PyPI): ``small`` is the four
mature libraries (timm, Lightning, torchmetrics, Accelerate, ~315k lines); ``full`` adds
Composer, kornia and transformers (~1.7M lines); ``all`` adds diffusers, ESPnet, TorchRL,
Pyro, GPyTorch and MMEngine (~3M lines).  A larger fetch serves the smaller sizes, so one
fetch under bench/.work/ serves every benchmark.

Applications (``bench/apps/extract.py``, repositories pinned in ``bench/apps/projects.tsv``):
training scripts, examples and notebooks, extracted from local mirrors of the repositories
(``FLAKE8_DEVICE_MIRROR``, default /work/.mirror, holding ``<owner>+<name>/repo`` bare git
directories).  :func:`mirror` finds one and names what to fetch when it is missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / ".work"
FETCH = ROOT / "bench" / "fetch_corpus.sh"
APPS_EXTRACT = ROOT / "bench" / "apps" / "extract.py"
SMALL = ("accelerate", "pytorch_lightning", "timm", "torchmetrics")
FULL = (*SMALL, "mosaicml", "kornia", "transformers")
ADDED = ("diffusers", "espnet", "torchrl", "pyro_ppl", "gpytorch", "mmengine")
ALL = (*FULL, *ADDED)
SIZES = {"small": SMALL, "full": FULL, "all": ALL}
DEFAULT_MIRROR = "/work/.mirror"


def corpus(size: str, given: str | None = None) -> Path:
    """The library corpus directory (``src/<project>`` and ``MANIFEST.tsv``), fetched when missing.

    A fetched larger size serves a smaller one (``corpus-all`` serves ``full`` and ``small``).
    """
    if given:
        return Path(given).resolve()
    order = list(SIZES)
    candidates = [WORK / f"corpus-{name}" for name in reversed(order[order.index(size) :])]
    for candidate in candidates:
        if (candidate / "MANIFEST.tsv").exists() and _holds(candidate, SIZES[size]):
            return candidate
    destination = WORK / f"corpus-{size}"
    subprocess.run(["bash", str(FETCH), str(destination), size], check=True)
    return destination


def _holds(root: Path, names: tuple[str, ...]) -> bool:
    listed = {row.split("\t")[0] for row in (root / "MANIFEST.tsv").read_text().splitlines()[1:]}
    return set(names) <= listed


def projects(source: Path, size: str) -> list[str]:
    """The project directories of ``size`` present under ``source``."""
    return [name for name in SIZES[size] if (source / name).exists()]


def manifest(root: Path) -> dict[str, list[str]]:
    """MANIFEST.tsv rows by project: ``[project, version, files, lines, ...]``."""
    if not (root / "MANIFEST.tsv").is_file():
        raise SystemExit(f"{root} is not a corpus: it has no MANIFEST.tsv")
    rows = (root / "MANIFEST.tsv").read_text().splitlines()[1:]
    return {row.split("\t")[0]: row.split("\t") for row in rows if row.strip()}


def apps(given: str | None = None) -> Path:
    """The application corpus directory (``src/<project>`` and ``MANIFEST.tsv``), extracted when missing."""
    if given:
        return Path(given).resolve()
    destination = WORK / "apps"
    if not (destination / "MANIFEST.tsv").exists():
        done = subprocess.run([sys.executable, str(APPS_EXTRACT), "--dest", str(destination)], check=False)
        if done.returncode != 0:  # extract.py has said what is missing, in one line
            raise SystemExit(done.returncode)
    return destination


def python_files(directories: list[Path]) -> list[Path]:
    """The ``.py`` files under ``directories``, sorted (installed packages beside a stdlib left out)."""
    return sorted(p for d in directories for p in d.rglob("*.py") if "site-packages" not in p.parts)


def line_count(files: list[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in files)


class MirrorError(Exception):
    """A repository or commit that is not in the local mirror; the message says what to fetch."""


def mirror_root() -> Path:
    return Path(os.environ.get("FLAKE8_DEVICE_MIRROR", DEFAULT_MIRROR))


def mirror(repo: str, commit: str | None = None) -> Path:
    """The bare git directory mirroring ``owner/name`` (holding ``commit`` when given), or MirrorError."""
    base = mirror_root() / repo.replace("/", "+")
    for candidate in (base / "repo", base / "repo" / ".git", base, base / ".git"):
        if (candidate / "HEAD").exists() and (candidate / "objects").exists():
            break
    else:
        raise MirrorError(f"missing mirror of {repo}: fetch github:{repo} into {mirror_root()} first")
    if commit is not None and not has_commit(candidate, commit):
        raise MirrorError(
            f"the mirror of {repo} ({candidate}) lacks commit {commit}: fetch github:{repo} again for a newer snapshot"
        )
    return candidate


def has_commit(git_dir: Path, commit: str) -> bool:
    probe = ["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def show(git_dir: Path, commit: str, path: str) -> bytes:
    """The bytes of ``path`` at ``commit``, or MirrorError naming what is missing."""
    result = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, check=False
    )
    if result.returncode != 0:
        raise MirrorError(f"{path} is not in {git_dir} at {commit}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout
