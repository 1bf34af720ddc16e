"""Reliability: no crash on any input, and ``--fix`` never loses a byte it should keep.

Generated programs (hypothesmith), mutated fixtures, the fix invariants on every
fixture, bad input through the real front ends, and the promise never to import
or run the code being checked.  The whole-corpus run is a benchmark script
(``bench/reliability/run.py``), not part of the test run.
"""

from __future__ import annotations

import ast
import os
import random
import stat
import subprocess
import sys
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_support import BUG, FIXED, run, run_bytes, write
from fix_invariants import fix_problem
from fixture_support import FIXTURES, Fixture
from flake8_device import files
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.engine import Engine
from flake8_device.files import FileError, write_atomically
from flake8_device.registry import all_rules
from flake8_device.runner import Options, check_file
from flake8_device.selection import Selection

TORCH = "import torch\nfrom torch import nn\n"
# Every rule, the off-by-default ones too: the more code paths, the better.
ENGINE = Engine(list(all_rules()))
FIXTURE_FILES = sorted(FIXTURES.rglob("*.py"))
FIXTURE_IDS = [str(p.relative_to(FIXTURES)) for p in FIXTURE_FILES]
GENERATED = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None
)
# Generated code may compile with warnings (``1(2)``: "'int' object is not callable").
QUIET = pytest.mark.filterwarnings("ignore::SyntaxWarning")


def assert_robust(text: str) -> None:
    """Linting and fixing ``text`` raise nothing, no rule crashes, and fixes keep their invariants."""
    result = ENGINE.lint(text, honour_noqa=True)
    assert not result.internal_errors, result.internal_errors
    if result.error is not None:
        assert ENGINE.fix(text, unsafe_fixes=True).text == text, "a file that does not parse must be left as it is"
        return
    assert fix_problem(ENGINE, text) is None


# -- generated programs ---------------------------------------------------------------------------


def top_level_starts(text: str) -> list[int]:
    """0-based line numbers where a top-level statement starts (safe places to insert code)."""
    body = ast.parse(text).body
    starts = [min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))]) - 1 for node in body]
    return [0, *starts, text.count("\n")]


@QUIET
@GENERATED
@given(hypothesmith.from_grammar())
def test_generated_programs_from_the_grammar(source: str) -> None:
    assert_robust(source)


@QUIET
@GENERATED
@given(fixture=st.sampled_from(FIXTURE_FILES), generated=hypothesmith.from_node(), where=st.integers(0, 10_000))
def test_generated_code_spliced_into_fixtures(fixture: Path, generated: str, where: int) -> None:
    """Odd syntax among code the rules do fire on, so that the rules walk it."""
    text = fixture.read_text(encoding="utf-8")
    starts = top_level_starts(text)
    line = starts[where % len(starts)]
    lines = text.splitlines(keepends=True)
    spliced = "".join(lines[:line]) + generated + ("" if generated.endswith("\n") else "\n") + "".join(lines[line:])
    assert_robust(spliced)


# -- mutated fixtures -------------------------------------------------------------------------------


def mutate(text: str, rng: random.Random) -> str:
    """One random damage of the kind an editor buffer shows mid-edit."""
    lines = text.splitlines(keepends=True)
    kind = rng.choice(("truncate", "shuffle", "delete_lines", "delete_chars", "duplicate", "dedent"))
    if kind == "truncate":
        return text[: rng.randrange(len(text) + 1)]
    if kind == "shuffle":
        first = rng.randrange(len(lines))
        part = lines[first : first + rng.randint(2, 12)]
        rng.shuffle(part)
        return "".join(lines[:first] + part + lines[first + len(part) :])
    if kind == "delete_lines":
        return "".join(line for line in lines if rng.random() > 0.15)
    if kind == "delete_chars":
        chars = list(text)
        for _ in range(rng.randint(1, 10)):
            del chars[rng.randrange(len(chars))]
        return "".join(chars)
    if kind == "duplicate":
        first = rng.randrange(len(lines))
        last = min(len(lines), first + rng.randint(1, 20))
        return "".join(lines[:last] + lines[first:last] + lines[last:])
    return "".join(line.lstrip(" ") if rng.random() < 0.1 else line for line in lines)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=FIXTURE_IDS)
def test_mutated_fixtures(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)  # the same mutants on every run
    for _ in range(6):
        assert_robust(mutate(text, rng))


# -- fix invariants on every fixture ------------------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=FIXTURE_IDS)
def test_fixes_change_only_the_lines_they_report(path: Path) -> None:
    fixture = Fixture(path)
    engine = Engine(list(all_rules()), AnalysisConfig().with_versions(fixture.device_versions))
    assert engine.lint(fixture.text).violations or "fixed" in path.name, "the check needs findings to mean anything"
    assert fix_problem(engine, fixture.text) is None


