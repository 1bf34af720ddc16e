"""Speed and memory of flake8-device against plain flake8 and TorchFix, on real code.

One command (from the repository root):

    python3 bench/speed/run.py                     # small corpus (~315k lines), 3 repetitions
    python3 bench/speed/run.py --size full         # adds the full corpus (~1.7M lines) for memory

What it does, all on the same files with one job (-j1):
  1. plain flake8 in its own virtual environment (no plugins): the baseline;
  2. flake8 with flake8-device installed;
  3. flake8 with TorchFix installed (the LibCST-based peer): the reference;
  4. the flake8-device CLI alone (lines per second), and `--fix` on a copy;
  5. a raw `libcst.parse_module` of every file: the floor for any LibCST linter;
  6. peak memory of the CLI, and the time for the largest single file (editor latency).
Measurements are interleaved (A, B, C, A, B, C, ...) so that machine noise spreads over
all of them; each is reported as median and spread (min-max) of CPU time (user+sys of the
process, steadier than wall time on a shared machine) and wall time.  The targets are
ratios from the same run: flake8 + plugin <= 1.20x plain flake8; the plugin's added time
<= 1/10 of TorchFix's added time; the largest file in < 1 s; memory flat as the corpus grows.

Virtual environments and the corpus live under bench/.work/ (not committed).  The corpus
is fetched with ../shared/corpus/fetch.sh (pinned releases) unless --corpus is given.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from corpus import WORK, corpus, line_count, projects, python_files  # noqa: E402 - shared by the benchmarks


@dataclass
class Sample:
    cpu: float
    wall: float
    max_rss_kib: int


@dataclass
class Series:
    name: str
    samples: list[Sample] = field(default_factory=list)

    def stat(self, attribute: str) -> tuple[float, float, float]:
        values = [getattr(s, attribute) for s in self.samples]
        return statistics.median(values), min(values), max(values)

    @property
    def cpu(self) -> float:
        return self.stat("cpu")[0]


def run_measured(command: list[str], cwd: Path | None = None, stdin_path: Path | None = None) -> Sample:
    """Run a command, return its CPU time (user+sys), wall time and peak RSS."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL  # noqa: SIM115
    # A user's cache folder of its own (empty): the plugin keeps summaries there, and every run
    # here is a cold one.
    user_cache = tempfile.mkdtemp(prefix="speed-user-cache-")
    env = {**os.environ, "XDG_CACHE_HOME": user_cache}
    # stderr goes to a file, not a pipe: nothing reads a pipe while the command runs, and a command
    # that writes more than the pipe holds (warnings about the corpus's files) would wait forever.
    errors = tempfile.TemporaryFile()  # noqa: SIM115
    try:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        error = errors.read().decode(errors="replace") if code not in (0, 1) else ""
    finally:
        errors.close()
        if stdin_path:
            stdin.close()  # type: ignore[union-attr]
        shutil.rmtree(user_cache, ignore_errors=True)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(command[:3])}... failed with {code}: {error[-2000:]}")
    return Sample(cpu=usage.ru_utime + usage.ru_stime, wall=wall, max_rss_kib=usage.ru_maxrss)


def venv(name: str, packages: list[str]) -> Path:
    """A virtual environment under bench/.work with exactly these packages (made once)."""
    path = WORK / "venvs" / name
    marker = path / "installed.json"
    if marker.exists() and json.loads(marker.read_text()) == packages:
        return path
    if path.exists():
        shutil.rmtree(path)
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    pip = [str(path / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *packages], check=True)
    marker.write_text(json.dumps(packages))
    return path


def installed_version(environment: Path, distribution: str) -> str:
    snippet = f"import importlib.metadata as m; print(m.version({distribution!r}))"
    command = [str(environment / "bin" / "python"), "-c", snippet]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


PARSE_SNIPPET = """
import sys, time, libcst
paths = sys.argv[1:]
texts = [open(p, encoding="utf-8").read() for p in paths]
for text in texts:
    try:
        libcst.parse_module(text)
    except Exception:
        pass
"""

