"""The pre-commit hooks, end to end with the real ``pre-commit``, the way a user adds them.

This repository's working tree is committed into a throwaway git repository
(what a user's ``repo:`` URL would be cloned from) and pinned by commit in the
``.pre-commit-config.yaml`` of a throwaway project.  pre-commit clones it,
builds the hook's environment with pip, and runs the hook on the project's
files.  Building the environment needs the package index; when pre-commit
cannot reach it the tests are skipped, saying so (anything else fails).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import BUG, FIXED, code_cell, notebook_json, write
from flake8_device.links import PROJECT_URL

ROOT = Path(__file__).resolve().parent.parent
INSTALL_TIMEOUT = 900  # the first run builds the hook environment

# What pip and pre-commit print when the package index cannot be reached.
NO_NETWORK = re.compile(
    r"Could not find a version that satisfies|No matching distribution found|Failed to establish a new connection"
    r"|Temporary failure in name resolution|Network is unreachable|Name or service not known|ConnectTimeout"
    r"|Read timed out|Max retries exceeded"
)

NOTEBOOK = [
    code_cell("import torch\nfrom torch import nn\n", 1),
    code_cell('device = torch.device("cuda")\nmodel = nn.Linear(4, 2)\nmodel.to(device)\n', 2),
    code_cell("model.head = nn.Linear(2, 2)\n", 3),
]


def git_environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    identity = {"NAME": "flake8-device tests", "EMAIL": "tests@flake8-device.invalid"}
    env.update({f"GIT_{who}_{what}": value for who in ("AUTHOR", "COMMITTER") for what, value in identity.items()})
    env["PRE_COMMIT_HOME"] = str(home)
    return env


def git(*args: str, cwd: Path, env: dict[str, str]) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"git {' '.join(args)}: {result.stderr}"
    return result.stdout


def project_files() -> list[Path]:
    """The files of this project: git's view of the working tree, or the tree itself outside git."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if listed.returncode == 0 and listed.stdout:
        names = [Path(name) for name in listed.stdout.split("\0") if name]
    else:
        skipped = {".git", ".venv", "build", "__pycache__", ".pytest_cache", ".hypothesis"}
        names = [
            p.relative_to(ROOT) for p in ROOT.rglob("*") if p.is_file() and not skipped & set(p.relative_to(ROOT).parts)
        ]
    return [name for name in names if (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, dict[str, str]]:
    """(repository path, commit, environment): this working tree, committed as a user would clone it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed (pre-commit needs it)")
    base = tmp_path_factory.mktemp("pre-commit")
    env = git_environment(base / "cache")
    repository = base / "flake8-device"
    for name in project_files():
        target = repository / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    git("init", "-q", cwd=repository, env=env)
    git("add", "-A", cwd=repository, env=env)
    git("commit", "-q", "-m", "flake8-device under test", cwd=repository, env=env)
    commit = git("rev-parse", "HEAD", cwd=repository, env=env).strip()
    return str(repository), commit, env


def readme_config(repository: str, commit: str, hook: str) -> str:
    """The README's ``.pre-commit-config.yaml``, pointed at ``repository`` and pinned at ``commit``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if b.startswith("repos:")]
    assert "rev: <commit>" in block, "the README pins a commit (there is no release tag)"
    config = block.replace(PROJECT_URL, repository).replace("<commit>", commit)
    if hook == "flake8-device-fix":
        config = re.sub(r"^(\s*)- id: flake8-device\b.*$", r"\1# (check hook off)", config, flags=re.M)
        config = re.sub(r"^(\s*)# - id: flake8-device-fix", r"\1- id: flake8-device-fix", config, flags=re.M)
    return config


def user_project(root: Path, repository: str, commit: str, hook: str, env: dict[str, str]) -> Path:
    write(root / ".pre-commit-config.yaml", readme_config(repository, commit, hook))
    # pre-commit names every staged file: the hooks must still honour the configured excludes.
    write(root / "pyproject.toml", '[tool.flake8-device]\nextend-exclude = ["generated"]\n')
    write(root / "generated" / "model.py", BUG)
    write(root / "train.py", BUG)
    write(root / "clean.py", "import torch\n")
    write(root / "notes.ipynb", notebook_json(NOTEBOOK))
    write(root / "README.md", "model.head = nn.Linear(2, 2)\n")  # not Python: never handed to the hook
    git("init", "-q", cwd=root, env=env)
    git("add", "-A", cwd=root, env=env)
    return root


def pre_commit(project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        result = subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color=never"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"pre-commit did not finish within {INSTALL_TIMEOUT}s")
    if "An unexpected error has occurred" in result.stdout + result.stderr:
        log = Path(env["PRE_COMMIT_HOME"]) / "pre-commit.log"
        details = log.read_text(errors="replace") if log.exists() else result.stdout + result.stderr
        reason = NO_NETWORK.search(details)
        if reason:
            pytest.skip(f"pre-commit could not build the hook environment without the package index: {reason.group()}")
        pytest.fail(f"pre-commit failed:\n{result.stdout}\n{result.stderr}\n{details[-3000:]}")
    return result


def test_check_hook_reports_python_files_and_notebooks(
    tmp_path: Path, hook_repository: tuple[str, str, dict[str, str]]
) -> None:
    repository, commit, env = hook_repository
    project = user_project(tmp_path, repository, commit, "flake8-device", env)
    result = pre_commit(project, env)
    assert result.returncode == 1, result.stdout
    assert re.search(r"^flake8-device \(check\)\.+Failed$", result.stdout, re.M), result.stdout
    assert "- hook id: flake8-device\n- exit code: 1\n" in result.stdout
    message = "DEV101 `nn.Linear(2, 2)` is attached to `model` after `model` was moved ({}), so it stays on the CPU"
    findings = [line for line in result.stdout.splitlines() if ": DEV" in line]
    assert findings == [
        f"notes.ipynb:cell_3:1:14: {message.format('cell_2:3')}",
        f"train.py:7:14: {message.format('line 6')}",
    ]
    assert (project / "train.py").read_text() == BUG  # the check hook changes nothing


def test_fix_hook_fixes_the_files_and_then_passes(
    tmp_path: Path, hook_repository: tuple[str, str, dict[str, str]]
) -> None:
    repository, commit, env = hook_repository
    project = user_project(tmp_path, repository, commit, "flake8-device-fix", env)
    notebook_before = (project / "notes.ipynb").read_text()
    result = pre_commit(project, env)
    assert result.returncode == 1, result.stdout
    assert re.search(r"^flake8-device \(fix\)\.+Failed$", result.stdout, re.M), result.stdout
    assert "- files were modified by this hook" in result.stdout
    assert (project / "train.py").read_text() == FIXED
    assert (project / "generated" / "model.py").read_text() == BUG  # excluded, though pre-commit named it
    assert (project / "notes.ipynb").read_text() == notebook_before.replace(
        '"model.head = nn.Linear(2, 2)\\n"', '"model.head = nn.Linear(2, 2).to(device)\\n"'
    )
    assert (project / "clean.py").read_text() == "import torch\n"
    git("add", "-A", cwd=project, env=env)
    again = pre_commit(project, env)
    assert again.returncode == 0, again.stdout
    assert re.search(r"^flake8-device \(fix\)\.+Passed$", again.stdout, re.M), again.stdout
