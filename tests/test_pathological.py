"""The analysis is bounded: no input makes it hang or grow without end, and where a bound cuts a
scope short its facts become unknown (no finding there), said with ``--verbose``.

Each pathological program (tests/pathological.py) runs in a subprocess with a generous hang guard;
time and memory against LibCST's own parse are measured by ``bench/bounds/run.py``, not here.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fixture_support import FIXTURES
from flake8_device import rule as rule_module
from flake8_device.analysis.flow import budget
from flake8_device.engine import Engine
from flake8_device.registry import all_rules
from flake8_device.report import ReportOptions, report
from flake8_device.runner import Outcome
from pathological import CASES, Case

DEFAULT_RULES = [r for r in all_rules() if r.default_enabled]
FLOW_CODES = {r.code for r in all_rules() if r.uses_flow}
TESTS = Path(__file__).parent
REALWORLD_CASES = TESTS.parent / "bench" / "realworld" / "cases"
# A hang guard, not a speed target: the slowest case takes seconds on this machine.
HANG_GUARD_S = 300

_LINT_ONE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from pathological import CASES
from flake8_device.engine import Engine
from flake8_device.registry import all_rules
case = next(c for c in CASES if c.name == sys.argv[2])
result = Engine([r for r in all_rules() if r.default_enabled]).lint(case.make(case.size))
print(json.dumps({
    "findings": [[v.line, v.code] for v in result.violations],
    "error": result.error,
    "internal_errors": result.internal_errors,
    "cuts": result.analysis_cuts,
    "lines": len(case.make(case.size).splitlines()),
}))
"""


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_pathological_program_finishes_and_still_finds_its_bug(case: Case) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LINT_ONE, str(TESTS), case.name],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["error"] is None
    assert result["internal_errors"] == []
    if case.tail_found:
        # The finding every program ends with: a host tensor given to a CUDA model.
        assert [result["lines"], "DEV204"] in result["findings"], result


# -- the budget's mechanics -------------------------------------------------------------------------

TWO_FUNCTIONS = """\
import torch
from torch import nn


def costly():
    model = nn.Linear(3, 3).cuda()
    a = torch.zeros(3)
    b = a + a
    c = b * b
    return model(c)


def cheap():
    model = nn.Linear(3, 3).cuda()
    return model(torch.ones(3))
"""


def test_a_scope_over_its_budget_is_unknown_and_the_others_still_report(monkeypatch: pytest.MonkeyPatch) -> None:
    full = Engine(DEFAULT_RULES).lint(TWO_FUNCTIONS)
    assert {(v.line, v.code) for v in full.violations} == {(10, "DEV204"), (15, "DEV204")}
    assert full.analysis_cuts == []
    # A budget that the longer function exceeds and the shorter one does not.
    monkeypatch.setattr(budget, "SCOPE_BASE_STEPS", 12)
    monkeypatch.setattr(budget, "SCOPE_STEPS_PER_STATEMENT", 0)
    cut = Engine(DEFAULT_RULES).lint(TWO_FUNCTIONS)
    assert {(v.line, v.code) for v in cut.violations} == {(15, "DEV204")}
    assert len(cut.analysis_cuts) == 1
    assert cut.analysis_cuts[0].startswith("costly (line 5): the function's work budget (12 steps) ran out")


def test_when_the_file_budget_runs_out_the_remaining_scopes_are_not_analysed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "FILE_BASE_STEPS", 20)
    monkeypatch.setattr(budget, "FILE_STEPS_PER_STATEMENT", 0)
    result = Engine(DEFAULT_RULES).lint(TWO_FUNCTIONS)
    assert result.violations == []
    assert result.analysis_cuts == [
        "costly (line 5): the file's work budget (20 steps) ran out; its facts there are unknown",
        "cheap (line 13): the file's work budget ran out before it; its facts are unknown",
    ]


def _report(outcome: Outcome, *, verbose: bool) -> str:
    stdout, stderr = io.StringIO(), io.StringIO()
    report([outcome], [], ReportOptions(verbose=verbose), stdout=stdout, stderr=stderr)
    return stderr.getvalue()


def test_verbose_says_where_the_analysis_was_cut_and_the_summary_counts_it() -> None:
    outcome = Outcome("big.py", analysis_cuts=["costly (line 5): the function's work budget (12 steps) ran out"])
    verbose = _report(outcome, verbose=True)
    assert "big.py: note: analysis cut short in costly (line 5): the function's work budget" in verbose
    assert "All checks passed (1 file)." in verbose
    quiet = _report(outcome, verbose=False)
    assert "costly (line 5)" not in quiet
    assert "Note: 1 scope too costly to analyse fully (--verbose says which)." in quiet
    assert "too costly" not in _report(Outcome("small.py"), verbose=False)


# -- the flow gate: a file without torch, moves or devices costs no flow analysis ---------------------

# Each token the gate looks for, replaced by one it does not.
_UNGATED = (("torch", "tarch"), ("cuda", "cxda"), (".to(", ".tx("), (".cpu(", ".cpx("))


def _without_gate_tokens(text: str) -> str:
    for token, replacement in _UNGATED:
        text = text.replace(token, replacement)
    return text


def test_the_gate_is_necessary_no_flow_finding_in_any_fixture_without_its_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fixtures and the real-world cases hold the shapes the flow rules know: with the gate's
    tokens renamed away and the gate itself switched off, not one flow finding is left."""
    monkeypatch.setattr(rule_module, "FLOW_GATE", "")
    monkeypatch.setattr(rule_module, "_SPECS", {})
    engine = Engine(DEFAULT_RULES)
    checked = 0
    programs = [p for p in sorted(FIXTURES.rglob("*.py")) if ".fixed" not in p.name]
    programs += sorted(REALWORLD_CASES.glob("*/*.py"))
    for path in programs:
        text = _without_gate_tokens(path.read_text(encoding="utf-8"))
        assert not re.search(r"torch|cuda|\.to\(|\.cpu\(", text)
        found = {v.code for v in engine.lint(text).violations} & FLOW_CODES
        assert not found, f"{path.name}: {sorted(found)}"
        checked += 1
    assert checked > 300


def test_a_file_without_the_gate_tokens_builds_no_flow(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    from flake8_device.analysis import flow

    original = flow.FlowAnalysis.__init__

    def counting(self: flow.FlowAnalysis, ctx: object) -> None:
        built.append(ctx)
        original(self, ctx)  # type: ignore[arg-type]

    monkeypatch.setattr(flow.FlowAnalysis, "__init__", counting)
    plain = "class Poly:\n    def __init__(self, coeffs):\n        self.coeffs = list(coeffs)\n"
    assert Engine(DEFAULT_RULES).lint(plain).violations == []
    assert built == []
    Engine(DEFAULT_RULES).lint("import torch\n" + plain)
    assert len(built) == 1
