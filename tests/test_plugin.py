"""The flake8 front end, driven through real flake8 in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fixture_support import FIXTURES
from flake8_device.registry import all_rules

BUG = """import torch
from torch import nn

device = torch.device("cuda")
model = nn.Linear(4, 2)
model.to(device)
model.head = nn.Linear(2, 2)
"""


def flake8(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8_device", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_flake8_lists_the_plugin() -> None:
    result = flake8("--version")
    assert "flake8-device" in result.stdout


def test_flake8_and_the_cli_agree_on_every_fixture() -> None:
    codes = ",".join(r.code for r in all_rules())
    plugin = flake8("--select", codes, "--format", "%(path)s:%(row)d:%(col)d: %(code)s %(text)s", ".", cwd=FIXTURES)
    ours = cli("--select", codes, "-j", "1", ".", cwd=FIXTURES)
    assert plugin.returncode == ours.returncode == 1, plugin.stderr + ours.stderr
    normalise = lambda out: sorted(line.removeprefix("./") for line in out.splitlines())  # noqa: E731
    assert normalise(plugin.stdout) == normalise(ours.stdout)
    assert len(plugin.stdout.splitlines()) > 40


def test_stdin_with_display_name_as_editors_call_it() -> None:
    result = flake8("--select", "DEV1", "--stdin-display-name", "train.py", "-", stdin=BUG)
    assert result.stdout.startswith("train.py:7:14: DEV101 `nn.Linear(2, 2)` is attached to `model` after")
    assert result.stdout.count("\n") == 1


def test_noqa_is_applied_by_flake8() -> None:
    result = flake8(
        "--select", "DEV1", "-", stdin=BUG.replace("nn.Linear(2, 2)\n", "nn.Linear(2, 2)  # noqa: DEV101\n")
    )
    assert result.returncode == 0 and result.stdout == ""


def test_extend_ignore_and_select_prefixes() -> None:
    assert flake8("--select", "DEV2", "-", stdin=BUG).stdout == ""
    assert flake8("--select", "E,W,F", "--extend-select", "DEV101", "-", stdin=BUG).stdout.count("DEV101") == 1
    assert "DEV101" not in flake8("--extend-ignore", "DEV1", "-", stdin=BUG).stdout


def test_syntax_errors_are_left_to_flake8() -> None:
    result = flake8("-", stdin="def f(:\n    pass\n")
    assert "E999" in result.stdout
    assert "Traceback" not in result.stderr and "flake8-device" not in result.stderr


def test_plugin_option_is_registered() -> None:
    result = flake8("--help")
    assert "--device-move-functions" in result.stdout


def test_extra_move_function_through_flake8() -> None:
    source = "import torch\ndef f(device):\n    a = ship(torch.ones(3), device)\n    return a + torch.zeros(3)\n"
    base = flake8("--select", "DEV", "-", stdin=source).stdout
    extended = flake8("--select", "DEV", "--device-move-functions", "ship", "-", stdin=source).stdout
    assert base == "" and "DEV201" in extended
