"""Output formats, through the CLI in a subprocess: text, JSON, SARIF, GitHub annotations, statistics, colour."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import BUG, code_cell, notebook_json, run, write
from flake8_device.formats import Finding, github_line
from flake8_device.links import PROJECT_URL, rule_url
from flake8_device.progress import DELAY_VARIABLE
from flake8_device.registry import all_rules

NOTEBOOK = [
    code_cell("import torch\nfrom torch import nn\n", 1),
    code_cell('device = torch.device("cuda")\nmodel = nn.Linear(4, 2)\nmodel.to(device)\n', 2),
    code_cell("%time x = 1\nmodel.head = nn.Linear(2, 2)\n", 3),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "src" / "bug.py", BUG + "model.tail = nn.Linear(2, 2)\n")
    write(tmp_path / "nb.ipynb", notebook_json(NOTEBOOK))
    write(tmp_path / "src" / "clean.py", "import torch\n")
    return tmp_path


def test_json(project: Path) -> None:
    result = run("--format", "json", ".", cwd=project)
    assert result.returncode == 1
    items = json.loads(result.stdout)
    assert [(i["filename"], i.get("cell"), i["line"], i["column"], i["code"]) for i in items] == [
        ("./nb.ipynb", 3, 2, 14, "DEV101"),
        ("./src/bug.py", None, 7, 14, "DEV101"),
        ("./src/bug.py", None, 8, 14, "DEV101"),
    ]
    first = items[1]
    assert first["name"] == "submodule-assigned-after-move"
    assert first["message"].startswith("`nn.Linear(2, 2)` is attached to `model`")
    assert first["fix"] == {
        "title": "Move it too: `.to(device)`",
        "safety": "safe",
        "applied_by": "--fix",
        "reason": None,
    }
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (7, 14, 7, 29)
    assert first["url"] == rule_url("DEV101") == f"{PROJECT_URL}/blob/main/docs/rules.md#dev101"
    assert "Found 3 findings; 3 fixable with --fix." in result.stderr


def test_json_says_why_a_fix_is_withheld(tmp_path: Path) -> None:
    write(
        tmp_path / "later.py",
        "import torch\nfrom torch import nn\n\n"
        "def build():\n    model = nn.Linear(4, 2)\n    model.to(device)\n    model.head = nn.Linear(2, 2)\n"
        "    device = 'cpu'\n",
    )
    (item,) = json.loads(run("--format", "json", "later.py", cwd=tmp_path).stdout)
    assert item["fix"]["safety"] == "display-only" and item["fix"]["applied_by"] is None
    assert item["fix"]["reason"] == "`device` is a local of `build` assigned only later (line 8)"


def test_json_and_sarif_are_documents_even_when_clean(tmp_path: Path) -> None:
    write(tmp_path / "ok.py", "import torch\n")
    assert json.loads(run("--format", "json", ".", cwd=tmp_path).stdout) == []
    sarif = run("--format", "sarif", ".", cwd=tmp_path)
    assert sarif.returncode == 0 and json.loads(sarif.stdout)["runs"][0]["results"] == []


def test_sarif_for_code_scanning(project: Path) -> None:
    result = run("--format", "sarif", ".", cwd=project)
    assert result.returncode == 1
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "flake8-device" and driver["version"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == [r.code for r in all_rules()]
    dev101 = next(r for r in rules if r["id"] == "DEV101")
    assert dev101["name"] == "submodule-assigned-after-move"
    assert dev101["shortDescription"]["text"] == "Submodule or parameter attached after the model was moved"
    assert "### Example" in dev101["help"]["markdown"] and dev101["help"]["text"] == dev101["help"]["markdown"]
    assert dev101["defaultConfiguration"] == {"level": "error", "enabled": True}
    assert dev101["helpUri"] == rule_url("DEV101")
    assert run_["columnKind"] == "unicodeCodePoints"
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    results = run_["results"]
    assert len(results) == 3
    for result_ in results:
        assert rules[result_["ruleIndex"]]["id"] == result_["ruleId"] == "DEV101"
        assert result_["level"] == "error" and result_["message"]["text"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert uris == ["nb.ipynb", "src/bug.py", "src/bug.py"]
    python = results[1]["locations"][0]["physicalLocation"]
    assert python["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert python["region"] == {"startLine": 7, "startColumn": 14, "endLine": 7, "endColumn": 29}
    notebook = results[0]
    assert notebook["message"]["text"].startswith("cell_3:2:14: `nn.Linear(2, 2)` is attached")
    assert notebook["properties"] == {"cell": 3, "line": 2, "column": 14}
    # In a notebook the region is the line of the .ipynb file that holds the source line.
    line = notebook["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert "model.head = nn.Linear(2, 2)" in (project / "nb.ipynb").read_text().splitlines()[line - 1]


def test_github_annotations(project: Path) -> None:
    result = run("--format", "github", "src/bug.py", "nb.ipynb", cwd=project)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::error title=flake8-device (DEV101),file=nb.ipynb,line=")
    assert lines[0].endswith(
        "::nb.ipynb:cell_3:2:14: DEV101 `nn.Linear(2, 2)` is attached to `model` after `model` was moved (cell_2:3), so"
        " it stays on the CPU"
    )
    assert lines[1] == (
        "::error title=flake8-device (DEV101),file=src/bug.py,line=7,col=14::src/bug.py:7:14: DEV101 "
        "`nn.Linear(2, 2)` is attached to `model` after `model` was moved (line 6), so it stays on the CPU"
    )


def test_github_escapes_what_would_break_a_workflow_command() -> None:
    finding = Finding(path="a,b:c.py", line=1, column=2, code="DEV201", message="100% bad\nreally")
    assert github_line(finding) == (
        "::error title=flake8-device (DEV201),file=a%2Cb%3Ac.py,line=1,col=2::a,b:c.py:1:2: DEV201 100%25 bad%0Areally"
    )


def test_statistics(project: Path) -> None:
    result = run("--statistics", ".", cwd=project)
    assert result.stdout.splitlines()[-1] == "3     DEV101 submodule-assigned-after-move (3 fixable with --fix)"
    as_json = run("--statistics", "--format", "json", ".", cwd=project)
    assert len(json.loads(as_json.stdout)) == 3  # stdout stays a JSON document
    assert "3     DEV101 submodule-assigned-after-move" in as_json.stderr


def run_on_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """The command's output when its stdout is a terminal (a pseudo-terminal)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "flake8_device", *args],
        cwd=cwd,
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            process.kill()
            raise AssertionError("no output from the command on the terminal")
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closes when the command exits
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_only_on_a_terminal_and_never_with_no_color(project: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    on_terminal = run_on_terminal(["src/bug.py"], project, env)
    assert "\033[1m\033[31mDEV101\033[m" in on_terminal
    assert "\033[" not in run_on_terminal(["src/bug.py"], project, {**env, "NO_COLOR": "1"})
    assert "\033[" not in run("src/bug.py", cwd=project).stdout  # a pipe
    assert "\033[31m" in run("--color", "always", "src/bug.py", cwd=project).stdout
    assert "\033[" not in run_on_terminal(["--color", "never", "src/bug.py"], project, env)


def run_with_terminal_stderr(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[str, str]:
    """(stdout, what the command wrote to its stderr, a pseudo-terminal)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "flake8_device", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=follower, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            process.kill()
            raise AssertionError("no output from the command on the terminal")
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    stdout = process.stdout.read().decode() if process.stdout else ""
    process.wait(timeout=60)
    os.close(leader)
    return stdout, b"".join(chunks).decode()


def test_progress_on_a_terminal_for_long_runs_only(tmp_path: Path) -> None:
    for number in range(60):
        (tmp_path / f"m{number:02}.py").write_text("import torch\nx = torch.ones(3)\n")
    (tmp_path / "m00.py").write_text(BUG)
    plain = {k: v for k, v in os.environ.items() if k not in ("CI", "PRE_COMMIT")}
    at_once = {**plain, DELAY_VARIABLE: "0"}  # as if the run had already taken 1.5 s
    stdout, terminal = run_with_terminal_stderr(["-j", "2", "."], tmp_path, at_once)
    assert "flake8-device: 60/60 files" in terminal and "\r" in terminal
    # Erased before the summary line, which stands alone on its line.
    assert terminal.endswith("\r\x1b[KFound 1 finding; 1 fixable with --fix.\r\n"), repr(terminal[-200:])
    assert stdout.startswith("./m00.py:") or stdout.startswith("m00.py:")
    # A quick run, CI, pre-commit, -q and a pipe show none.
    for env, args in (
        ({**plain, DELAY_VARIABLE: "600"}, []),
        ({**at_once, "CI": "true"}, []),
        ({**at_once, "PRE_COMMIT": "1"}, []),
        (at_once, ["-q"]),
    ):
        _, quiet = run_with_terminal_stderr(["-j", "2", *args, "."], tmp_path, env)
        assert "files" not in quiet and "\x1b" not in quiet, (env.get("CI"), args, quiet)
    piped = run("-j", "2", ".", cwd=tmp_path, env={DELAY_VARIABLE: "0"})
    assert "files" not in piped.stderr and "\r" not in piped.stderr
