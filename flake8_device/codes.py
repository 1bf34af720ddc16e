"""Every rule's code, and whether it is on by default, known without importing the rules.

The rules import LibCST and the analysis (a third of a second); flake8 imports its plugins on
every run, including runs that select no DEV code.  The flake8 plugin and the configuration read
codes from here, and import the rules only to check a file.  ``tests/test_registry.py`` checks
that this table is the registry's (a rule added without a line here fails the tests).
"""

from __future__ import annotations

# code -> on by default
CODES: dict[str, bool] = {
    "DEV101": True,
    "DEV102": True,
    "DEV103": True,
    "DEV104": True,
    "DEV201": True,
    "DEV202": True,
    "DEV203": True,
    "DEV204": True,
    "DEV205": True,
    "DEV206": True,
    "DEV207": True,
    "DEV208": True,
    "DEV209": True,
    "DEV301": True,
    "DEV302": True,
    "DEV303": True,
    "DEV304": True,
    "DEV305": True,
    "DEV306": True,
    "DEV307": True,
    "DEV401": True,
    "DEV402": True,
    "DEV403": True,
    "DEV404": False,
    "DEV405": False,
    "DEV406": True,
    "DEV407": True,
    "DEV408": True,
    "DEV501": True,
    "DEV502": True,
    "DEV503": True,
    "DEV504": True,
    "DEV511": True,
    "DEV512": True,
    "DEV513": True,
    "DEV601": True,
    "DEV602": True,
    "DEV603": True,
    "DEV604": True,
}

ALL_CODES: tuple[str, ...] = tuple(sorted(CODES))
DEFAULT_OFF_CODES: tuple[str, ...] = tuple(code for code in ALL_CODES if not CODES[code])