LINT_SNIPPET = """
import ast, sys, time
from flake8_device.engine import Engine
from flake8_device.registry import all_rules
text = open(sys.argv[1], encoding="utf-8").read()
engine = Engine([r for r in all_rules() if r.default_enabled])
tree = ast.parse(text)
start = time.perf_counter()
engine.lint(text, tree=tree)
print(time.perf_counter() - start)
"""


def flake8_command(environment: Path, directories: list[str]) -> list[str]:
    return [str(environment / "bin" / "flake8"), "-j1", "--isolated", "--exit-zero", *directories]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", help="a directory made by fetch.sh (default: fetch into bench/.work)")
    parser.add_argument("--size", choices=("small", "full"), default="small")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-torchfix", action="store_true", help="leave out the TorchFix reference")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()

    # The baseline environment decides the flake8 release; the others install the same one,
    # so the command needs nothing installed where it is started.
    plain = venv("plain", ["flake8"])
    flake8_version = installed_version(plain, "flake8")
    root = corpus(args.size, args.corpus)
    source = root / "src"
    small_dirs = [source / name for name in projects(source, "small")]
    files = python_files(small_dirs)
    lines = line_count(files)
    print(
        f"corpus: {len(files)} files, {lines} lines ({', '.join(d.name for d in small_dirs)}); flake8 {flake8_version}"
    )

    device = venv("device", [f"flake8=={flake8_version}", str(ROOT)])
    # The environment is kept between runs; the code under test is this checkout, as it is now.
    reinstall = [str(device / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*reinstall, "--no-deps", "--force-reinstall", str(ROOT)], check=True)
    torchfix = None if args.skip_torchfix else venv("torchfix", [f"flake8=={flake8_version}", "torchfix"])
    relative = [str(d.relative_to(source)) for d in small_dirs]

    commands: dict[str, tuple[list[str], Path]] = {
        "flake8 (plain)": (flake8_command(plain, relative), source),
        "flake8 + flake8-device": (flake8_command(device, relative), source),
        "flake8-device CLI": (
            [str(device / "bin" / "flake8-device"), "-j1", "--no-cache", "--exit-zero", *relative],
            source,
        ),
        # A re-run over the unchanged tree: every file's findings from the cache (filled below).
        "flake8-device CLI, warm cache": (
            [str(device / "bin" / "flake8-device"), "-j1", "--cache-dir", str(WORK / "speed-cache"), "--exit-zero"]
            + relative,
            source,
        ),
        "libcst.parse_module": ([str(device / "bin" / "python"), "-c", PARSE_SNIPPET, *map(str, files)], source),
    }
    if torchfix is not None:
        commands["flake8 + TorchFix"] = (flake8_command(torchfix, relative), source)
    series = {name: Series(name) for name in [*commands, "flake8-device --fix (copy)"]}
    shutil.rmtree(WORK / "speed-cache", ignore_errors=True)
    run_measured(commands["flake8-device CLI, warm cache"][0], cwd=source)  # fills the cache
    for round_number in range(args.repeat):
        for name, (command, cwd) in commands.items():
            series[name].samples.append(run_measured(command, cwd=cwd))
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "src"
            for directory in small_dirs:
                shutil.copytree(directory, copy / directory.name)
            fix = [str(device / "bin" / "flake8-device"), "-j1", "--fix", "--exit-zero", *relative]
            series["flake8-device --fix (copy)"].samples.append(run_measured(fix, cwd=copy))
        print(f"round {round_number + 1}/{args.repeat} done", file=sys.stderr)

    largest = max(files, key=lambda p: p.read_bytes().count(b"\n"))
    largest_lines = largest.read_bytes().count(b"\n")
    engine_times = [
        float(
            subprocess.run(
                [str(device / "bin" / "python"), "-c", LINT_SNIPPET, str(largest)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        for _ in range(args.repeat)
    ]
    single = {
        "CLI on the largest file": [
            run_measured([str(device / "bin" / "flake8-device"), "--no-cache", "--exit-zero", str(largest)])
            for _ in range(args.repeat)
        ],
        "flake8 (plain), stdin": [
            run_measured([str(plain / "bin" / "flake8"), "--isolated", "--exit-zero", "-"], stdin_path=largest)
            for _ in range(args.repeat)
        ],
        "flake8 + plugin, stdin": [
            run_measured([str(device / "bin" / "flake8"), "--isolated", "--exit-zero", "-"], stdin_path=largest)
            for _ in range(args.repeat)
        ],
    }

    memory: dict[str, int] = {"small": series["flake8-device CLI"].samples[0].max_rss_kib}
    if args.size == "full":
        full_dirs = projects(source, "full")
        full_files = python_files([source / d for d in full_dirs])
        full = run_measured(
            [str(device / "bin" / "flake8-device"), "-j1", "--no-cache", "--exit-zero", *full_dirs], cwd=source
        )
        memory["full"] = full.max_rss_kib
        print(f"full corpus: {len(full_files)} files, {line_count(full_files)} lines, CLI {full.wall:.1f} s wall")

    report = render(series, lines, largest, largest_lines, engine_times, single, memory, flake8_version, args)
    print(report)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "date": date.today().isoformat(),
                    "lines": lines,
                    "series": {n: [s.__dict__ for s in v.samples] for n, v in series.items()},
                    "memory_kib": memory,
                },
                indent=2,
            )
        )
    return 0


