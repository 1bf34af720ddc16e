"""The `flake8-device` command, driven in a subprocess as a user would."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

BUG = """import torch
from torch import nn

device = torch.device("cuda")
model = nn.Linear(4, 2)
model.to(device)
model.head = nn.Linear(2, 2)
"""

FIXED = BUG.replace("model.head = nn.Linear(2, 2)", "model.head = nn.Linear(2, 2).to(device)")


def run(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8_device", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def write(path: Path, text: str, **kwargs: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, **kwargs)
    return path


def test_clean_file_exits_zero(tmp_path: Path) -> None:
    write(tmp_path / "ok.py", FIXED)
    result = run(".", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "All checks passed (1 file).\n")


def test_findings_exit_one_in_flake8_format(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    result = run("bug.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == (
        "bug.py:7:14: DEV101 `nn.Linear(2, 2)` is attached to `model` after `model` was moved (line 6), so it stays on "
        "the CPU\n"
    )
    assert "1 fixable with --fix" in result.stderr


def test_output_is_sorted_by_path_line_column(tmp_path: Path) -> None:
    for name in ("b.py", "a.py", "sub/c.py"):
        write(tmp_path / name, BUG + BUG.splitlines()[-1] + "\n")
    lines = run(".", "-j", "2", cwd=tmp_path).stdout.splitlines()
    keys = [(p, int(line), int(col)) for p, line, col, _ in (row.split(":", 3) for row in lines)]
    assert keys == sorted(keys) and len(keys) == 6
    assert run(".", "-j", "1", cwd=tmp_path).stdout.splitlines() == lines


def test_missing_path_is_one_clear_line_and_exit_two(tmp_path: Path) -> None:
    result = run("nope.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "flake8-device: nope.py: no such file or directory\n"


def test_syntax_error_is_one_clear_line_and_exit_two(tmp_path: Path) -> None:
    write(tmp_path / "broken.py", "def f(:\n    pass\n")
    result = run("broken.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("flake8-device: broken.py: syntax error at line 1")
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_fix_applies_safe_fixes_and_honours_noqa(tmp_path: Path) -> None:
    text = BUG + "model.tail = nn.Linear(2, 2)  # noqa: DEV101\n"
    path = write(tmp_path / "bug.py", text)
    result = run("--fix", "bug.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_text() == FIXED + "model.tail = nn.Linear(2, 2)  # noqa: DEV101\n"
    assert "Fixed 1 finding." in result.stderr
    again = run("--fix", "bug.py", cwd=tmp_path)
    assert again.returncode == 0 and path.read_text() == FIXED + "model.tail = nn.Linear(2, 2)  # noqa: DEV101\n"


def test_fix_keeps_crlf_bom_encoding_and_mode(tmp_path: Path) -> None:
    text = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + BUG
    bom_path = tmp_path / "bom.py"
    bom_path.write_bytes(b"\xef\xbb\xbf" + BUG.replace("\n", "\r\n").encode("utf-8"))
    latin_path = tmp_path / "latin.py"
    latin_path.write_bytes(text.encode("latin-1"))
    os.chmod(latin_path, 0o754)
    result = run("--fix", "bom.py", "latin.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert bom_path.read_bytes() == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode("utf-8")
    assert latin_path.read_bytes() == ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXED).encode("latin-1")
    assert stat.S_IMODE(latin_path.stat().st_mode) == 0o754


def test_diff_changes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "bug.py", BUG)
    result = run("--diff", "bug.py", cwd=tmp_path)
    assert result.returncode == 1
    assert path.read_text() == BUG
    assert "-model.head = nn.Linear(2, 2)\n+model.head = nn.Linear(2, 2).to(device)\n" in result.stdout
    assert "Would fix 1 finding." in result.stderr


def test_stdin_lint_and_fix(tmp_path: Path) -> None:
    linted = run("-", "--stdin-filename", "train.py", stdin=BUG)
    assert linted.returncode == 1 and linted.stdout.startswith("train.py:7:14: DEV101")
    fixed = run("--fix", "-", "--stdin-filename", "train.py", stdin=BUG)
    assert fixed.stdout == FIXED
    assert fixed.returncode == 0


def test_select_and_ignore_by_prefix(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    assert run("--select", "DEV2", "bug.py", cwd=tmp_path).returncode == 0
    assert run("--select", "DEV1", "bug.py", cwd=tmp_path).returncode == 1
    assert run("--extend-ignore", "DEV10", "bug.py", cwd=tmp_path).returncode == 0
    assert run("--ignore", "DEV1", "--extend-select", "DEV101", "bug.py", cwd=tmp_path).returncode == 1


def test_default_excludes_and_exclude_option(tmp_path: Path) -> None:
    for directory in (".venv", "venv", "build", "__pycache__", ".tox", ".nox", ".eggs", ".git"):
        write(tmp_path / directory / "bug.py", BUG)
    assert run(".", cwd=tmp_path).returncode == 0
    write(tmp_path / "gen" / "bug.py", BUG)
    assert run(".", cwd=tmp_path).returncode == 1
    assert run(".", "--extend-exclude", "gen", cwd=tmp_path).returncode == 0


def test_exit_zero(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    result = run("--exit-zero", "bug.py", cwd=tmp_path)
    assert result.returncode == 0 and "DEV101" in result.stdout


def test_explain_unknown_code_is_a_usage_error() -> None:
    result = run("--explain", "DEV999")
    assert result.returncode == 2 and "unknown rule" in result.stderr


def test_list_rules_marks_what_is_on() -> None:
    result = run("--list-rules", "--select", "DEV1")
    assert result.returncode == 0
    assert "DEV101  on " in result.stdout and "DEV201  off" in result.stdout


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("flake8-device")
    if not script.exists():
        pytest.skip("console script not installed in this environment")
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("flake8-device ")