# -- bytes kept by --fix, through the CLI ----------------------------------------------------------------

INDENTED_BUG = "def build(device):\n\tmodel = nn.Linear(4, 2)\n\tmodel.to(device)\n\tmodel.head = nn.Linear(2, 2)\n"
INDENTED_FIXED = INDENTED_BUG.replace("nn.Linear(2, 2)\n", "nn.Linear(2, 2).to(device)\n")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "latin-1", "cp1252"])
@pytest.mark.parametrize("final_newline", [True, False])
def test_fix_keeps_encoding_bom_newlines_tabs_and_final_newline(
    tmp_path: Path, newline: str, encoding: str, final_newline: bool
) -> None:
    def render(body: str) -> bytes:
        cookie = "" if encoding.startswith("utf-8") else f"# -*- coding: {encoding} -*-\n"
        text = cookie + "# caf\xe9 \u2014 na\xefve\n".replace("\u2014", "-" if encoding == "latin-1" else "\u2014")
        text = (text + TORCH + body).replace("\n", newline)
        if not final_newline:
            text = text[: -len(newline)]
        return text.encode(encoding)

    path = tmp_path / "model.py"
    path.write_bytes(render(INDENTED_BUG))
    os.chmod(path, 0o640)
    result = run("--fix", "model.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_bytes() == render(INDENTED_FIXED)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["model.py"], "a temporary file was left behind"


def test_fix_does_not_overwrite_a_file_changed_meanwhile(tmp_path: Path) -> None:
    path = write(tmp_path / "model.py", BUG)
    with pytest.raises(FileError, match="changed on disk while being fixed"):
        write_atomically(str(path), FIXED.encode(), expected_current=b"what we read earlier\n")
    assert path.read_text() == BUG
    assert [p.name for p in tmp_path.iterdir()] == ["model.py"]


def test_fix_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    target = write(tmp_path / "real.py", BUG)
    (tmp_path / "link.py").symlink_to("real.py")
    assert run("--fix", "link.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "link.py").is_symlink() and target.read_text() == FIXED


# -- bad input ------------------------------------------------------------------------------------------

BAD_INPUTS = {
    "null byte": (TORCH + "x = torch.zeros(3)\0\n").encode(),
    "undecodable": TORCH.encode() + b"x = '\xff\xfe'\n",
    "unknown encoding": b"# -*- coding: no-such-codec -*-\n" + TORCH.encode(),
    "syntax error": (TORCH + "def f(:\n    x.cuda()\n").encode(),
    "deep parentheses": (TORCH + "x = " + "(" * 1000 + "1" + ")" * 1000 + "\n").encode(),
    "long expression": (TORCH + "x = " + " + ".join(["torch.ones(1).cuda()"] * 30_000) + "\n").encode(),
}


@pytest.mark.parametrize("content", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_is_one_clear_line_and_exit_two(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "bad.py").write_bytes(content)
    for args in (("bad.py",), ("--fix", "bad.py")):
        result = run(*args, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        message = result.stderr.splitlines()
        assert len(message) == 1 and message[0].startswith("flake8-device: bad.py: "), result.stderr
        assert "None" not in message[0]
        assert (tmp_path / "bad.py").read_bytes() == content


@pytest.mark.parametrize("content", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_on_stdin_is_echoed_by_fix(content: bytes) -> None:
    result = run_bytes("--fix", "-", "--stdin-filename", "bad.py", stdin=content)
    assert result.returncode == 2 and result.stdout == content
    assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("content", [b"", b"\n", b"\xef\xbb\xbf", b"# only a comment", b"\r\n\r\n"])
def test_empty_and_blank_files_are_clean(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "empty.py").write_bytes(content)
    result = run("--fix", "empty.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    assert (tmp_path / "empty.py").read_bytes() == content


def test_a_huge_file_is_checked(tmp_path: Path) -> None:
    body = "".join(f"def helper_{i}(x):\n    y = x * {i}\n    return torch.relu(y)\n\n" for i in range(25_000))
    write(tmp_path / "huge.py", TORCH + body + BUG)
    result = run("huge.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("huge.py:100009:14: DEV101 "), result.stdout


def test_the_deepest_nesting_python_allows_is_checked(tmp_path: Path) -> None:
    depth = 98  # Python allows 100 levels of indentation
    nested = "".join("    " * level + "if flag:\n" for level in range(depth))
    body = ("model = nn.Linear(4, 2)", "model.to(device)", "model.head = nn.Linear(2, 2)")
    nested += "".join("    " * depth + statement + "\n" for statement in body)
    write(tmp_path / "deep.py", TORCH + "flag, device = True, torch.device('cuda')\n" + nested)
    result = run("deep.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    line, column = 3 + depth + len(body), 4 * depth + len("model.head = ") + 1
    assert result.stdout.startswith(f"deep.py:{line}:{column}: DEV101 "), result.stdout


def test_symlink_loops_dangling_links_and_unreadable_files(tmp_path: Path) -> None:
    write(tmp_path / "src" / "bug.py", BUG)
    (tmp_path / "src" / "loop").mkdir()
    (tmp_path / "src" / "loop" / "back").symlink_to("..")
    (tmp_path / "src" / "ghost.py").symlink_to("missing.py")
    result = run("src", cwd=tmp_path)
    assert result.returncode == 2
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == ["src/bug.py:7:14:"]
    assert result.stderr.splitlines()[0] == "flake8-device: src/ghost.py: cannot read: No such file or directory"
    assert "Traceback" not in result.stderr


def test_an_unreadable_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "secret.py", BUG)
    if os.geteuid() != 0:
        os.chmod(path, 0)
        result = run("secret.py", cwd=tmp_path)
        assert (result.returncode, result.stderr) == (2, "flake8-device: secret.py: cannot read: Permission denied\n")

    # root reads files whatever their mode: make the read itself fail.
    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "open", denied, raising=False)
    options = Options(Selection(), AnalysisConfig())
    outcome = check_file((str(path), options))
    assert outcome.errors == [f"{path}: cannot read: Permission denied"] and not outcome.findings


def test_flake8_survives_bad_input(tmp_path: Path) -> None:
    """Under flake8 the plugin stays silent on what it cannot read; flake8 reports E999/E902 itself."""
    for name, content in BAD_INPUTS.items():
        if name != "long expression":  # flake8's own ast construction overflows on it, before any plugin
            (tmp_path / f"{name.replace(' ', '_')}.py").write_bytes(content)
    write(tmp_path / "bug.py", BUG)
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "DEV,E9", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in result.stderr and "flake8-device" not in result.stderr, result.stderr
    assert "./bug.py:7:14: DEV101 " in result.stdout
    assert not [line for line in result.stdout.splitlines() if " DEV" in line and not line.startswith("./bug.py")]


# -- safety: never import or run the checked code -----------------------------------------------------------


def test_the_checked_code_is_never_imported_or_run(tmp_path: Path) -> None:
    planted = tmp_path / "PLANTED"
    effect = f"open({str(planted)!r}, 'w').write('ran')\n"
    write(tmp_path / "project" / "side_effect.py", effect)
    write(tmp_path / "project" / "train.py", "import side_effect\n" + effect + BUG)
    write(tmp_path / "project" / "conftest.py", effect)
    write(tmp_path / "project" / "setup.py", effect + "from setuptools import setup\nsetup(name='p')\n")
    write(tmp_path / "project" / "__init__.py", effect)
    write(tmp_path / "project" / "ds.py", effect + "import deepspeed\nconfig = {'gradient_clipping': 1.0}\n")
    project = tmp_path / "project"
    for args in (("train.py",), ("--fix", "--unsafe-fixes", "."), (".",)):
        run(*args, cwd=project)
    subprocess.run([sys.executable, "-m", "flake8", "--select", "DEV", "."], cwd=project, capture_output=True)
    assert not planted.exists(), "the linter executed the code it checks"


def test_configuration_is_read_not_evaluated(tmp_path: Path) -> None:
    planted = tmp_path / "PLANTED"
    payload = f"__import__('os').system('touch {planted}')"
    versions = f'[tool.flake8-device.versions]\ntorch = "{payload}"\n'
    write(tmp_path / "pyproject.toml", '[tool.flake8-device]\nselect = ["DEV"]\n' + versions)
    write(tmp_path / "train.py", BUG)
    result = run("train.py", cwd=tmp_path)
    assert result.returncode == 2 and "versions" in result.stderr and "Traceback" not in result.stderr
    write(tmp_path / "setup.cfg", f"[flake8]\ndevice-versions = torch={payload}\n")
    subprocess.run([sys.executable, "-m", "flake8", "train.py"], cwd=tmp_path, capture_output=True)
    assert not planted.exists()


def test_a_closed_pipe_is_no_traceback(tmp_path: Path) -> None:
    """``flake8-device src | head -1``: the reader goes away while findings are printed."""
    # 2,000 findings of ~110 bytes: more than a pipe holds (64 KiB), so printing must fail.
    write(tmp_path / "many.py", BUG + "model.tail = nn.Linear(2, 2)\n" * 2_000)
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "flake8_device", "many.py"], cwd=tmp_path, stdout=writer, stderr=subprocess.PIPE
        )
    finally:
        os.close(writer)
    assert result.returncode == 2 and b"Traceback" not in result.stderr, result.stderr
