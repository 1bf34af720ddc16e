"""Cheap selection of the code worth a LibCST parse.

A LibCST parse costs about ten times an ``ast.parse``, and most code in a
PyTorch project holds nothing any rule could report.  Before parsing, the
engine cuts the file into *units* using the ``ast`` tree (which flake8 has
already built): each top-level function, each method, the statements of each
class body, and all top-level script statements together.  A rule names the
text markers (regular expressions) that must all occur in a unit for it to be
able to fire there; only the units some enabled rule wants are kept, along
with the headers of their enclosing classes.  The kept lines are joined into a
smaller program whose lines map back to the original ones, so positions stay
exact and fixes edit the original text.

Markers are necessary conditions, never heuristics: a rule that could fire in
a unit must find its markers there.  Over-selecting costs time; under-selecting
would lose findings, which the fixture tests guard against (every fixture also
runs with the selection disabled).
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

from flake8_device.source import LineIndex

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class Unit:
    """Line ranges (1-based, inclusive) that are kept or dropped together."""

    ranges: list[tuple[int, int]] = field(default_factory=list)
    # Index of the enclosing class's header unit, or -1 at module level.
    parent: int = -1
    # Index of the enclosing class's header unit for members ("class scope" expansion).
    is_header: bool = False


@dataclass(frozen=True)
class MarkerSpec:
    """All ``patterns`` must match inside one unit; ``whole_class`` keeps sibling methods too."""

    patterns: tuple[re.Pattern[str], ...]
    whole_class: bool = False


@dataclass
class SparseSource:
    """The kept lines of a file; ``line_map[i]`` is the original line of kept line ``i + 1``."""

    text: str
    line_map: list[int]
    complete: bool

    def original_line(self, line: int) -> int:
        return self.line_map[line - 1] if not self.complete else line


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        return min(node.lineno, *(d.lineno for d in decorators))
    return node.lineno


def _last_line(node: ast.stmt) -> int:
    return node.end_lineno or node.lineno


def _expr_last_line(node: ast.expr) -> int:
    return node.end_lineno or node.lineno


class UnitIndex:
    """The units of one file and which lines each one owns."""

    def __init__(self, tree: ast.Module) -> None:
        self.units: list[Unit] = []
        script = Unit()
        for statement in tree.body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(statement, _DEFS):
                self._add(Unit([(_first_line(statement), _last_line(statement))]))
            elif isinstance(statement, ast.ClassDef):
                self._add_class(statement, parent=-1)
            else:
                script.ranges.append((_first_line(statement), _last_line(statement)))
        if script.ranges:
            self._add(script)
        self._starts: list[int] = []
        self._owners: list[tuple[int, int, int]] = []
        spans = sorted((first, last, index) for index, unit in enumerate(self.units) for first, last in unit.ranges)
        self._owners = spans
        self._starts = [first for first, _, _ in spans]

    def _add(self, unit: Unit) -> int:
        self.units.append(unit)
        return len(self.units) - 1

    def _add_class(self, node: ast.ClassDef, parent: int) -> None:
        first = _first_line(node)
        header_last = node.body[0].lineno - 1
        header_end = max([node.lineno] + [_expr_last_line(e) for e in [*node.bases, *(k.value for k in node.keywords)]])
        if header_last < header_end:
            # One-line or oddly wrapped class: keep it whole.
            self._add(Unit([(first, _last_line(node))], parent=parent))
            return
        header = self._add(Unit([(first, header_last)], parent=parent, is_header=True))
        statements = Unit(parent=header)
        for statement in node.body:
            if isinstance(statement, _DEFS):
                self._add(Unit([(_first_line(statement), _last_line(statement))], parent=header))
            elif isinstance(statement, ast.ClassDef):
                self._add_class(statement, parent=header)
            else:
                statements.ranges.append((_first_line(statement), _last_line(statement)))
        if statements.ranges:
            self._add(statements)

    def unit_of_line(self, line: int) -> int:
        position = bisect_right(self._starts, line) - 1
        if position < 0:
            return -1
        first, last, index = self._owners[position]
        return index if first <= line <= last else -1

    def _units_matching(self, index: LineIndex, pattern: re.Pattern[str]) -> set[int]:
        return {
            u for u in (self.unit_of_line(index.line_of(m.start())) for m in pattern.finditer(index.text)) if u >= 0
        }

    def select(self, index: LineIndex, specs: Iterable[MarkerSpec]) -> set[int]:
        """Units some spec wants, plus the class headers around them."""
        units_of: dict[re.Pattern[str], set[int]] = {}
        selected: set[int] = set()
        for spec in specs:
            units: set[int] | None = None
            for pattern in spec.patterns:
                found = units_of.get(pattern)
                if found is None:
                    found = units_of[pattern] = self._units_matching(index, pattern)
                units = found if units is None else units & found
                if not units:
                    break
            if not units:
                continue
            if spec.whole_class:
                parents = {self.units[u].parent for u in units if self.units[u].parent >= 0}
                units |= {i for i, unit in enumerate(self.units) if unit.parent in parents}
            selected |= units
        # A kept member needs the headers of every class around it.
        for member in list(selected):
            parent = self.units[member].parent
            while parent >= 0 and parent not in selected:
                selected.add(parent)
                parent = self.units[parent].parent
        # A header alone would be an empty class body.
        return {u for u in selected if not self.units[u].is_header or any(self.units[m].parent == u for m in selected)}

    def sparse_source(self, index: LineIndex, selected: set[int]) -> SparseSource:
        kept: set[int] = set()
        for unit in selected:
            for first, last in self.units[unit].ranges:
                kept.update(range(first, last + 1))
        if len(kept) >= index.line_count:
            return SparseSource(index.text, [], complete=True)
        line_map = sorted(line for line in kept if line <= index.line_count)
        return SparseSource("".join(index.line_with_ending(line) for line in line_map), line_map, complete=False)
