"""The README is true from a fresh clone: every command in it is run here, or by a script named here.

Every command of a fenced ``sh`` block falls in one class below, or this test
fails (a new command must be placed):

- lint commands (``flake8-device``, ``flake8``, ``python -m libcst.tool``) run
  in a throwaway project with small stand-ins for the README's paths (``src/``,
  ``train.py``, ``analysis.ipynb``, ``ds_config.json``...): each must exit 0 or
  1, never 2 (a usage error) or with a traceback;
- the install command runs on a copy of this repository, and the CI block's
  ``pip install`` from a local git repository at a commit (both need the
  package index: skipped, saying so, without it);
- ``scripts/test.sh`` is the command that runs this suite;
- the pre-commit ``yaml`` block is run by ``tests/test_precommit.py`` (a local
  repository pinned by commit), the ``toml``/``ini`` examples by
  ``tests/test_settings.py`` and below; commands that need torch or the
  corpus (``bench/...``) are run by those bench scripts, whose presence is
  checked here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import BUG, code_cell, notebook_json, write

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINT_PROGRAMS = ("flake8-device", "flake8", "python -m libcst.tool", "cat ")
INSTALL = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/flake8-device path/to/your/code"
SUITE = "scripts/test.sh"
NO_INDEX = re.compile(
    r"Could not find a version that satisfies|No matching distribution found|Failed to establish a new connection"
    r"|Temporary failure in name resolution|Network is unreachable|Name or service not known"
)


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def commands() -> list[str]:
    """Every command of the README's ``sh`` blocks (comments dropped, continuations joined)."""
    found = []
    for block in blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command and not command.startswith("#"):
                found.append(command)
    return found


def workflow_commands() -> list[str]:
    lines = [line for block in blocks("yaml") for line in block.splitlines()]
    return [line.split("- run:", 1)[1].strip() for line in lines if "- run:" in line]


def test_every_command_is_placed() -> None:
    unplaced = [c for c in commands() if not c.startswith(LINT_PROGRAMS) and c not in (INSTALL, SUITE)]
    assert unplaced == [], f"README commands no test runs: {unplaced}"
    assert INSTALL in commands() and SUITE in commands()
    assert (ROOT / SUITE).is_file() and (ROOT / ".ci" / "run").is_file()


def test_bench_commands_in_the_readme_exist() -> None:
    for script in sorted(set(re.findall(r"(bench/[\w/]+\.(?:py|sh))", README))):
        assert (ROOT / script).is_file(), script


def sandbox(root: Path) -> Path:
    """Stand-ins for every path the README's commands name."""
    write(root / "src" / "train.py", BUG)
    write(root / "src" / "data.py", "import torch\nx = torch.ones(3).cuda() + torch.zeros(3)\n")
    write(root / "path" / "to" / "your" / "code" / "train.py", BUG)
    write(root / "train.py", BUG)
    cells = [code_cell(BUG, 1), code_cell("model.tail = nn.Linear(2, 2)\n", 2)]
    write(root / "analysis.ipynb", notebook_json(cells))
    config = '{\n  "zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}}\n}\n'
    write(root / "ds_config.json", config)
    write(root / "configs" / "zero3.json", config.replace('"stage": 2', '"stage": 3'))
    return root


def shell(command: str, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_every_lint_command_runs(tmp_path: Path) -> None:
    root = sandbox(tmp_path)
    lint = [c for c in commands() if c.startswith(LINT_PROGRAMS)]
    lint += [c.replace(" > flake8-device.sarif", "") for c in workflow_commands() if c.startswith("flake8-device")]
    assert len(lint) > 20
    for command in lint:
        result = shell(command, root)
        assert result.returncode in (0, 1), f"{command}: exit {result.returncode}\n{result.stderr}"
        assert "Traceback" not in result.stderr, f"{command}:\n{result.stderr}"
    assert (root / "report.txt").read_text().count("DEV") >= 1  # --output-file wrote the report
    assert "# noqa: DEV" in (root / "src" / "data.py").read_text()  # --add-noqa ran


def test_the_readme_ini_workaround_keeps_flake8_device_on(tmp_path: Path) -> None:
    root = sandbox(tmp_path)
    workaround = next(b for b in blocks("ini") if re.search(r"^extend-select = DEV$", b, re.M))
    write(root / "setup.cfg", workaround)
    for command in ("flake8-device src/train.py", "flake8 src/train.py"):
        result = shell(command, root)
        assert "DEV101" in result.stdout and "DEV404" not in result.stdout, command


def committed_copy(destination: Path) -> str:
    """This working tree as a fresh clone would have it (files git tracks or would add), committed; the commit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for who in ("AUTHOR", "COMMITTER"):
        env.update({f"GIT_{who}_NAME": "flake8-device tests", f"GIT_{who}_EMAIL": "tests@flake8-device.invalid"})
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    for name in filter(None, listed.stdout.split("\0")):
        if (ROOT / name).is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, destination / name)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "copy"]):
        subprocess.run(["git", *args], cwd=destination, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=destination, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_install_commands_work_from_a_fresh_copy(tmp_path: Path) -> None:
    clone = tmp_path / "flake8-device"
    commit = committed_copy(clone)
    write(clone / "path" / "to" / "your" / "code" / "train.py", BUG)
    result = shell(INSTALL, clone, timeout=900)
    if result.returncode != 0 and NO_INDEX.search(result.stdout + result.stderr):
        pytest.skip("the package index cannot be reached to install the dependencies")
    assert result.returncode == 1, result.stdout + result.stderr  # installed, and found the bug
    assert "DEV101" in result.stdout
    (pip_line,) = [c for c in workflow_commands() if c.startswith("pip install")]
    url = re.search(r"git\+(\S+?)@<commit>", pip_line)
    assert url is not None, pip_line
    # (pip wants a host in a git+file URL.)
    local = pip_line.replace(url.group(1), f"file://localhost{clone.as_posix()}").replace("<commit>", commit)
    venv = tmp_path / "ci"
    quoted = shlex.quote(str(venv))
    result = shell(f"python3 -m venv {quoted} && {quoted}/bin/{local}", tmp_path, 900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert shell(f"{venv}/bin/flake8-device --version", tmp_path).returncode == 0
