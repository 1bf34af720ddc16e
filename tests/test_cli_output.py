"""No silent pass, and flake8's habits: what the command says in every case, driven in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import BUG, FIXED, run, write


@pytest.mark.parametrize("flag", ["--select", "--ignore", "--extend-select", "--extend-ignore"])
@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("FOO", "'FOO' is not a flake8-device code or prefix"),
        ("E501", "'E501' is not a flake8-device code or prefix"),
        ("D", "'D' is not a flake8-device code or prefix"),
        ("DEV21", "'DEV21' matches no flake8-device rule"),
        ("DEV1,DEV999", "'DEV999' matches no flake8-device rule"),
        ("", "no codes given"),
        (",", "no codes given"),
    ],
)
def test_a_code_matching_no_rule_is_a_one_line_usage_error(tmp_path: Path, flag: str, value: str, problem: str) -> None:
    write(tmp_path / "bug.py", BUG)
    result = run(flag, value, "bug.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"flake8-device: {flag}: {problem}") and result.stderr.count("\n") == 1


def test_the_same_for_the_table_and_per_file_ignores(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    write(tmp_path / "pyproject.toml", '[tool.flake8-device]\nextend-ignore = ["DEV9"]\n')
    result = run("bug.py", cwd=tmp_path)
    assert result.returncode == 2 and "extend-ignore: 'DEV9' matches no flake8-device rule" in result.stderr
    result = run("--isolated", "--per-file-ignores", "tests/*:DEV77", "bug.py", cwd=tmp_path)
    assert result.returncode == 2 and "--per-file-ignores: 'DEV77' matches no flake8-device rule" in result.stderr


def test_no_python_files_is_a_warning(tmp_path: Path) -> None:
    write(tmp_path / "notes.txt", "nothing here\n")
    result = run(".", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == "flake8-device: warning: No Python files found\n"


def test_a_clean_run_says_so_and_counts_the_files(tmp_path: Path) -> None:
    write(tmp_path / "a.py", FIXED)
    write(tmp_path / "b" / "c.py", "import torch\n")
    result = run(".", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "All checks passed (2 files).\n")
    assert run("-q", ".", cwd=tmp_path).stderr == ""
    fixed = run("--fix", "-", stdin=BUG)
    assert fixed.stdout == FIXED and fixed.stderr == "Fixed 1 finding.\nAll checks passed (1 file).\n"


def test_diff_with_nothing_fixable_says_what_remains(tmp_path: Path) -> None:
    write(tmp_path / "mixed.py", "import torch\ny = torch.ones(3).cuda() + torch.zeros(3)\n")  # DEV201: display-only
    result = run("--diff", "mixed.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "Nothing fixable; 1 finding remains.\n"
    write(tmp_path / "bug.py", BUG)
    both = run("--diff", "mixed.py", "bug.py", cwd=tmp_path)
    assert both.stderr == "Would fix 1 finding; 1 finding would remain.\n"


def test_stdin_display_name_is_an_alias(tmp_path: Path) -> None:
    result = run("--stdin-display-name", "src/train.py", "-", stdin=BUG)
    assert result.returncode == 1 and result.stdout.startswith("src/train.py:7:14: DEV101 ")


def test_show_source_from_the_flag_and_the_configuration(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG + "if True:\n\tmodel.tail = nn.Linear(2, 2)\n")
    expected_tail = "\tmodel.tail = nn.Linear(2, 2)\n\t             ^\n"
    result = run("--show-source", "bug.py", cwd=tmp_path)
    assert result.stdout.endswith(expected_tail), result.stdout
    write(tmp_path / "setup.cfg", "[flake8]\nshow-source = true\n")
    assert run("bug.py", cwd=tmp_path).stdout.endswith(expected_tail)
    assert not run("--no-show-source", "bug.py", cwd=tmp_path).stdout.endswith("^\n")
    (tmp_path / "setup.cfg").unlink()
    write(tmp_path / "pyproject.toml", "[tool.flake8-device]\nshow-source = true\n")
    assert run("bug.py", cwd=tmp_path).stdout.endswith(expected_tail)


def test_output_file_count_and_quiet(tmp_path: Path) -> None:
    write(tmp_path / "a.py", BUG)
    write(tmp_path / "b.py", BUG + BUG.splitlines()[-1] + "\n")
    result = run("--output-file", "report.txt", "--count", ".", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    report = (tmp_path / "report.txt").read_text().splitlines()
    assert len(report) == 4 and report[-1] == "3" and report[0].startswith("./a.py:7:14: DEV101")
    assert run("-q", ".", cwd=tmp_path).stdout == "./a.py\n./b.py\n"
    quieter = run("-qq", "--count", ".", cwd=tmp_path)
    assert (quieter.returncode, quieter.stdout, quieter.stderr) == (1, "3\n", "")
    as_json = run("--format", "json", "--count", ".", cwd=tmp_path)
    assert len(json.loads(as_json.stdout)) == 3 and "3\n" in as_json.stderr  # stdout stays one JSON document
    unwritable = run("--output-file", str(tmp_path / "missing" / "r.txt"), ".", cwd=tmp_path)
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr


def test_force_exclude_covers_a_buffer_named_like_an_excluded_file(tmp_path: Path) -> None:
    args = ("--force-exclude", "--extend-exclude", "generated", "--stdin-filename", "generated/model.py", "-")
    linted = run(*args, cwd=tmp_path, stdin=BUG)
    assert (linted.returncode, linted.stdout) == (0, "")
    assert "No Python files found (1 named path excluded by --force-exclude)" in linted.stderr
    fixed = run("--fix", *args, cwd=tmp_path, stdin=BUG)
    assert (fixed.returncode, fixed.stdout) == (0, BUG)  # the editor gets its buffer back unchanged


def test_a_rule_that_crashed_is_never_all_checks_passed() -> None:
    import io

    from flake8_device.report import EXIT_ERROR, ReportOptions, report
    from flake8_device.runner import Outcome

    crashed = Outcome("train.py", warnings=["train.py: flake8-device internal error: DEV201 crashed"], crashes=1)
    stdout, stderr = io.StringIO(), io.StringIO()
    status = report([crashed, Outcome("eval.py")], [], ReportOptions(), stdout=stdout, stderr=stderr)
    assert status == EXIT_ERROR
    assert "All checks passed" not in stderr.getvalue()
    assert "Not every check ran: 1 rule crash in 1 file" in stderr.getvalue()
    twice = Outcome("train.py", warnings=crashed.warnings * 2, crashes=2)
    stderr = io.StringIO()
    report([twice, Outcome("eval.py")], [], ReportOptions(), stdout=stdout, stderr=stderr)
    assert "Not every check ran: 2 rule crashes in 1 file" in stderr.getvalue()


def test_fix_says_what_it_fixed_even_when_another_file_failed(tmp_path: Path) -> None:
    write(tmp_path / "train.py", BUG)
    write(tmp_path / "broken.py", "def broken(:\n")
    result = run("--fix", "train.py", "broken.py", cwd=tmp_path)
    assert result.returncode == 2
    assert (tmp_path / "train.py").read_text() == FIXED
    assert "broken.py: syntax error" in result.stderr
    assert "Fixed 1 finding." in result.stderr
    assert "All checks passed" not in result.stderr


# -- --show-fixes ---------------------------------------------------------------------------------

TWO_FIXES = BUG + "\n\ndef step():\n    model2 = nn.Linear(3, 3).cuda()\n    y = torch.zeros(3)\n    return model2(y)\n"


def _changed_old_lines(diff: str) -> set[int]:
    """The lines of the old file that a unified diff removes or replaces."""
    changed: set[int] = set()
    line = 0
    for row in diff.splitlines():
        if row.startswith("@@"):
            line = int(row.split()[1].split(",")[0].lstrip("-"))
        elif row.startswith("-") and not row.startswith("---"):
            changed.add(line)
            line += 1
        elif row.startswith(" "):
            line += 1
    return changed


def test_show_fixes_says_each_fix_and_its_lines_are_what_diff_changes(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", TWO_FIXES)
    diff = run("--isolated", "--diff", "--show-fixes", "bug.py", cwd=tmp_path)
    shown = [line for line in diff.stderr.splitlines() if line.startswith("bug.py:")]
    assert shown == [
        "bug.py:7:14: DEV101 Move it too: `.to(device)`",
        "bug.py:13:19: DEV204 Move the input: `y.cuda()`",
    ]
    assert {int(line.split(":")[1]) for line in shown} == _changed_old_lines(diff.stdout)
    fixed = run("--isolated", "--fix", "--show-fixes", "bug.py", cwd=tmp_path)
    assert [line for line in fixed.stdout.splitlines() if line.startswith("bug.py:")] == shown
    assert "Fixed 2 findings." in fixed.stderr
    # Without the flag, nothing but the summary.
    write(tmp_path / "bug.py", TWO_FIXES)
    assert "bug.py:" not in run("--isolated", "--fix", "bug.py", cwd=tmp_path).stdout


def test_show_fixes_gives_positions_in_the_file_as_it_was_when_fixes_take_several_rounds() -> None:
    """A later round's finding is placed in the original text, across the edits made before it."""
    from flake8_device.engine import _offset_before
    from flake8_device.model import TextEdit

    edits = [TextEdit(2, 2, "abc"), TextEdit(10, 14, "x")]  # insert 3 at 2; replace 4 by 1 at 10
    assert _offset_before(1, edits) == 1
    assert _offset_before(3, edits) == 2  # inside the inserted text: where it was inserted
    assert _offset_before(8, edits) == 5
    assert _offset_before(13, edits) == 10  # the replacement itself
    assert _offset_before(14, edits) == 14  # after both: the shifts cancel out
