"""Bounds of the analysis on real code and on pathological programs: time and memory per file.

One command (from the repository root):

    .venv/bin/python bench/bounds/run.py                  # library + application corpora, the
                                                          # standard library, a scientific install,
                                                          # the pathological programs
    .venv/bin/python bench/bounds/run.py --only patho     # just the pathological programs
    .venv/bin/python bench/bounds/run.py DIR ...          # any directories instead of the sets

For every Python file: the time of ``Engine.lint`` with the default rules (parse of what can
matter, analysis, findings) and the time of ``libcst.parse_module`` of the whole file, both in
the same worker process, one after the other.  "Analysis" is lint time less the whole-file parse
time (the engine parses only the units that can matter, so this gives the analysis the benefit of
the doubt by at most one parse).  The target: no file over 2 s of analysis.

Memory, for the files that took longest (and every pathological program): each run in a fresh
process, the peak resident memory gained by ``Engine.lint`` against the peak gained by
``libcst.parse_module`` of the same file (each process imports the same modules first).  The
target: at most 1.2x.

The sets: the library corpus (``bench/fetch_corpus.sh``, ``full``), the application corpus
(``bench/apps/extract.py``) when extracted, this interpreter's standard library, and the ``.py``
files of pinned wheels of numpy, scipy, sympy, pandas, scikit-learn, matplotlib, pygments and
IPython, downloaded with pip (never installed) into ``bench/.work/scientific``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
from corpus import WORK, corpus, python_files  # noqa: E402 - shared by the benchmarks

SCIENTIFIC = (
    "numpy==2.3.5",
    "scipy==1.16.3",
    "sympy==1.14.0",
    "pandas==2.3.3",
    "scikit-learn==1.7.2",
    "matplotlib==3.10.7",
    "pygments==2.20.0",
    "ipython==9.7.0",
)
ANALYSIS_TARGET_S = 2.0
MEMORY_TARGET = 1.2

_ENGINE = None


def _engine():  # type: ignore[no-untyped-def]
    global _ENGINE
    if _ENGINE is None:
        from flake8_device.engine import Engine
        from flake8_device.registry import all_rules

        _ENGINE = Engine([r for r in all_rules() if r.default_enabled])
    return _ENGINE


def time_file(path: str) -> tuple[str, float, float, int, str | None]:
    """(path, lint seconds, whole-file LibCST parse seconds, lines, error)."""
    import libcst

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return path, 0.0, 0.0, 0, f"unreadable: {error}"
    start = time.perf_counter()
    result = _engine().lint(text)
    lint = time.perf_counter() - start
    start = time.perf_counter()
    try:
        libcst.parse_module(text)
        error = result.error
    except Exception as failure:  # noqa: BLE001 - a file LibCST cannot parse is reported, not fatal
        error = f"LibCST: {type(failure).__name__}"
    parse = time.perf_counter() - start
    return path, lint, parse, text.count("\n") + 1, error


# The peak is read from /proc/self/status (VmHWM, the process's own high-water mark): getrusage's
# ru_maxrss survives exec and starts at the forking parent's size, which hides a smaller child's.
_PEAK = """
import sys
from pathlib import Path
import libcst
from flake8_device.engine import Engine
from flake8_device.registry import all_rules

def peak():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

engine = Engine([r for r in all_rules() if r.default_enabled])
text = Path(sys.argv[2]).read_text(encoding="utf-8")
before = peak()
if sys.argv[1] == "lint":
    engine.lint(text)
else:
    libcst.parse_module(text)
