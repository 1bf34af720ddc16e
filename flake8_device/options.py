"""What a run checks and how: the options every front end builds (light: no rule is imported)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from flake8_device.codes import ALL_CODES
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.selection import Selection
from flake8_device.configuration.settings import PerFileIgnores, per_file_codes


@dataclass(frozen=True)
class Options:
    selection: Selection
    config: AnalysisConfig
    fix: bool = False
    diff: bool = False
    unsafe_fixes: bool = False
    add_noqa: bool = False
    show_source: bool = False
    stdin_filename: str = "stdin"
    per_file_ignores: PerFileIgnores = ()
    # Where the CLI keeps its cache (see flake8_device/cache.py); None: no cache.
    cache_dir: str | None = None

    @property
    def cached(self) -> bool:
        """A plain lint, the only kind of run the cache serves."""
        return self.cache_dir is not None and not (self.fix or self.diff or self.add_noqa)

    def rules_for(self, path: str) -> tuple[str, ...]:
        """The codes checked in ``path``: the selection less its ``per-file-ignores``."""
        extra = per_file_codes(self.per_file_ignores, path)
        key = (self.selection, extra)
        codes = _RULES_FOR.get(key)
        if codes is None:
            selection = replace(self.selection, extend_ignore=(*self.selection.extend_ignore, *extra))
            codes = _RULES_FOR[key] = tuple(code for code in ALL_CODES if selection.enabled(code))
        return codes


_RULES_FOR: dict[tuple[Selection, tuple[str, ...]], tuple[str, ...]] = {}
