"""Configuration files (DeepSpeed JSON) checked by the same rules, as the same Violation objects.

``flake8-device ds_config.json`` (and the ``flake8-device-deepspeed-config``
pre-commit hook) route ``.json`` paths here instead of to the Python engine.
A JSON file is recognised as a DeepSpeed config by its ``zero_optimization``
section; any other JSON file has nothing to report.  Malformed JSON is a
one-line error naming the line and column (exit status 2), never a traceback.
The rules are the DeepSpeed configuration rules (DEV51x) and the DeepSpeed
advisory (DEV601), whose checks read the position-tracking tree of
:mod:`flake8_device.jsonpos`; JSON has no comments, so there is no ``# noqa``.
"""

from __future__ import annotations

from collections.abc import Sequence

from flake8_device import jsonpos, versions
from flake8_device.analysis.deepspeed import ConfigObject, Position, is_deepspeed_config
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.engine import LintResult
from flake8_device.model import FixSafety, Violation
from flake8_device.rule import Rule
from flake8_device.rules.deepspeed import DeepSpeedConfigRule

CONFIG_SUFFIXES = (".json",)


def is_config_file(path: str) -> bool:
    return path.lower().endswith(CONFIG_SUFFIXES)


def lint_config(
    text: str, rules: Sequence[type[Rule]], config: AnalysisConfig | None = None, *, path: str | None = None
) -> LintResult:
    """Findings of the enabled configuration rules in a JSON text; ``path`` locates the project's pins."""
    try:
        root = jsonpos.parse(text)
    except jsonpos.JsonError as error:
        return LintResult(error=f"invalid JSON at {error}")
    if not is_deepspeed_config(root.value):
        return LintResult()
    overrides = dict((config or AnalysisConfig()).versions)

    def lookup(*packages: str) -> versions.ResolvedVersion | None:
        return versions.resolve(packages, path, overrides)

    found: dict[tuple[int, int, str], Violation] = {}
    for rule in rules:
        if not issubclass(rule, DeepSpeedConfigRule):
            continue
        tree = root.value
        assert isinstance(tree, ConfigObject)
        for anchor, fields in rule.check_config(tree, hugging_face=True, versions=lookup):
            assert isinstance(anchor, Position)
            title = rule.fix_title.format(**fields) if rule.fix_title is not None else None
            violation = Violation(
                line=anchor.line,
                col=anchor.col,
                code=rule.code,
                message=rule.format_message(fields),
                fix_title=title,
                fix_safety=rule.fix_safety if title is not None else FixSafety.NONE,
            )
            found.setdefault((violation.line, violation.col, violation.code), violation)
    return LintResult(violations=sorted(found.values()))
