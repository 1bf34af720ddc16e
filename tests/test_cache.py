"""The CLI's on-disk cache: reused while nothing a finding depends on changes, never stale."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cli_support import BUG, run, write
from flake8_device.cache import Cache
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.options import Options
from flake8_device.selection import Selection

ENTRIES = Path(".flake8-device-cache") / "entries"


def _entries(root: Path) -> list[Path]:
    return sorted((root / ENTRIES).rglob("*.json"))


def test_a_second_run_reads_the_cache_and_says_the_same(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    first = run("--isolated", "bug.py", cwd=tmp_path)
    assert first.returncode == 1 and "DEV101" in first.stdout
    [entry] = _entries(tmp_path)
    assert (tmp_path / ".flake8-device-cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (tmp_path / ".flake8-device-cache" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f59")
    second = run("--isolated", "bug.py", cwd=tmp_path)
    assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)
    # The second run read the entry: one changed by hand shows.
    entry.write_text(entry.read_text().replace("stays on the CPU", "STAYS ON THE CPU"))
    assert "STAYS ON THE CPU" in run("--isolated", "bug.py", cwd=tmp_path).stdout


def test_an_edit_or_other_settings_make_a_new_entry_never_a_stale_answer(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    run("--isolated", "bug.py", cwd=tmp_path)
    write(tmp_path / "bug.py", BUG.replace("model.head = nn.Linear(2, 2)", "model.head = nn.Linear(2, 2).to(device)"))
    fixed = run("--isolated", "bug.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout
    write(tmp_path / "bug.py", BUG)
    assert run("--isolated", "--extend-ignore", "DEV101", "bug.py", cwd=tmp_path).returncode == 0
    assert run("--isolated", "bug.py", cwd=tmp_path).returncode == 1
    assert len(_entries(tmp_path)) == 3  # the bug, its fix, the bug with DEV101 off


def test_the_key_follows_the_pins_the_advisories_read(tmp_path: Path) -> None:
    """Pins of the file's directory and those above it (up to the repository root) are part of the key."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    source = write(project / "src" / "train.py", "import deepspeed\n")
    options = Options(selection=Selection(), config=AnalysisConfig(), cache_dir=str(tmp_path / "cache"))
    cache = Cache(str(tmp_path / "cache"))
    data = source.read_bytes()
    from flake8_device import cache as cache_module

    def key() -> str:
        cache_module._directory_pins.cache_clear()
        return cache.key(str(source), data, options)

    bare = key()
    write(project / "requirements.txt", "deepspeed==0.14.2\n")
    pinned = key()
    assert pinned != bare
    write(project / "requirements.txt", "deepspeed==0.14.5\n")
    os.utime(project / "requirements.txt", ns=(1, 1))
    changed = key()
    assert changed not in (bare, pinned)
    write(tmp_path / "requirements.txt", "deepspeed==0.10.0\n")  # above the repository root: not read
    assert key() == changed


def test_no_cache_writes_nothing_and_fix_diff_and_stdin_never_use_it(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    assert run("--isolated", "--no-cache", "bug.py", cwd=tmp_path).returncode == 1
    assert not (tmp_path / ".flake8-device-cache").exists()
    run("--isolated", "--diff", "bug.py", cwd=tmp_path)
    run("--isolated", "-", cwd=tmp_path, stdin=BUG)
    assert _entries(tmp_path) == []
    assert run("--isolated", "--cache-dir", "elsewhere", "bug.py", cwd=tmp_path).returncode == 1
    assert len(list((tmp_path / "elsewhere" / "entries").rglob("*.json"))) == 1


def test_a_corrupt_entry_is_a_miss(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    first = run("--isolated", "bug.py", cwd=tmp_path)
    [entry] = _entries(tmp_path)
    entry.write_text('{"format": 1, "findings": [{"line": "x"}]')
    again = run("--isolated", "bug.py", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
    entry.write_text('{"format": 1, "findings": 3}')
    assert run("--isolated", "bug.py", cwd=tmp_path).stdout == first.stdout


def test_parallel_runs_share_one_cache_safely(tmp_path: Path) -> None:
    for index in range(12):
        write(tmp_path / f"bug{index}.py", BUG + f"\nvalue = {index}\n")
    command = [sys.executable, "-m", "flake8_device", "--isolated", "-j", "2", "."]
    runs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    outputs = [process.communicate(timeout=300) for process in runs]
    assert all(process.returncode == 1 for process in runs)
    assert len({stdout for stdout, _ in outputs}) == 1
    assert len(_entries(tmp_path)) == 12
    assert not [p for p in (tmp_path / ENTRIES).rglob(".tmp-*")]
    assert run("--isolated", ".", cwd=tmp_path).stdout.encode() == outputs[0][0]