print(peak() - before)
"""


def peak_kib(mode: str, path: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, mode, path], capture_output=True, text=True, check=True, timeout=600
    )
    return int(done.stdout.strip())


def scientific() -> Path:
    destination = WORK / "scientific"
    marker = destination / "MANIFEST.txt"
    if marker.exists() and marker.read_text().split() == list(SCIENTIFIC):
        return destination
    wheels = destination / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", str(wheels)]
        + list(SCIENTIFIC),
        check=True,
    )
    for wheel in wheels.glob("*.whl"):
        out = destination / "src" / wheel.name.split("-")[0]
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.endswith(".py"):
                    archive.extract(name, out)
    marker.write_text("\n".join(SCIENTIFIC))
    return destination


def sets(only: str | None) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    if only in (None, "corpora"):
        found["library corpus"] = python_files([corpus("full") / "src"])
        apps = WORK / "apps" / "src"
        if apps.exists():
            found["application corpus"] = python_files([apps])
    if only in (None, "stdlib"):
        found["standard library"] = python_files([Path(sysconfig.get_paths()["stdlib"])])
    if only in (None, "scientific"):
        found["scientific install"] = python_files([scientific() / "src"])
    return found


def pathological() -> list[tuple[str, Path]]:
    from pathological import CASES

    folder = WORK / "pathological"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for case in CASES:
        path = folder / f"{case.name}.py"
        path.write_text(case.make(case.bench_size), encoding="utf-8")
        written.append((case.name, path))
    return written


def memory_line(label: str, path: Path) -> tuple[str, float]:
    lint, parse = peak_kib("lint", str(path)), peak_kib("parse", str(path))
    ratio = lint / parse if parse > 0 else float("inf") if lint > 0 else 0.0
    return f"  {label:<60} lint {lint / 1024:7.1f} MiB  LibCST parse {parse / 1024:7.1f} MiB  ratio {ratio:4.2f}", ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="*", help="directories to measure instead of the standard sets")
    parser.add_argument("--only", choices=("corpora", "stdlib", "scientific", "patho"))
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--memory-files", type=int, default=10, help="slowest files measured for memory per set")
    parser.add_argument("--json", metavar="FILE", help="write per-file times")
    args = parser.parse_args()
    failures = 0
    per_file: dict[str, list[tuple[str, float, float, int, str | None]]] = {}
    groups = {str(d): python_files([Path(d)]) for d in args.dirs} if args.dirs else (
        {} if args.only == "patho" else sets(args.only)
    )
    for label, files in groups.items():
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(time_file, [str(f) for f in files], chunksize=4))
        wall = time.perf_counter() - start
        per_file[label] = rows
        lines = sum(r[3] for r in rows)
        over = [r for r in rows if r[1] - r[2] > ANALYSIS_TARGET_S]
        slowest = sorted(rows, key=lambda r: r[1] - r[2], reverse=True)
        print(f"{label}: {len(rows)} files, {lines:,} lines, {wall:.0f} s wall with {args.jobs} workers")
        print(f"  files over {ANALYSIS_TARGET_S:.0f} s of analysis: {len(over)}")
        for path, lint, parse, count, error in slowest[:5]:
            note = f"  ({error})" if error else ""
            print(f"  slowest: {path}  lint {lint:.2f} s, LibCST parse {parse:.2f} s, {count} lines{note}")
        failures += len(over)
        for path, *_ in sorted(rows, key=lambda r: r[1], reverse=True)[: args.memory_files]:
            line, ratio = memory_line(os.path.relpath(path), Path(path))
            print(line)
            failures += ratio > MEMORY_TARGET
    if not args.dirs and args.only in (None, "patho"):
        print("pathological programs (tests/pathological.py at their benchmark sizes):")
        for name, path in pathological():
            _, lint, parse, count, error = time_file(str(path))
            analysis = lint - parse
            note = f"  ({error})" if error else ""
            print(f"  {name:<18} {count:>7,} lines  lint {lint:6.2f} s  LibCST parse {parse:6.2f} s{note}")
            failures += analysis > ANALYSIS_TARGET_S
            line, ratio = memory_line(name, path)
            print(line)
            failures += ratio > MEMORY_TARGET
    if args.json:
        Path(args.json).write_text(json.dumps(per_file, indent=1))
    print(f"over a target: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
