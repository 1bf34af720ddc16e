"""The adversarial fix suite (tests/adversarial): no fix breaks a program, no withheld fix loses its finding.

Each case is a whole program placing a fixable pattern where its fix is easy to
get wrong (a name bound later, a value of another type, a comment on a moved
line, a notebook cell, two rules on one tensor, match/comprehension/lambda
contexts, ...).  It is run on the meta device as written and after ``--fix`` and
``--fix --unsafe-fixes``; see tests/adversarial/harness.py for the format and
``tests/adversarial/run.py`` for a summary table.
"""

from __future__ import annotations

import ast
from collections import Counter

import pytest

from adversarial.harness import Case, check, load_cases
from flake8_device.engine import parses
from flake8_device.registry import all_rules

CASES = load_cases()


@pytest.fixture(scope="module", autouse=True)
def _torch() -> None:
    pytest.importorskip("torch", reason="the adversarial suite runs programs on the meta device")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_no_fix_breaks_the_program(case: Case) -> None:
    result = check(case)
    assert not result.problems, "\n".join(result.problems)
    for text in (result.safe_text, result.unsafe_text):
        assert parses(text)
        ast.parse(text)


def test_every_fixable_rule_is_attacked() -> None:
    fixable = {r.code for r in all_rules() if r.fix_safety.applies(unsafe_fixes=True)}
    counts = Counter(c.rule for c in CASES)
    assert set(counts) == fixable, f"rules without cases: {sorted(fixable - set(counts))}"
    assert sum(counts.values()) >= 80
    assert all(counts[code] >= 3 for code in fixable), counts
    withheld = {code for c in CASES for code, level in c.expect.items() if level == "display-only"}
    assert len(withheld) >= 10, "cases where the fix must be withheld"
