"""The fixer as a LibCST codemod command, driven through ``python -m libcst.tool codemod``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from cli_support import BUG, FIXED, run, write
from fixture_support import FIXTURES

COMMAND = "flake8_device.codemod.FixDeviceBugs"


def codemod(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "libcst.tool", "codemod", *args, "--no-format", "--hide-progress", "-j", "1"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_external_command_fixes_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "train.py", BUG)
    result = codemod("-x", COMMAND, "train.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_text() == FIXED
    assert "Transformed 1 files successfully." in result.stderr


def test_command_found_through_the_codemod_configuration(tmp_path: Path) -> None:
    # The documented set-up: `.libcst.codemod.yaml` lists the modules holding commands.
    write(tmp_path / ".libcst.codemod.yaml", "modules:\n  - flake8_device\n")
    path = write(tmp_path / "src" / "train.py", BUG)
    result = codemod("codemod.FixDeviceBugs", "src", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_text() == FIXED


def test_noqa_configuration_unsafe_fixes_and_encoding(tmp_path: Path) -> None:
    unsafe = "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    unsafe += "        self.layers = [nn.Linear(2, 2) for _ in range(3)]\n"
    latin = write(tmp_path / "latin.py", "# -*- coding: latin-1 -*-\n# caf\xe9\n" + BUG, encoding="latin-1")
    quiet = write(tmp_path / "quiet.py", BUG.replace("(2, 2)\n", "(2, 2)  # noqa: DEV101\n"))
    layered = write(tmp_path / "layered.py", BUG + unsafe)
    assert codemod("-x", COMMAND, ".", cwd=tmp_path).returncode == 0
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXED).encode("latin-1")
    assert quiet.read_text() == BUG.replace("(2, 2)\n", "(2, 2)  # noqa: DEV101\n")
    assert layered.read_text() == FIXED + unsafe  # DEV103's fix is unsafe: not by default
    assert codemod("-x", COMMAND, "--unsafe-fixes", "layered.py", cwd=tmp_path).returncode == 0
    assert "self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])" in layered.read_text()
    # The project's [tool.flake8-device] configuration applies, as for `flake8-device --fix`.
    write(tmp_path / "pyproject.toml", '[tool.flake8-device]\nextend-ignore = ["DEV101"]\n')
    ignored = write(tmp_path / "ignored.py", BUG)
    assert codemod("-x", COMMAND, "ignored.py", cwd=tmp_path).returncode == 0
    assert ignored.read_text() == BUG


def test_same_result_as_the_cli_on_every_fixture(tmp_path: Path) -> None:
    by_codemod, by_cli = tmp_path / "codemod", tmp_path / "cli"
    for target in (by_codemod, by_cli):
        shutil.copytree(FIXTURES, target, ignore=shutil.ignore_patterns("*.fixed.py", "__pycache__"))
    result = codemod("-x", COMMAND, ".", cwd=by_codemod)
    assert result.returncode == 0, result.stderr
    assert run("--fix", "--exit-zero", "-j", "1", ".", cwd=by_cli).returncode == 0
    files = sorted(p.relative_to(by_cli) for p in by_cli.rglob("*.py"))
    assert len(files) >= 10
    changed = [f for f in files if (by_cli / f).read_text() != (FIXTURES / f).read_text()]
    assert len(changed) >= 5  # the comparison is about real fixes
    for name in files:
        assert (by_codemod / name).read_text() == (by_cli / name).read_text(), name
