"""Crash-free on real code: the CLI, the flake8 plugin and the fixer over the corpus and the stdlib.

One command (from the repository root, after ``scripts/test.sh`` made .venv):

    .venv/bin/python bench/reliability/run.py               # full corpus (~1.7M lines) + stdlib
    .venv/bin/python bench/reliability/run.py --size small  # the small corpus + stdlib

Every rule runs, the off-by-default ones too.  It checks that:
  1. the CLI exits 0 or 1, prints no traceback and no internal error; a file it refuses
     (exit 2) must be one Python itself cannot compile (the stdlib ships a few on purpose);
  2. flake8 with the plugin prints no traceback and nothing from flake8-device on stderr;
  3. on every file with a finding, ``--fix --unsafe-fixes`` gives code that parses, a
     second fix changes nothing, and only lines with a reported fix change (or imports
     are added).
It prints files, lines and the number of crashes (the target is 0) and exits 1 on any.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from flake8_device.engine import Engine
from flake8_device.registry import all_rules
from flake8_device.source import SourceError, decode_source

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench")]
from corpus import corpus, line_count, projects, python_files  # noqa: E402 - shared by the benchmarks
from fix_invariants import fix_problem  # noqa: E402 - the tests' own check, shared

ENGINE = Engine(list(all_rules()))
ERROR_LINE = re.compile(r"^flake8-device: (?P<path>.+?): (?P<message>.+)$")
# What the CLI prints on stderr besides errors: the summary and fix counts.
SUMMARY_LINE = re.compile(r"^(Found|Fixed|Would fix|No) ")


def compiles(path: Path) -> bool:
    try:
        ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def check_cli(tree: Path, parts: list[str], jobs: int) -> tuple[list[str], list[str], set[str]]:
    """Crashes, files refused with a reason Python agrees with, and files with findings."""
    command = [sys.executable, "-m", "flake8_device", "--select", "DEV", "-j", str(jobs)]
    result = subprocess.run(
        [*command, "--format", "json", "--extend-exclude", "site-packages", *parts],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    crashes, refused = [], []
    if result.returncode not in (0, 1, 2) or "Traceback" in result.stderr:
        crashes.append(f"CLI exit {result.returncode}: {result.stderr[-2000:]}")
    for line in result.stderr.splitlines():
        match = ERROR_LINE.match(line)
        if match is None:
            if line.strip() and not SUMMARY_LINE.match(line):
                crashes.append(f"unexpected stderr line: {line}")
            continue
        path, message = match["path"], match["message"]
        if "internal error" in message or compiles(tree / path):
            crashes.append(line)
        else:
            refused.append(f"{path}: {message}")
    if result.returncode == 2 and not refused:
        crashes.append(f"exit 2 without a refused file: {result.stderr[-2000:]}")
    findings = {str(tree / item["filename"]) for item in json.loads(result.stdout or "[]")}
    return crashes, refused, findings


def check_flake8(tree: Path, parts: list[str], jobs: int) -> list[str]:
    flake8 = Path(sys.executable).with_name("flake8")
    result = subprocess.run(
        [str(flake8), "--select", "DEV", "--isolated", "-j", str(jobs), "--extend-exclude", "site-packages", *parts],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    problems = [line for line in result.stderr.splitlines() if "flake8-device" in line or "Traceback" in line]
    if result.returncode not in (0, 1):
        problems.append(f"flake8 exit {result.returncode}: {result.stderr[-2000:]}")
    return problems


def check_fix(path: str) -> str | None:
    """What is wrong with fixing ``path`` (None: nothing)."""
    try:
        text = decode_source(Path(path).read_bytes()).text
    except SourceError:
        return None
    problem = fix_problem(ENGINE, text)
    return None if problem is None else f"{path}: {problem}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=("small", "full"), default="full")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    source = corpus(args.size) / "src"
    trees = {
        f"corpus ({args.size})": (source, projects(source, args.size)),
        "stdlib": (Path(sysconfig.get_paths()["stdlib"]), ["."]),
    }
    crashes: list[str] = []
    total_files = total_lines = 0
    for label, (tree, parts) in trees.items():
        start = time.perf_counter()
        files = python_files([tree / part for part in parts])
        lines = line_count(files)
        cli_crashes, refused, with_findings = check_cli(tree, parts, args.jobs)
        flake8_problems = check_flake8(tree, parts, args.jobs)
        fix_problems = [problem for path in sorted(with_findings) if (problem := check_fix(path))]
        crashes += cli_crashes + flake8_problems + fix_problems
        total_files, total_lines = total_files + len(files), total_lines + lines
        print(
            f"{label}: {len(files):,} files, {lines:,} lines; CLI crashes {len(cli_crashes)}, "
            f"flake8 plugin problems {len(flake8_problems)}, files refused as Python refuses them "
            f"{len(refused)}, files with findings fixed and checked {len(with_findings)} "
            f"(problems {len(fix_problems)}); {time.perf_counter() - start:.0f} s"
        )
        for line in refused:
            print(f"  refused: {line}")
    for crash in crashes:
        print(f"CRASH: {crash}")
    print(f"total: {total_files:,} files, {total_lines:,} lines, crashes = {len(crashes)}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
