"""The engine's own machinery: noqa, selection, unit selection, fixes, isolation of failures."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from flake8_device import noqa
from flake8_device.engine import Engine, apply_edits, choose_edits, import_insertion
from flake8_device.model import FixSafety, TextEdit, Violation
from flake8_device.registry import all_rules, rule_by_code
from flake8_device.rule import Rule
from flake8_device.selection import Selection
from flake8_device.source import LineIndex, SourceError, decode_source
from flake8_device.analysis.symbols import Symbols
from flake8_device.units import UnitIndex

ROOT = Path(__file__).resolve().parent.parent

BUG = textwrap.dedent(
    """\
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(4, 2)
    model.to(device)
    model.head = nn.Linear(2, 2)
    """
)


def default_engine() -> Engine:
    return Engine([r for r in all_rules() if r.default_enabled])


# -- noqa ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("comment", "suppressed"),
    [
        ("# noqa", True),
        ("# NOQA", True),
        ("# noqa: DEV101", True),
        ("# noqa:DEV101,E501", True),
        ("# noqa: DEV1", True),
        ("# noqa: DEV102", False),
        ("# noqa: E501", False),
        ("# not a noqa", False),
    ],
)
def test_inline_noqa_like_flake8(comment: str, suppressed: bool) -> None:
    text = BUG.replace("nn.Linear(2, 2)\n", f"nn.Linear(2, 2)  {comment}\n")
    found = default_engine().lint(text, honour_noqa=True).violations
    assert (not found) is suppressed


def test_noqa_at_the_end_of_a_multiline_string_covers_its_lines() -> None:
    violation = Violation(2, 0, "DEV101", "m")
    text = 'x = """\nline two\n"""  # noqa: DEV101\n'
    assert noqa.filter_violations(text, [violation]) == []
    assert noqa.filter_violations('x = """\nline two\n"""\n', [violation]) == [violation]


def test_file_level_noqa() -> None:
    assert default_engine().lint("# flake8: noqa\n" + BUG, honour_noqa=True).violations == []
    assert default_engine().lint("x = 1  # flake8: noqa\n" + BUG, honour_noqa=True).violations != []


# -- selection ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selection", "code", "enabled"),
    [
        (Selection(), "DEV101", True),
        (Selection(default_off=("DEV401",)), "DEV401", False),
        (Selection(ignore=["E501"], default_off=("DEV401",)), "DEV401", False),
        (Selection(extend_select=["DEV401"], default_off=("DEV401",)), "DEV401", True),
        (Selection(select=["DEV"], default_off=("DEV401",)), "DEV401", True),
        (Selection(select=["E"]), "DEV101", False),
        (Selection(select=["DEV1"]), "DEV201", False),
        (Selection(ignore=["DEV1"], extend_select=["DEV101"]), "DEV101", True),
        (Selection(select=["DEV101"], ignore=["DEV101"]), "DEV101", False),
        (Selection(extend_ignore=["DEV10"]), "DEV101", False),
        (Selection(select=["DEV10"], ignore=["DEV1"]), "DEV101", True),
    ],
)
def test_selection_matches_flake8(selection: Selection, code: str, enabled: bool) -> None:
    assert selection.enabled(code) is enabled


# -- unit selection -------------------------------------------------------------------------


def test_sparse_source_keeps_only_wanted_units_with_exact_lines() -> None:
    text = textwrap.dedent(
        """\
        import torch


        def unrelated():
            return 1


        class Net(torch.nn.Module):
            x = 3

            def other(self):
                return 2

            def forward(self, x):
                return x + torch.ones(3)
        """
    )
    units = UnitIndex(ast.parse(text))
    index = LineIndex(text)
    rule = rule_by_code("DEV202")
    assert rule is not None
    tree = ast.parse(text)
    spec = rule.marker_spec.for_file(Symbols(tree).vocabulary(text, tree))
    selected = units.with_headers(set().union(*units.select(index, [spec])))
    sparse = units.sparse_source(index, selected)
    assert not sparse.complete
    assert sparse.line_map == [8, 14, 15]
    cst.parse_module(sparse.text)


def test_files_without_markers_are_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed a file no rule could fire in")

    monkeypatch.setattr(cst, "parse_module", fail)
    assert default_engine().lint("def f(x):\n    return x + 1\n").violations == []


# -- fixes --------------------------------------------------------------------------------------


def test_overlapping_edits_wait_for_the_next_round() -> None:
    first = Violation(1, 0, "DEV101", "m", "t", FixSafety.SAFE, (TextEdit(0, 5, "AAAAA"),))
    second = Violation(1, 2, "DEV102", "m", "t", FixSafety.SAFE, (TextEdit(2, 7, "BBBBB"),))
    third = Violation(1, 8, "DEV103", "m", "t", FixSafety.SAFE, (TextEdit(8, 9, "C"),))
    assert choose_edits([second, first, third]) == [first, third]
    same_import = TextEdit(0, 0, "import torch\n")
    a = Violation(1, 0, "DEV101", "m", "t", FixSafety.SAFE, (same_import, TextEdit(3, 4, "x")))
    b = Violation(1, 5, "DEV101", "m", "t", FixSafety.SAFE, (same_import, TextEdit(5, 6, "y")))
    assert choose_edits([a, b]) == [a, b]
    assert apply_edits("0123456", [same_import, TextEdit(3, 4, "x"), same_import]) == "import torch\n012x456"


class BreaksCode(Rule):
    """Test rule whose fix would not parse.

    ## What it does
    x
    ## Why is this bad?
    x
    ## Example
    ```python
    x
    ```
    ## Use instead
    ```python
    y
    ```
    ## Fix safety
    x
    """

    code = "DEV998"
    name = "breaks-code"
    message = "Test"
    fix_title = "Break it"
    fix_safety = FixSafety.SAFE
    markers = (r"\bvalue\b",)

    def visit_Name(self, node: cst.Name) -> None:
        from flake8_device.model import ReplaceNode

        if node.value == "value":
            # Code on its own (the proof reads it), but not where it goes: `1 = 1`.
            self.report(node, fix=self.make_fix(ReplaceNode(node, "1")))


class Crashes(BreaksCode):
    """Test rule that raises.

    ## What it does
    x
    ## Why is this bad?
    x
    ## Example
    ```python
    x
    ```
    ## Use instead
    ```python
    y
    ```
    ## Fix safety
    x
    """

    code = "DEV997"
    name = "crashes"
    fix_title = None
    fix_safety = FixSafety.NONE

    def visit_Name(self, node: cst.Name) -> None:
        raise ValueError("boom")


def test_a_fix_whose_result_does_not_parse_is_refused() -> None:
    result = Engine([BreaksCode]).fix("value = 1\n")
    assert result.text == "value = 1\n"
    assert result.refused and "does not parse" in result.refused[0]


class InsertsNoCode(BreaksCode):
    code = "DEV996"

    def visit_Name(self, node: cst.Name) -> None:
        from flake8_device.model import ReplaceNode

        if node.value == "value":
            self.report(node, fix=self.make_fix(ReplaceNode(node, "value +")))


def test_a_fix_inserting_what_is_not_code_is_not_proven() -> None:
    (violation,) = Engine([InsertsNoCode]).lint("value = 1\n").violations
    assert violation.fix_safety is FixSafety.DISPLAY_ONLY and not violation.fixable
    assert violation.fix_reason == "the code the fix inserts could not be read, so its names are not proven bound"


def test_a_crashing_rule_does_not_stop_the_others() -> None:
    result = Engine([Crashes, *[r for r in all_rules() if r.default_enabled]]).lint(BUG.replace("model", "value"))
    assert [v.code for v in result.violations] == ["DEV101"]
    assert result.internal_errors == ["DEV997 (crashes) crashed: ValueError: boom"]


def test_a_file_where_every_rule_crashes_says_so() -> None:
    result = Engine([Crashes]).lint(BUG.replace("model", "value"))
    assert result.violations == [] and result.internal_errors == ["DEV997 (crashes) crashed: ValueError: boom"]


def test_import_insertion_goes_after_the_imports_once() -> None:
    text = '"""Doc."""\nfrom __future__ import annotations\nimport os\n\nx = 1\n'
    edit = import_insertion(LineIndex(text), "import torch")
    assert edit is not None
    assert (
        apply_edits(text, [edit])
        == '"""Doc."""\nfrom __future__ import annotations\nimport os\nimport torch\n\nx = 1\n'
    )
    assert import_insertion(LineIndex("import torch\nx = 1\n"), "import torch") is None
    at_top = import_insertion(LineIndex("x = 1"), "import torch")
    assert at_top is not None and apply_edits("x = 1", [at_top]) == "import torch\nx = 1"


def test_fixing_twice_changes_nothing_more() -> None:
    engine = default_engine()
    once = engine.fix(BUG)
    assert once.applied == 1
    assert engine.fix(once.text).text == once.text


# -- sources ------------------------------------------------------------------------------------


def test_decoding_keeps_what_matters() -> None:
    decoded = decode_source(b"\xef\xbb\xbfx = 1\r\n")
    assert decoded.bom and decoded.text == "x = 1\r\n" and decoded.encode(decoded.text) == b"\xef\xbb\xbfx = 1\r\n"
    latin = decode_source("# coding: latin-1\nx = '\xe9'\n".encode("latin-1"))
    assert latin.encoding == "iso-8859-1" and latin.encode(latin.text) == "# coding: latin-1\nx = '\xe9'\n".encode(
        "latin-1"
    )
    with pytest.raises(SourceError):
        decode_source(b"x = '\xff'\n")


def test_syntax_errors_are_reported_not_raised() -> None:
    assert default_engine().lint("def f(:\n").error == "syntax error at line 1, column 7: invalid syntax"
    assert default_engine().lint("x = 1\0\n").error is not None


# -- dogfood --------------------------------------------------------------------------------------


def test_the_linter_lints_itself_clean() -> None:
    engine = Engine(list(all_rules()))
    for path in sorted([*(ROOT / "flake8_device").rglob("*.py"), *(ROOT / "tests").glob("*.py")]):
        result = engine.lint(path.read_text(encoding="utf-8"), honour_noqa=True)
        assert result.error is None and not result.internal_errors, path
        assert result.violations == [], f"{path}: {result.violations}"


def test_the_code_passes_flake8_with_the_plugin() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "flake8", "flake8_device", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_fix_titles_are_one_line() -> None:
    """A move written over several lines is copied as is, but named on one line (JSON, SARIF, GitHub)."""
    text = BUG.replace("model.to(device)", "model.to(\n    device,\n)")
    (violation,) = Engine([rule_by_code("DEV101")]).lint(text).violations  # type: ignore[list-item]
    assert violation.fix_title == "Move it too: `.to( device, )`"


def test_model_code_that_never_names_a_device_still_reaches_the_numpy_rule() -> None:
    # A file of model code says nothing about devices (its callers move the module): the outputs
    # of its own layers are still where the module is, so DEV205's file markers accept the layers
    # the file builds as well as a move.
    text = textwrap.dedent(
        """\
        import torch
        from torch import nn


        class Detector(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Conv2d(4, 1, 1)

            def forward(self, x):
                logits = self.head(x)
                return logits.numpy(), torch.sigmoid(logits).detach().cpu().numpy()
        """
    )
    found = [(v.code, v.line) for v in default_engine().lint(text).violations]
    assert found == [("DEV205", 12)]


ROTARY = '''\
import torch
from torch import nn


def rotary(dim, length=16):
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    positions = torch.arange(length, device=inv_freq.device)
    return torch.outer(positions, inv_freq)


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.dim = dim
        self.rope = rotary(dim)

    def forward(self, x):
        if x.size(1) > self.rope.size(0):
            self.rope = rotary(self.dim, length=x.size(1) + 16)
        return self.proj(x) * self.rope[: x.size(1)].repeat(1, 2)
'''


@pytest.mark.parametrize("select_units", [True, False])
def test_a_flow_finding_is_kept_where_the_rules_markers_name_nothing(select_units: bool) -> None:
    # OpenNMT's regrown rotary table: `forward` names no tensor factory (DEV202's markers), but the
    # flow that the factories in `rotary` selected knows what `rotary(...)` returns there.
    engine = Engine([rule_by_code("DEV202")], select_units=select_units)
    found = [(v.line, v.col, v.code) for v in engine.lint(ROTARY).violations]
    assert found == [(20, 24, "DEV202")]  # (0-based column)
