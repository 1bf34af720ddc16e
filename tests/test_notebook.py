"""Jupyter notebooks through the CLI: one program across cells, exact positions, byte-exact fixes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import code_cell, markdown_cell, notebook_json, run, write
from flake8_device.notebook import neutralise

IMAGE = {
    "data": {"image/png": "iVBORw0KGgo" * 50, "text/plain": ["<Figure>"]},
    "metadata": {},
    "output_type": "display_data",
}
STREAM = {"name": "stdout", "output_type": "stream", "text": ["perte: 0.5 \u2014 d\u00e9j\u00e0 vu\n"]}

SETUP = "%matplotlib inline\nimport torch\nfrom torch import nn\n!nvidia-smi\n"
MOVE = 'device = torch.device("cuda")\nmodel = nn.Linear(4, 2)\nmodel.to(device)'  # no final newline, as Jupyter saves
SHELL = "%%bash\nls -la ~\n"
LATER = "for step in range(2):\n    %time loss = 1\nfiles = !ls\nmodel?\nmodel.head = nn.Linear(2, 2)\n"
# The message names the move in the notebook's own coordinates (the cell holding MOVE, its line 3).
MESSAGE_AFTER = "DEV101 `nn.Linear(2, 2)` is attached to `model` after `model` was moved ({}), so it stays on the CPU"
MESSAGE = MESSAGE_AFTER.format("cell_3:3")


def cells() -> list[dict[str, object]]:
    return [
        markdown_cell("# Training\nThe model is moved, then grows a head.", 1),
        code_cell(SETUP, 2, outputs=[IMAGE]),
        code_cell(MOVE, 3, outputs=[STREAM]),
        code_cell(SHELL, 4, outputs=[STREAM]),
        code_cell(LATER, 5),
        markdown_cell("Done.", 6),
    ]


def test_a_move_in_one_cell_and_a_change_in_a_later_one_is_caught(tmp_path: Path) -> None:
    write(tmp_path / "nb.ipynb", notebook_json(cells()))
    result = run("nb.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    # cell_5 counts every cell (markdown too); the line and column are those inside the cell,
    # exact although the lines above hold IPython magics and shell escapes.
    assert result.stdout == f"nb.ipynb:cell_5:5:14: {MESSAGE}\n"
    assert "nb.ipynb:cell_4: not checked (cell magic %%bash)" in result.stderr
    # The later cell alone is no bug: the finding needs the earlier cell.
    write(tmp_path / "alone.ipynb", notebook_json([code_cell(SETUP, 1), code_cell(LATER, 2)]))
    alone = run("alone.ipynb", cwd=tmp_path)
    assert (alone.returncode, alone.stdout) == (0, "")


def test_related_places_are_in_cell_coordinates(tmp_path: Path) -> None:
    write(tmp_path / "nb.ipynb", notebook_json(cells()))
    (finding,) = json.loads(run("--format", "json", "nb.ipynb", cwd=tmp_path).stdout)
    assert (finding["cell"], finding["line"]) == (5, 5)
    assert finding["related"] == [
        {"line": 3, "column": 1, "end_line": 3, "end_column": 17, "message": "`model` is moved here", "cell": 3}
    ]
    sarif = json.loads(run("--format", "sarif", "nb.ipynb", cwd=tmp_path).stdout)
    (related,) = sarif["runs"][0]["results"][0]["relatedLocations"]
    assert related["message"]["text"] == "cell_3:3:1: `model` is moved here"


def test_cells_run_in_order(tmp_path: Path) -> None:
    create = code_cell("import torch\nfrom torch import nn\nmodel = nn.Linear(4, 2)\n", 1)
    grow = code_cell("model.head = nn.Linear(2, 2)\n", 2)
    move = code_cell('device = torch.device("cuda")\nmodel.to(device)\n', 3)
    write(tmp_path / "grown_then_moved.ipynb", notebook_json([create, grow, move]))
    write(tmp_path / "moved_then_grown.ipynb", notebook_json([create, move, grow]))
    assert run("grown_then_moved.ipynb", cwd=tmp_path).stdout == ""
    assert run("moved_then_grown.ipynb", cwd=tmp_path).stdout.startswith("moved_then_grown.ipynb:cell_3:1:14: DEV101")


LAYOUTS = {
    "jupyter": {},  # indent 1, sorted keys, raw UTF-8, final newline
    "indent-2-unsorted-escaped": {"indent": 2, "sort_keys": False, "ensure_ascii": True},
    "one-line": {"indent": None},
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_fix_rewrites_only_the_changed_cell_byte_for_byte(tmp_path: Path, layout: str, crlf: bool) -> None:
    raw = notebook_json(cells(), **LAYOUTS[layout])
    if layout == "one-line":
        raw = raw.rstrip("\n")  # and no final newline either
    if crlf:
        raw = raw.replace("\n", "\r\n")
    old_item, new_item = '"model.head = nn.Linear(2, 2)\\n"', '"model.head = nn.Linear(2, 2).to(device)\\n"'
    assert raw.count(old_item) == 1
    path = tmp_path / "nb.ipynb"
    path.write_bytes(raw.encode("utf-8"))
    result = run("--fix", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Fixed 1 finding." in result.stderr
    assert path.read_bytes() == raw.replace(old_item, new_item).encode("utf-8")
    again = run("--fix", "nb.ipynb", cwd=tmp_path)
    assert again.returncode == 0 and path.read_bytes() == raw.replace(old_item, new_item).encode("utf-8")


def test_fix_keeps_a_source_held_as_one_string(tmp_path: Path) -> None:
    notebook = json.loads(notebook_json(cells()))
    for cell in notebook["cells"]:
        cell["source"] = "".join(cell["source"])
    raw = json.dumps(notebook, indent=1)
    path = write(tmp_path / "nb.ipynb", raw)
    result = run("--fix", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = raw.replace("model.head = nn.Linear(2, 2)\\n", "model.head = nn.Linear(2, 2).to(device)\\n")
    assert expected != raw and path.read_text() == expected


def test_fix_adds_an_import_to_the_cell_it_belongs_to(tmp_path: Path) -> None:
    # DEV103's fix writes `torch.nn.ModuleList`, which needs `import torch`: it goes after the
    # imports of the first cell, and that cell keeps having no final newline.
    source = "class Net(Module):\n    def __init__(self):\n        super().__init__()\n"
    source += "        self.layers = [Linear(2, 2) for _ in range(3)]\n"
    nb = [code_cell("from torch.nn import Linear, Module", 1), code_cell("%%time\nx = 1\n", 2), code_cell(source, 3)]
    path = write(tmp_path / "nb.ipynb", notebook_json(nb))
    before = json.loads(path.read_text())
    result = run("--fix", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path)
    after = json.loads(path.read_text())
    assert result.returncode == 0, result.stdout + result.stderr
    assert after["cells"][0]["source"] == ["from torch.nn import Linear, Module\n", "import torch"]
    assert "self.layers = torch.nn.ModuleList([Linear(2, 2) for _ in range(3)])" in "".join(after["cells"][2]["source"])
    assert after["cells"][1] == before["cells"][1]  # the %%time cell: checked, unchanged


def test_diff_shows_cells_and_changes_nothing(tmp_path: Path) -> None:
    raw = notebook_json(cells())
    path = write(tmp_path / "nb.ipynb", raw)
    result = run("--diff", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("--- nb.ipynb:cell_5\n+++ nb.ipynb:cell_5\n")
    assert "-model.head = nn.Linear(2, 2)\n+model.head = nn.Linear(2, 2).to(device)\n" in result.stdout
    assert path.read_text() == raw


def test_noqa_in_a_cell(tmp_path: Path) -> None:
    later = LATER.replace("nn.Linear(2, 2)\n", "nn.Linear(2, 2)  # noqa: DEV101\n")
    write(tmp_path / "nb.ipynb", notebook_json([code_cell(SETUP, 1), code_cell(MOVE, 2), code_cell(later, 3)]))
    assert run("nb.ipynb", cwd=tmp_path).returncode == 0


def test_notebooks_are_found_in_directories_and_read_from_stdin(tmp_path: Path) -> None:
    raw = notebook_json(cells())
    write(tmp_path / "notebooks" / "nb.ipynb", raw)
    found = run(".", cwd=tmp_path)
    assert found.stdout == f"notebooks/nb.ipynb:cell_5:5:14: {MESSAGE}\n".replace("notebooks", "./notebooks")
    piped = run("--stdin-filename", "nb.ipynb", "-", stdin=raw)
    assert piped.stdout == f"nb.ipynb:cell_5:5:14: {MESSAGE}\n"
    fixed = run("--fix", "--stdin-filename", "nb.ipynb", "-", stdin=raw)
    assert fixed.stdout == raw.replace('nn.Linear(2, 2)\\n"\n', 'nn.Linear(2, 2).to(device)\\n"\n')


def test_syntax_errors_in_a_cell_skip_that_cell_only(tmp_path: Path) -> None:
    nb = [code_cell(SETUP, 1), code_cell(MOVE, 2), code_cell("def broken(:\n", 3), code_cell(LATER, 4)]
    write(tmp_path / "nb.ipynb", notebook_json(nb))
    result = run("nb.ipynb", cwd=tmp_path)
    assert result.stdout == f"nb.ipynb:cell_4:5:14: {MESSAGE_AFTER.format('cell_2:3')}\n"
    assert "nb.ipynb:cell_3: not checked: syntax error at line 1" in result.stderr


def test_other_languages_are_not_checked(tmp_path: Path) -> None:
    notebook = json.loads(notebook_json([code_cell("model.head <- 1", 1)]))
    notebook["metadata"] = {"kernelspec": {"language": "R", "name": "ir", "display_name": "R"}}
    write(tmp_path / "r.ipynb", json.dumps(notebook))
    result = run("r.ipynb", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == "r.ipynb: not checked (a R notebook)\nAll checks passed (1 file).\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a valid notebook: invalid JSON: Expecting property name enclosed in double quotes"),
        ('{"metadata": {}}', "not a valid notebook: no list of cells"),
        ('{"nbformat": 3, "worksheets": []}', "notebook format 3 is not supported"),
        ('{"cells": [{"cell_type": "code", "source": 3}]}', "not a valid notebook: cell 1 has no source text"),
        ('{"cells": [7]}', "not a valid notebook: cell 1 is not an object"),
    ],
)
def test_malformed_notebooks_are_one_clear_line_and_exit_two(tmp_path: Path, content: str, message: str) -> None:
    write(tmp_path / "bad.ipynb", content)
    for args in (["bad.ipynb"], ["--fix", "bad.ipynb"]):
        result = run(*args, cwd=tmp_path)
        assert result.returncode == 2
        assert result.stderr.startswith(f"flake8-device: bad.ipynb: {message}")
        assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert (tmp_path / "bad.ipynb").read_text() == content


# -- IPython syntax -------------------------------------------------------------------------------


def neutral_text(source: str) -> str:
    result = neutralise(source, "TAG")
    assert not isinstance(result, str), result
    return result.text


@pytest.mark.parametrize(
    "escape",
    ["%time f()", "!ls -la", "?torch.ones", "torch.ones?", "torch.ones??", "files = !ls", "t = %timeit f()", "/f 1"],
)
def test_escapes_become_comments_at_top_level(escape: str) -> None:
    assert neutral_text(f"a = 1\n{escape}\nb = 2\n") == "a = 1\n# TAG.1\nb = 2\n"


def test_an_indented_escape_becomes_a_statement() -> None:
    assert neutral_text("for i in x:\n    !echo $i\n") == "for i in x:\n    pass  # TAG.1\n"


def test_a_continued_escape_keeps_its_line_count() -> None:
    assert neutral_text("!ls \\\n  -la\nx = 1") == "# TAG.1\n# TAG.2\nx = 1"


@pytest.mark.parametrize(
    "source",
    [
        'doc = """\n%not a magic\n!nor this\n"""\n',
        "values = (\n    1,\n)\nx = 1 if a != b else 2\n",
        "call(a,\n     b)\n",
        "x = 1 \\\n    + 2\n",
        "text = 'it is 100%'  # really?\n",
        "s = 'a\\\n%b'\n",
    ],
)
def test_python_that_looks_like_ipython_is_kept(source: str) -> None:
    assert neutral_text(source) == source


def test_cell_magics() -> None:
    assert neutral_text("%%time\nmodel.cuda()\n") == "# TAG.1\nmodel.cuda()\n"
    assert neutralise("%%bash\nls\n", "TAG") == "cell magic %%bash"
    assert neutralise("%%writefile x.py\nimport os\n", "TAG") == "cell magic %%writefile"
