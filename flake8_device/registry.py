"""Discovers the rules in :mod:`flake8_device.rules` (one module per family) and checks them."""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re

from flake8_device import rules as rules_package
from flake8_device.model import FixSafety
from flake8_device.rule import DOC_SECTIONS, Rule

CODE_FORMAT = re.compile(r"DEV[1-9]\d\d")
NAME_FORMAT = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")


class RegistryError(Exception):
    """A rule class breaks the rule model (caught by the test suite, never by users)."""


def _check(rule: type[Rule]) -> None:
    where = f"{rule.__module__}.{rule.__qualname__}"
    if not CODE_FORMAT.fullmatch(rule.code):
        raise RegistryError(f"{where}: code {rule.code!r} is not DEVnnn")
    if not NAME_FORMAT.fullmatch(rule.name):
        raise RegistryError(f"{where}: name {rule.name!r} is not kebab-case")
    message = rule.message
    if not message or message.endswith(".") or message[0].islower():
        raise RegistryError(f"{where}: message must be one capitalised sentence without a trailing period")
    if (rule.fix_title is None) != (rule.fix_safety is FixSafety.NONE):
        raise RegistryError(f"{where}: a fix title goes with a fix safety other than NONE")
    sections = rule.doc_sections()
    missing = [s for s in DOC_SECTIONS if not sections.get(s)]
    if missing:
        raise RegistryError(f"{where}: docstring lacks sections {missing}")
    for section in ("Example", "Use instead"):
        if not rule.code_block(section):
            raise RegistryError(f"{where}: section {section!r} needs a ```python block")
    if not rule.markers:
        raise RegistryError(f"{where}: a rule needs at least one text marker")


@functools.lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code; import errors and duplicate codes are fatal."""
    found: dict[str, type[Rule]] = {}
    for info in sorted(pkgutil.iter_modules(rules_package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{rules_package.__name__}.{info.name}")
        for value in vars(module).values():
            if not (isinstance(value, type) and issubclass(value, Rule) and "code" in value.__dict__):
                continue
            if value.__module__ != module.__name__:
                continue
            _check(value)
            if value.code in found:
                raise RegistryError(f"duplicate code {value.code}: {found[value.code].__name__} and {value.__name__}")
            found[value.code] = value
    names = [r.name for r in found.values()]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise RegistryError(f"duplicate rule names: {sorted(duplicates)}")
    return tuple(found[code] for code in sorted(found))


def rule_by_code(code: str) -> type[Rule] | None:
    for rule in all_rules():
        if rule.code == code.upper() or rule.name == code:
            return rule
    return None


def default_off_codes() -> tuple[str, ...]:
    return tuple(r.code for r in all_rules() if not r.default_enabled)
