"""``--add-noqa``: adopt the tool on an existing codebase in one commit, and flake8 agrees it is clean."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from cli_support import BUG, code_cell, notebook_json, run, run_bytes, write
from flake8_device.model import Violation
from flake8_device.noqa import add_comments

# Findings in awkward places: a multi-line string, a backslash continuation, brackets, an existing noqa.
AWKWARD = '''import torch
from torch import nn

device = torch.device("cuda")
model = nn.Linear(4, 2)
model.to(device)
model.head = nn.Linear(2, 2)  # noqa: E501
model.tail = nn.Linear(2, len("""a
b"""))
model.cont = \\
    nn.Linear(2, 2)
model.pair = nn.Linear(
    2, 2
)
'''

EXPECTED = '''import torch
from torch import nn

device = torch.device("cuda")
model = nn.Linear(4, 2)
model.to(device)
model.head = nn.Linear(2, 2)  # noqa: E501,DEV101
model.tail = nn.Linear(2, len("""a
b"""))  # noqa: DEV101
model.cont = \\
    nn.Linear(2, 2)  # noqa: DEV101
model.pair = nn.Linear(  # noqa: DEV101
    2, 2
)
'''


def flake8_dev(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "DEV1,DEV2", "."],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_comments_go_where_flake8_reads_them_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "train.py", AWKWARD)
    assert run("train.py", cwd=tmp_path).stdout.count("DEV101") == 4
    result = run("--add-noqa", "train.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    assert result.stderr == "Added `# noqa` for 4 findings on 4 lines.\nAll checks passed (1 file).\n"
    assert path.read_text() == EXPECTED
    assert run("train.py", cwd=tmp_path).returncode == 0
    assert flake8_dev(tmp_path).stdout == ""  # flake8 reads the comments where they were put
    again = run("--add-noqa", "train.py", cwd=tmp_path)
    assert again.returncode == 0 and path.read_text() == EXPECTED


def test_bytes_are_kept(tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(b"\xef\xbb\xbf" + BUG.replace("\n", "\r\n").encode())
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n# caf\xe9\n" + BUG).encode("latin-1"))
    os.chmod(latin, 0o754)
    result = run("--add-noqa", "crlf.py", "latin.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    commented = BUG.replace("nn.Linear(2, 2)\n", "nn.Linear(2, 2)  # noqa: DEV101\n")
    assert crlf.read_bytes() == b"\xef\xbb\xbf" + commented.replace("\n", "\r\n").encode()
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + commented).encode("latin-1")
    assert stat.S_IMODE(latin.stat().st_mode) == 0o754


def test_stdin_gets_the_commented_buffer_back() -> None:
    result = run_bytes("--add-noqa", "--stdin-filename", "train.py", "-", stdin=BUG.encode())
    assert result.returncode == 0
    assert result.stdout == BUG.replace("nn.Linear(2, 2)\n", "nn.Linear(2, 2)  # noqa: DEV101\n").encode()


def test_a_finding_no_comment_can_cover_is_left_reported_with_a_warning() -> None:
    # A "# noqa: E1" inside a string comes first on the joined lines: flake8 would read that one.
    text = 's = """\n# noqa: E1\n"""; t = 1\n'
    result = add_comments(text, [Violation(2, 0, "DEV201", "m")])
    assert result.text == text and result.covered == 0 and [v.line for v in result.skipped] == [2]
    # A text that does not tokenize cannot take any.
    assert add_comments("x = (\n", [Violation(1, 0, "DEV201", "m")]).skipped


def test_notebooks_get_their_comments_in_the_cells(tmp_path: Path) -> None:
    cells = [
        code_cell("import torch\nfrom torch import nn\n", 1),
        code_cell('device = torch.device("cuda")\nmodel = nn.Linear(4, 2)\nmodel.to(device)\n', 2),
        code_cell("%time x = 1\nmodel.head = nn.Linear(2, 2)\n", 3, outputs=[{"output_type": "stream", "text": "ok"}]),
    ]
    path = write(tmp_path / "nb.ipynb", notebook_json(cells))
    before = json.loads(path.read_text())
    result = run("--add-noqa", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    after = json.loads(path.read_text())
    assert after["cells"][2]["source"] == ["%time x = 1\n", "model.head = nn.Linear(2, 2)  # noqa: DEV101\n"]
    after["cells"][2]["source"] = before["cells"][2]["source"]
    assert after == before  # outputs, metadata and the other cells untouched
    assert run("nb.ipynb", cwd=tmp_path).returncode == 0
    assert run("--add-noqa", "nb.ipynb", cwd=tmp_path).stderr == "All checks passed (1 file).\n"


def test_json_configs_have_no_comments(tmp_path: Path) -> None:
    config = {"zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}}}
    write(tmp_path / "ds.json", json.dumps(config, indent=2))
    result = run("--add-noqa", "ds.json", cwd=tmp_path)
    assert result.returncode == 1 and "DEV511" in result.stdout
    assert "JSON has no comments" in result.stderr


def test_add_noqa_does_not_combine_with_fixing(tmp_path: Path) -> None:
    write(tmp_path / "bug.py", BUG)
    for other in ("--fix", "--diff"):
        result = run("--add-noqa", other, "bug.py", cwd=tmp_path)
        assert result.returncode == 2 and "cannot be combined" in result.stderr
