"""Rule docs are generated from the rule classes, and each docstring's examples are honest."""

from __future__ import annotations

from pathlib import Path

import pytest

from flake8_device import docs
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.engine import Engine
from flake8_device.links import rule_anchor, rule_url
from flake8_device.registry import all_rules
from flake8_device.rule import Rule

ROOT = Path(__file__).resolve().parent.parent
RULES = all_rules()


def test_rules_md_is_fresh() -> None:
    current = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert current == docs.rules_markdown(), "docs/rules.md is stale: run `python -m flake8_device.docs`"


def test_every_rule_has_the_anchor_its_url_points_at() -> None:
    current = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert rule_url(rule.code).endswith(f"docs/rules.md#{rule_anchor(rule.code)}")
        assert current.count(f'<a id="{rule_anchor(rule.code)}"></a>') == 1


def test_readme_table_is_fresh() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme == docs.readme_with_table(readme), "README rule table is stale: run `python -m flake8_device.docs`"


def codes_found(rule: type[Rule], source: str) -> list[str]:
    # Advisory rules report only on affected releases: their docs name the release the Example assumes.
    config = AnalysisConfig().with_versions(getattr(rule, "example_versions", ()))
    result = Engine([rule], config).lint(source)
    assert result.error is None, result.error
    assert not result.internal_errors, result.internal_errors  # a crash is not "no finding"
    return [v.code for v in result.violations]


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_example_triggers_the_rule(rule: type[Rule]) -> None:
    assert rule.code in codes_found(rule, rule.code_block("Example"))


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_use_instead_is_silent(rule: type[Rule]) -> None:
    assert codes_found(rule, rule.code_block("Use instead")) == []


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_explain_prints_the_generated_doc(rule: type[Rule], capsys: pytest.CaptureFixture[str]) -> None:
    from flake8_device.cli import main

    assert main(["--explain", rule.code]) == 0
    out = capsys.readouterr().out
    assert out == docs.rule_markdown(rule)
    for section in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert f"# {section}" in out
