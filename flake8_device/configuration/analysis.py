"""Settings that change what the analysis knows (not which codes are on)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

# Framework helpers that move a (nested) batch to a device and return it.
DEFAULT_MOVE_FUNCTIONS: frozenset[str] = frozenset(
    {"batch_to_device", "move_data_to_device", "send_to_device", "to_device"}
)


@dataclass(frozen=True)
class AnalysisConfig:
    # Bare names: a call to ``<name>(value, device)`` or ``obj.<name>(value, device)`` is a move.
    move_functions: frozenset[str] = field(default=DEFAULT_MOVE_FUNCTIONS)
    # Package versions the advisories should assume instead of their defaults, as sorted
    # ``(package, version)`` pairs (a tuple, so configurations stay hashable).
    versions: tuple[tuple[str, str], ...] = ()

    def with_extra_move_functions(self, names: Iterable[str]) -> AnalysisConfig:
        extra = frozenset(n.strip() for n in names if n.strip())
        return AnalysisConfig(move_functions=self.move_functions | extra, versions=self.versions)

    def with_versions(self, versions: Iterable[tuple[str, str]]) -> AnalysisConfig:
        """Later pairs win over earlier ones (and over the ones already set)."""
        merged = dict(self.versions)
        merged.update((name.lower(), version) for name, version in versions)
        return AnalysisConfig(move_functions=self.move_functions, versions=tuple(sorted(merged.items())))

    def version_of(self, package: str) -> str | None:
        return dict(self.versions).get(package.lower())
