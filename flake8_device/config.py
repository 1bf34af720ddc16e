"""Settings that change what the analysis knows (not which codes are on)."""

from __future__ import annotations

from dataclasses import dataclass, field

# Framework helpers that move a (nested) batch to a device and return it.
DEFAULT_MOVE_FUNCTIONS: frozenset[str] = frozenset(
    {"batch_to_device", "move_data_to_device", "send_to_device", "to_device"}
)


@dataclass(frozen=True)
class AnalysisConfig:
    # Bare names: a call to ``<name>(value, device)`` or ``obj.<name>(value, device)`` is a move.
    move_functions: frozenset[str] = field(default=DEFAULT_MOVE_FUNCTIONS)

    def with_extra_move_functions(self, names: list[str] | tuple[str, ...]) -> AnalysisConfig:
        return AnalysisConfig(move_functions=self.move_functions | frozenset(n.strip() for n in names if n.strip()))
