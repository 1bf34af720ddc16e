"""One configuration for every front end: flake8 and the CLI read the same settings from the same files.

Each test writes a project, puts its settings in one place (``pyproject.toml``,
``setup.cfg``, ``.flake8`` or ``tox.ini``), and runs real flake8 and the
``flake8-device`` command in it: both must report the same DEV findings.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import BUG, run, write

SHIPPED = "import torch\ndef f(device):\n    a = ship(torch.ones(3), device)\n    return a + torch.zeros(3)\n"
HARD_CODED = "import torch\nx = torch.ones(3).cuda()\n"  # DEV404, off by default

PYPROJECT = """[project]
name = "demo"

[tool.flake8-device]
extend-select = ["DEV404"]
extend-ignore = ["DEV104"]
extend-exclude = ["generated"]
device-move-functions = ["ship"]

[tool.flake8-device.per-file-ignores]
"tests/*" = ["DEV101"]
"""

INI = """[flake8]
max-line-length = 120
extend-select = DEV404
extend-ignore = DEV104,E501
extend-exclude = generated
device-move-functions = ship
per-file-ignores =
    tests/*: DEV101,F401
"""

EXPECTED = {
    "./scripts/ship.py:4:16: DEV201",
    "./src/hard.py:2:19: DEV404",
    "./src/train.py:4:10: DEV404",  # BUG's `torch.device("cuda")`
    "./src/train.py:7:14: DEV101",
    "./tests/test_train.py:4:10: DEV404",
}


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def dev_lines(output: str) -> list[str]:
    return sorted(line for line in output.splitlines() if ": DEV" in line)


def project(root: Path) -> Path:
    write(root / "src" / "train.py", BUG)
    write(root / "src" / "hard.py", HARD_CODED)
    write(root / "tests" / "test_train.py", BUG)
    write(root / "generated" / "model.py", BUG)
    write(root / "scripts" / "ship.py", SHIPPED)
    return root


def both(root: Path, *args: str) -> tuple[list[str], list[str]]:
    """(flake8's DEV findings, the CLI's) in ``root``; both must have run cleanly."""
    ours = run(*args, ".", cwd=root)
    theirs = flake8(*args, ".", cwd=root)
    assert ours.returncode in (0, 1) and "Traceback" not in ours.stderr, ours.stderr
    assert theirs.returncode in (0, 1) and "Traceback" not in theirs.stderr, theirs.stderr
    return dev_lines(theirs.stdout), dev_lines(ours.stdout)


@pytest.mark.parametrize("place", ["pyproject.toml", "setup.cfg", ".flake8", "tox.ini"])
def test_flake8_and_the_cli_report_the_same_findings_wherever_the_settings_are(tmp_path: Path, place: str) -> None:
    root = project(tmp_path)
    write(root / place, PYPROJECT if place == "pyproject.toml" else INI)
    from_flake8, from_cli = both(root)
    assert from_flake8 == from_cli
    assert {" ".join(line.split(" ")[:2]) for line in from_cli} == EXPECTED


def test_flake8_section_wins_over_the_table_and_extends_add_up(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / "pyproject.toml", '[tool.flake8-device]\nselect = ["DEV1"]\nextend-ignore = ["DEV404"]\n')
    write(root / "setup.cfg", "[flake8]\nselect = E,F,W,DEV2,DEV4\nextend-select = DEV404\n")
    from_flake8, from_cli = both(root)
    assert from_flake8 == from_cli
    # select: [flake8]'s; extend-select DEV404 (explicit, 6 characters) against the table's extend-ignore
    # DEV404: a tie, which flake8 resolves as ignored.
    assert from_cli == []
    write(root / "setup.cfg", "[flake8]\nselect = E,F,W,DEV1,DEV4\n")
    from_flake8, from_cli = both(root)
    assert from_flake8 == from_cli == [line for line in from_cli if "DEV101" in line] and len(from_cli) == 3


def test_flags_win_over_every_file(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / "pyproject.toml", '[tool.flake8-device]\nselect = ["DEV4"]\n')
    write(root / ".flake8", "[flake8]\nselect = DEV2\n")
    from_flake8, from_cli = both(root, "--select", "DEV1")
    assert from_flake8 == from_cli and {line.split(" ")[1] for line in from_cli} == {"DEV101"}


def test_the_plugin_reads_the_table_only_without_isolated(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / "pyproject.toml", PYPROJECT)
    assert "DEV404" in flake8(".", cwd=root).stdout
    assert "DEV404" not in flake8("--isolated", ".", cwd=root).stdout
    assert "DEV404" not in run("--isolated", ".", cwd=root).stdout


def test_the_flake8_file_is_found_as_flake8_finds_it(tmp_path: Path) -> None:
    # setup.cfg without a [flake8] section does not count; tox.ini comes next; the nearest directory wins.
    root = project(tmp_path)
    write(root / "setup.cfg", "[metadata]\nname = demo\n")
    write(root / "tox.ini", "[flake8]\nextend-ignore = DEV1\n")
    write(root / "src" / ".flake8", "[flake8]\nextend-ignore = DEV4\n")
    assert "DEV101" not in run(".", cwd=root).stdout
    inner = run(".", cwd=root / "src")
    assert "DEV101" in inner.stdout and "DEV404" not in inner.stdout
    assert flake8(".", cwd=root / "src").stdout.count("DEV") == inner.stdout.count("DEV")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[flake8]\nselect = E,DEV9\n", "select: 'DEV9' matches no flake8-device rule"),
        ("[flake8]\nextend-ignore = D, E203  # docstrings\n", "extend-ignore: '#' is not a code flake8 accepts"),
        ("[flake8]\nshow-source = perhaps\n", "show-source: expected true or false, got 'perhaps'"),
        ("[flake8]\ndevice-versions = torch\n", "device-versions: 'torch' is not PACKAGE=VERSION"),
        ("[flake8]\nper-file-ignores = tests/*\n", "per-file-ignores: expected file patterns mapped to codes"),
    ],
)
def test_a_bad_flake8_section_is_one_line(tmp_path: Path, config: str, message: str) -> None:
    root = project(tmp_path)
    write(root / "setup.cfg", config)
    result = run(".", cwd=root)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"flake8-device: {root.resolve() / 'setup.cfg'} [flake8] ")
    assert message in result.stderr


def test_flake8_refuses_a_dev_code_matching_no_rule_in_one_line_too(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / "setup.cfg", "[flake8]\nselect = E,DEV9\n")
    result = flake8(".", cwd=root)
    assert (result.returncode, result.stderr) == (2, "flake8: select: 'DEV9' matches no flake8-device rule (see "
                                                  "flake8-device --list-rules)\n")


def test_a_bare_d_switches_dev_off_in_both_front_ends_and_says_so(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / "setup.cfg", "[flake8]\nextend-ignore = D,E203\n")
    from_flake8, from_cli = both(root)
    assert from_flake8 == from_cli == []
    warning = "extend-ignore = D ({}) also matches every DEV code".format(root.resolve() / "setup.cfg [flake8]")
    assert warning in run(".", cwd=root).stderr
    assert "also matches every DEV code" in flake8(".", cwd=root).stderr
    # The README's workaround: select DEV again (longer prefix wins), or ignore pydocstyle by its own prefixes.
    write(
        root / "setup.cfg",
        "[flake8]\nextend-ignore = D,E203,DEV404\nextend-select = DEV\nper-file-ignores = tests/*: DEV1\n",
    )
    from_flake8, from_cli = both(root)
    assert from_flake8 == from_cli and len(from_cli) == 2  # src/train.py and generated/model.py
    write(root / "setup.cfg", "[flake8]\nextend-ignore = D1,D2,D4,E203\n")
    from_flake8, from_cli = both(root)
    assert from_flake8 == from_cli and len(from_cli) == 3  # DEV404 stays off by default


def test_a_select_naming_no_dev_code_is_a_warning_not_a_silent_pass(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / "tox.ini", "[flake8]\nselect = E9,F63,F7,F82\n")
    result = run(".", cwd=root)
    assert result.returncode == 0 and result.stdout == ""
    assert "warning: select = E9,F63,F7,F82" in result.stderr and "add DEV to it" in result.stderr


def test_an_unreadable_candidate_is_skipped_as_flake8_skips_it_and_the_cli_says_so(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / "setup.cfg", "[flake8\nselect = E\n")
    write(root / "tox.ini", "[flake8]\nextend-ignore = DEV1\n")
    result = run(".", cwd=root)
    assert "DEV101" not in result.stdout  # tox.ini was read
    assert "setup.cfg: skipped, as flake8 skips it" in result.stderr
    assert dev_lines(flake8(".", cwd=root).stdout) == dev_lines(result.stdout)
