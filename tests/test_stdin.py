"""The CLI on stdin, the way editors call it: ``flake8-device [--fix] --stdin-filename NAME -``."""

from __future__ import annotations

from cli_support import BUG, FIXED, run, run_bytes


def test_lint_reports_under_the_given_name_or_stdin() -> None:
    named = run("--stdin-filename", "src/train.py", "-", stdin=BUG)
    assert named.returncode == 1 and named.stdout.startswith("src/train.py:7:14: DEV101 ")
    anonymous = run("-", stdin=BUG)
    assert anonymous.stdout.startswith("stdin:7:14: DEV101 ")


def test_fix_prints_the_fixed_code_and_the_rest_goes_to_stderr() -> None:
    remaining = "y = torch.ones(3).cuda() + torch.zeros(3)\n"  # DEV201: no fix to apply
    result = run("--fix", "--stdin-filename", "train.py", "-", stdin=BUG + remaining)
    assert result.stdout == FIXED + remaining
    assert "train.py:8:28: DEV201 " in result.stderr and "Fixed 1 finding." in result.stderr
    assert result.returncode == 1


def test_fix_keeps_the_bytes_of_the_buffer() -> None:
    source = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + BUG).replace("\n", "\r\n").encode("latin-1")
    result = run_bytes("--fix", "-", stdin=source)
    expected = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXED).replace("\n", "\r\n").encode("latin-1")
    assert (result.returncode, result.stdout) == (0, expected), result.stderr
    with_bom = run_bytes("--fix", "-", stdin=b"\xef\xbb\xbf" + BUG.encode())
    assert with_bom.stdout == b"\xef\xbb\xbf" + FIXED.encode()


def test_fix_echoes_a_buffer_it_cannot_read_so_an_editor_never_loses_it() -> None:
    for source in (b"def f(:\n    pass\n", b"# -*- coding: nope -*-\nx = 1\n", b"x = '\xff'\n"):
        result = run_bytes("--fix", "--stdin-filename", "f.py", "-", stdin=source)
        assert result.stdout == source
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr


def test_diff_on_stdin() -> None:
    result = run("--diff", "--stdin-filename", "train.py", "-", stdin=BUG)
    assert result.returncode == 1
    assert result.stdout.startswith("--- train.py\n+++ train.py\n")
    assert "+model.head = nn.Linear(2, 2).to(device)\n" in result.stdout
