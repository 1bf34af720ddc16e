"""Where the project and its rule documentation live, in one place.

The project's public address is not decided yet: ``PROJECT_URL`` is the
provisional one (the README says so), and every link (JSON ``url``, SARIF
``helpUri``, the README) is built from it.
"""

from __future__ import annotations

PROJECT_URL = "https://github.com/flake8-device/flake8-device"
RULES_DOC_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"


def rule_anchor(code: str) -> str:
    """The anchor of a rule in ``docs/rules.md`` (written there by :mod:`.docs`)."""
    return code.lower()


def rule_url(code: str) -> str:
    return f"{RULES_DOC_URL}#{rule_anchor(code)}"
