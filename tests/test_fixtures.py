"""One parametrized test over every fixture: findings, fixes, and the meta-device oracle.

Regenerate the expected fix files with ``FLAKE8_DEVICE_REGENERATE=1 pytest tests/test_fixtures.py``
(expected findings are the ``# expect:`` comments, written by hand).
"""

from __future__ import annotations

import os
import runpy

import pytest

from fixture_support import Fixture, all_fixtures, realworld
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.engine import Engine
from flake8_device.registry import rule_by_code

REGENERATE = os.environ.get("FLAKE8_DEVICE_REGENERATE") == "1"


def import_torch():  # type: ignore[no-untyped-def]
    """torch for the oracle; skipped with a visible reason when absent, unless CI requires it."""
    if os.environ.get("FLAKE8_DEVICE_REQUIRE_TORCH") == "1":
        import torch

        return torch
    return pytest.importorskip("torch", reason="the meta-device oracle needs torch (CI installs torch==2.13.0)")


FIXTURES = all_fixtures()
IDS = [f.code for f in FIXTURES]


def engine_for(fixture: Fixture, *, select_units: bool = True) -> Engine:
    rule = rule_by_code(fixture.code)
    assert rule is not None, f"no rule {fixture.code} for fixture {fixture.path}"
    config = AnalysisConfig().with_versions(fixture.device_versions)
    return Engine([rule], config, select_units=select_units)


def findings(engine: Engine, text: str) -> set[tuple[int, int, str]]:
    result = engine.lint(text)
    assert result.error is None, result.error
    assert not result.internal_errors, result.internal_errors
    return {(v.line, v.col + 1, v.code) for v in result.violations}


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_findings_match_expectations(fixture: Fixture) -> None:
    expected = fixture.expected()
    assert expected, "a fixture needs at least one `# expect:` line"
    ok_line = fixture.ok_line()
    assert ok_line is not None, "a fixture needs an `# OK` section of silent look-alikes"
    assert all(line < ok_line for line, _, _ in expected), "nothing may be expected in the `# OK` section"
    assert len(fixture.text.splitlines()) > ok_line + 3, "the `# OK` section is empty"
    assert findings(engine_for(fixture), fixture.text) == expected


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_unit_selection_loses_nothing(fixture: Fixture) -> None:
    """Parsing only the units a rule's markers select finds exactly what a full parse finds."""
    text = fixture.text
    assert findings(engine_for(fixture), text) == findings(engine_for(fixture, select_units=False), text)


def _check_variant(fixture: Fixture, suffix: str, produced: str, base: str) -> None:
    path = fixture.variant(suffix)
    if produced == base:
        if REGENERATE and path.exists():
            path.unlink()
        assert not path.exists(), f"{path.name} is stale: the fixes change nothing"
        return
    if REGENERATE:
        path.write_text(produced, encoding="utf-8")
    assert path.exists(), f"missing {path.name} (regenerate with FLAKE8_DEVICE_REGENERATE=1)"
    assert produced == path.read_text(encoding="utf-8"), f"{path.name} differs from what --fix produces"


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_fixes(fixture: Fixture) -> None:
    engine = engine_for(fixture)
    safe = engine.fix(fixture.text, unsafe_fixes=False)
    unsafe = engine.fix(fixture.text, unsafe_fixes=True)
    assert not safe.refused and not unsafe.refused
    _check_variant(fixture, "fixed", safe.text, fixture.text)
    _check_variant(fixture, "unsafe.fixed", unsafe.text, safe.text)
    for fixed, unsafe_fixes in ((safe, False), (unsafe, True)):
        again = engine.fix(fixed.text, unsafe_fixes=unsafe_fixes)
        assert again.text == fixed.text, "fixes must be idempotent"
        left = [v for v in fixed.remaining.violations if v.fixable and v.fix_safety.applies(unsafe_fixes=unsafe_fixes)]
        assert not left, f"applicable fixes left unapplied: {left}"


def _variants(fixture: Fixture) -> list[tuple[str, str]]:
    found = [("bad", str(fixture.path))]
    for suffix in ("fixed", "unsafe.fixed"):
        path = fixture.variant(suffix)
        if path.exists():
            found.append((suffix, str(path)))
    return found


@pytest.mark.parametrize(
    "fixture", [f for f in FIXTURES if f.runnable_cases()], ids=[f.code for f in FIXTURES if f.runnable_cases()]
)
def test_meta_device_oracle(fixture: Fixture) -> None:
    """Each ``run_*`` case raises a device error under the meta device exactly when the linter reports it."""
    torch = import_torch()
    meta = torch.device("meta")
    engine = engine_for(fixture)
    for label, path in _variants(fixture):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        reported = {line for line, _, _ in findings(engine, text)}
        cases = Fixture(type(fixture.path)(path)).runnable_cases()
        namespace = runpy.run_path(path, run_name="fixture")
        for name, spans in cases:
            expect_error = any(first <= line <= last for line in reported for first, last in spans)
            try:
                namespace[name](meta)
            except (RuntimeError, TypeError, NotImplementedError) as error:
                assert expect_error, f"{label}: {name} raised but the linter is silent: {error}"
                assert realworld.DEVICE_ERROR.search(str(error)), f"{label}: {name} raised a non-device error: {error}"
            else:
                assert not expect_error, f"{label}: {name} ran although the linter reports it"
