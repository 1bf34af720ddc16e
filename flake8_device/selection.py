"""Which codes are on: the same decision flake8 makes, so both front ends agree.

Off-by-default rules behave like flake8's ``extend_default_ignore``: a plain
``--ignore=...`` does not switch them back on, an explicit ``--select`` or
``--extend-select`` naming them (or a prefix of them) does, and where a code
matches both an explicit select and an explicit ignore the longer prefix wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def _prefixes(values: Iterable[str] | None) -> tuple[str, ...]:
    return tuple(sorted({v.strip().upper() for v in values or () if v.strip()}, reverse=True))


@dataclass(frozen=True)
class Selection:
    select: Sequence[str] | None = None
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] | None = None
    extend_ignore: Sequence[str] = ()
    default_off: Sequence[str] = ()

    def enabled(self, code: str) -> bool:
        explicit_select = _prefixes([*(self.select or ()), *self.extend_select])
        explicit_ignore = _prefixes([*(self.ignore or ()), *self.extend_ignore])
        selected = _prefixes([*(self.select if self.select is not None else ("DEV",)), *self.extend_select])
        ignored = _prefixes([*(self.ignore or ()), *self.default_off, *self.extend_ignore])

        def longest(prefixes: tuple[str, ...]) -> str | None:
            matches = [p for p in prefixes if code.startswith(p)]
            return max(matches, key=len) if matches else None

        chosen = longest(explicit_select)
        refused = longest(explicit_ignore)
        if chosen is not None and refused is None:
            return True
        if refused is not None and chosen is None:
            return False
        if chosen is not None and refused is not None:
            return len(chosen) > len(refused)
        # Neither explicit: defaults decide, again by the longer prefix.
        implicit_select = longest(selected)
        implicit_ignore = longest(ignored)
        if implicit_select is None:
            return False
        if implicit_ignore is None:
            return True
        return len(implicit_select) > len(implicit_ignore)