def render(  # type: ignore[no-untyped-def]
    series, lines, largest, largest_lines, engine_times, single, memory, flake8_version, args
) -> str:
    def row(name: str, s: Series) -> str:
        cpu, cpu_lo, cpu_hi = s.stat("cpu")
        wall, wall_lo, wall_hi = s.stat("wall")
        cells = [
            f"{cpu:.1f} ({cpu_lo:.1f}-{cpu_hi:.1f})",
            f"{wall:.1f} ({wall_lo:.1f}-{wall_hi:.1f})",
            f"{lines / cpu:,.0f}",
        ]
        return f"| {name} | " + " | ".join(cells) + " |"

    out = [
        f"Speed on {lines:,} lines, {date.today().isoformat()}, {args.repeat} interleaved repetitions, -j1 "
        f"(flake8 {flake8_version}; `python3 bench/speed/run.py{' --size full' if args.size == 'full' else ''}`)",
        "",
        "| Run | CPU s median (min-max) | wall s median (min-max) | lines per CPU s |",
        "| --- | --- | --- | --- |",
        *(row(name, s) for name, s in series.items()),
        "",
    ]
    base = series["flake8 (plain)"].cpu
    plugin = series["flake8 + flake8-device"].cpu
    out.append(f"- flake8 + flake8-device / plain flake8: **{plugin / base:.2f}x** (target <= 1.20x)")
    if "flake8 + TorchFix" in series:
        torchfix = series["flake8 + TorchFix"].cpu
        added_ours, added_theirs = plugin - base, torchfix - base
        out.append(f"- flake8 + TorchFix / plain flake8: {torchfix / base:.2f}x")
        out.append(f"- added time, flake8-device / TorchFix: **{added_ours / added_theirs:.3f}** (target <= 0.100)")
    parse = series["libcst.parse_module"].cpu
    out.append(f"- flake8-device CLI / raw LibCST parse of every file: {series['flake8-device CLI'].cpu / parse:.2f}x")
    stdin_plain = statistics.median(s.wall for s in single["flake8 (plain), stdin"])
    stdin_plugin = statistics.median(s.wall for s in single["flake8 + plugin, stdin"])
    cli_single = statistics.median(s.wall for s in single["CLI on the largest file"])
    out.append(
        f"- largest file ({largest.name}, {largest_lines:,} lines): engine {statistics.median(engine_times):.2f} s, "
        f"CLI {cli_single:.2f} s wall (interpreter start included), flake8 on stdin {stdin_plain:.2f} s plain vs "
        f"{stdin_plugin:.2f} s with the plugin (target < 1 s)"
    )
    out.append(
        "- peak memory of the CLI (-j1): "
        + ", ".join(f"{name} corpus {kib / 1024:.0f} MiB" for name, kib in memory.items())
    )
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
