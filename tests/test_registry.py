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


def test_the_light_code_table_is_the_registry() -> None:
    """flake8_device/codes.py lists every rule's code and default without importing the rules."""
    from flake8_device.codes import CODES

    assert CODES == {rule.code: rule.default_enabled for rule in all_rules()}


def test_importing_the_flake8_plugin_imports_no_rule() -> None:
    """flake8 imports every plugin on every run: ours must not pay for LibCST and the rules there
    (they are imported when a file is checked with a DEV code selected)."""
    import subprocess
    import sys

    heavy = ("libcst", "flake8_device.registry", "flake8_device.engine")
    probe = f"import sys, flake8_device.plugin; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
