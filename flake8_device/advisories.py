"""The known-bug advisory table (``flake8_device/data/advisories.json``) and who is affected.

The table is data so that an entry can be read, checked and updated without
touching code: which releases are affected, what in the user's code or config
triggers the bug, where upstream tracked it, and the way out.  What counts as
the trigger is code (``flake8_device/rules/advisories.py`` and, for DeepSpeed
JSON configs, ``flake8_device/json_configs.py``); whether the project is on an
affected release is answered here.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from flake8_device.versions import ResolvedVersion, Version, VersionRange


@dataclass(frozen=True)
class Advisory:
    code: str
    project: str
    packages: tuple[str, ...]
    affected: VersionRange
    trigger: str
    symptom: str
    references: tuple[str, ...]
    way_out: str

    @property
    def reference(self) -> str:
        return ", ".join(self.references)

    def affected_release(self, lookup: Callable[..., ResolvedVersion | None]) -> ResolvedVersion | None:
        """The project's release (from ``lookup(*packages)``) when it is in the affected range, else None."""
        found = lookup(*self.packages)
        return found if found is not None and found.version in self.affected else None


class AdvisoryTableError(Exception):
    """The shipped table is malformed (caught by the tests, never by users)."""


def _version(value: object, where: str) -> Version | None:
    if value is None:
        return None
    version = Version.parse(value) if isinstance(value, str) else None
    if version is None:
        raise AdvisoryTableError(f"{where}: {value!r} is not a version")
    return version


def parse_table(text: str) -> dict[str, Advisory]:
    data = json.loads(text)
    table: dict[str, Advisory] = {}
    for entry in data["advisories"]:
        code = entry["code"]
        introduced = _version(entry.get("introduced"), code)
        fixed = _version(entry.get("fixed"), code)
        if introduced is None and fixed is None:
            raise AdvisoryTableError(f"{code}: an advisory needs at least one bound")
        if introduced is not None and fixed is not None and not introduced < fixed:
            raise AdvisoryTableError(f"{code}: the range is empty")
        table[code] = Advisory(
            code=code,
            project=entry["project"],
            packages=tuple(entry["packages"]),
            affected=VersionRange(introduced, fixed),
            trigger=entry["trigger"],
            symptom=entry["symptom"],
            references=tuple(entry["references"]),
            way_out=entry["way_out"],
        )
    return table


@functools.lru_cache(maxsize=1)
def advisories() -> dict[str, Advisory]:
    text = resources.files("flake8_device").joinpath("data").joinpath("advisories.json").read_text(encoding="utf-8")
    return parse_table(text)


def lookup_advisory(code: str) -> Advisory:
    return advisories()[code]
