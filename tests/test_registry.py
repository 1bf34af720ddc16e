"""The registry discovers every rule and refuses malformed ones."""

from __future__ import annotations

import pytest

from flake8_device.model import FixSafety
from flake8_device.registry import CODE_FORMAT, NAME_FORMAT, RegistryError, _check, all_rules
from flake8_device.rule import Rule


def test_codes_and_names_are_unique_and_well_formed() -> None:
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    assert len({r.name for r in rules}) == len(rules)
    for rule in rules:
        assert CODE_FORMAT.fullmatch(rule.code)
        assert NAME_FORMAT.fullmatch(rule.name)
        assert rule.family in rule.__module__


def _rule(**overrides: object) -> type[Rule]:
    attributes = {
        "__doc__": "Title.\n\n## What it does\nx\n## Why is this bad?\nx\n## Example\n```python\nx\n```\n"
        "## Use instead\n```python\ny\n```\n## Fix safety\nx\n",
        "code": "DEV999",
        "name": "some-rule",
        "message": "Something `x` happened",
        "markers": ("x",),
    }
    attributes.update(overrides)
    return type("Sample", (Rule,), attributes)


def test_a_well_formed_rule_passes() -> None:
    _check(_rule())


@pytest.mark.parametrize(
    "overrides",
    [
        {"code": "DEV12"},
        {"code": "XYZ123"},
        {"name": "NotKebab"},
        {"message": "Ends with a period."},
        {"message": "lower-case start"},
        {"fix_title": "Do it"},
        {"fix_safety": FixSafety.SAFE},
        {"__doc__": "No sections."},
        {"markers": ()},
    ],
)
def test_malformed_rules_are_refused(overrides: dict[str, object]) -> None:
    with pytest.raises(RegistryError):
        _check(_rule(**overrides))
