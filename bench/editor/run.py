"""What the flake8 route costs the editor at each save: flake8 on stdin, as editor extensions
call it (``flake8 --stdin-display-name PATH -``), on training scripts that stay in their own
project, so that the project modules they import are read (``from models import build``).

One command (from the repository root, after ``scripts/test.sh``):

    python3 bench/editor/run.py                    # the application corpus' scripts listed below
    python3 bench/editor/run.py --file PATH ...    # any files (each in its own project)

For each file, in one loop repeated ``--repeat`` times (these machines are noisy, so the three
are interleaved):

- plain flake8, in the environment without the plugin that ``bench/speed/run.py`` makes;
- flake8 with the plugin (this checkout's ``.venv``) and an empty user cache folder: the first
  save after the imported modules changed, when their summaries must be made;
- the same with the user cache folder the run before left: a later save, when the summaries of
  the imported modules are read back from disk (``flake8_device/cache.py``).

It prints the medians and what the plugin adds to plain flake8, cold and warm, against issue
21's target for the editor (0.15 s).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ROOT / "bench" / ".work" / "apps" / "src"
# Training scripts of the application corpus that import their project's modules.
DEFAULT_FILES = (
    "dle-pytorch/PyTorch/Segmentation/MaskRCNN/pytorch/tools/train_net.py",
    "dino/main_dino.py",
    "detr/main.py",
    "mae/main_pretrain.py",
)
TARGET_S = 0.15


def _plain_flake8() -> Path:
    """flake8 without the plugin: the speed benchmark's environment (made there when missing)."""
    spec = importlib.util.spec_from_file_location("speed_run", ROOT / "bench" / "speed" / "run.py")
    assert spec is not None and spec.loader is not None
    speed = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(speed)
    return speed.venv("plain", ["flake8"]) / "bin" / "flake8"


def _project_root(path: Path) -> Path:
    for folder in path.parents:
        if any((folder / m).exists() for m in (".git", "pyproject.toml", "setup.cfg", "setup.py")):
            return folder
    return path.parent


def _timed(command: list[str], path: Path, cache: str) -> float:
    # (Bytecode is written and read, as in an installed package: some machines turn it off.)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"XDG_CACHE_HOME": cache}
    with open(path, "rb") as stdin:
        start = time.perf_counter()
        done = subprocess.run(command, stdin=stdin, capture_output=True, cwd=_project_root(path), env=env)
        elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:3])}... failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", nargs="+", help="files to check (default: scripts of the application corpus)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    files = [Path(f).resolve() for f in args.file] if args.file else [APPS / f for f in DEFAULT_FILES]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise SystemExit(f"missing: {', '.join(missing)} (the application corpus: bench/apps/fetch.sh)")
    plain = _plain_flake8()
    plugin = [str(ROOT / ".venv" / "bin" / "python"), "-m", "flake8"]
    with tempfile.TemporaryDirectory(prefix="editor-warmup-") as scratch:  # (the checkout's bytecode written)
        _timed([*plugin, "--isolated", "--exit-zero", "--stdin-display-name", str(files[0]), "-"], files[0], scratch)
    print(f"{'file':<60} {'lines':>5} {'plain':>7} {'cold':>7} {'warm':>7}  added cold / warm (target {TARGET_S} s)")
    for path in files:
        times: dict[str, list[float]] = {"plain": [], "cold": [], "warm": []}
        for _ in range(args.repeat):
            options = ["--isolated", "--exit-zero", "--stdin-display-name", str(path), "-"]
            empty = tempfile.mkdtemp(prefix="editor-cold-")
            try:
                times["plain"].append(_timed([str(plain), *options], path, empty))
                times["cold"].append(_timed([*plugin, *options], path, empty))
                times["warm"].append(_timed([*plugin, *options], path, empty))  # what the cold run left
            finally:
                shutil.rmtree(empty, ignore_errors=True)
        medians = {name: statistics.median(values) for name, values in times.items()}
        lines = path.read_bytes().count(b"\n")
        name = str(path.relative_to(APPS)) if path.is_relative_to(APPS) else str(path)
        print(
            f"{name[-60:]:<60} {lines:>5} {medians['plain']:>6.2f}s {medians['cold']:>6.2f}s {medians['warm']:>6.2f}s"
            f"  {medians['cold'] - medians['plain']:+.2f} / {medians['warm'] - medians['plain']:+.2f} s"
        )
    print(f"medians of {args.repeat} interleaved runs; python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
