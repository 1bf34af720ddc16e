"""Cheap selection of the code worth a LibCST parse.

A LibCST parse costs about ten times an ``ast.parse``, and most code in a
PyTorch project holds nothing any rule could report.  Before parsing, the
engine cuts the file into *units* using the ``ast`` tree (which flake8 has
already built): each top-level function, each method, the statements of each
class body, and all top-level script statements together.  A rule names the
text markers (regular expressions) that must all occur in a unit for it to be
able to fire there; only the units some enabled rule wants are kept (and, for
the device flow, the code they call, are called from and their classes), along
with the headers of their enclosing classes.  The kept lines are joined into a
smaller program whose lines map back to the original ones, so positions stay
exact and fixes edit the original text.

Markers are necessary conditions, never heuristics: a rule that could fire in
a unit must find its markers there, or (a flow rule) the unit is one the flow
of a marked unit reads.  Over-selecting costs time; under-selecting
would lose findings, which the fixture tests guard against (every fixture also
runs with the selection disabled).
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Union

from flake8_device.source import LineIndex

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class Unit:
    """Line ranges (1-based, inclusive) that are kept or dropped together."""

    ranges: list[tuple[int, int]] = field(default_factory=list)
    # Index of the enclosing class's header unit, or -1 at module level.
    parent: int = -1
    # "function" (top level), "method", "statements" (top-level script or a class body's
    # statements), "class" (a class kept whole) or "header" (a class's first lines).
    kind: str = "statements"
    # The function's name for functions and methods.
    name: str | None = None
    # The ``ast`` nodes the unit holds (a function, or a class's or the script's statements).
    nodes: list[ast.stmt] = field(default_factory=list)

    @property
    def is_header(self) -> bool:
        return self.kind == "header"


# ``wants(unit, contains)``: a rule's last word on a unit its markers matched; ``contains``
# tells whether a literal occurs in the unit's text.
UnitFilter = Callable[[Unit, Callable[[str], bool]], bool]


# A marker: a compiled pattern, a template the engine fills in per file (see
# Rule.marker_spec_for), or a tuple of those of which any may match.
Marker = Union[re.Pattern[str], str, tuple[Union[re.Pattern[str], str], ...]]


@dataclass(frozen=True)
class MarkerSpec:
    """All ``patterns`` must match inside one unit; ``whole_class`` keeps sibling methods too."""

    patterns: tuple[Marker, ...]
    whole_class: bool = False
    wants: UnitFilter | None = None
    # Markers that must each occur somewhere in the file (see Rule.file_markers).
    file_patterns: tuple[Marker, ...] = ()

    def for_file(self, vocabulary: dict[str, str]) -> MarkerSpec:
        """This spec with its templates filled in from the file's vocabulary (``{modules}`` ...)."""
        if not any(isinstance(p, (str, tuple)) for p in (*self.patterns, *self.file_patterns)):
            return self
        return MarkerSpec(
            tuple(_filled(p, vocabulary) for p in self.patterns),
            self.whole_class,
            self.wants,
            tuple(_filled(p, vocabulary) for p in self.file_patterns),
        )


def _filled(marker: Marker, vocabulary: dict[str, str]) -> Marker:
    if isinstance(marker, tuple):
        return tuple(_filled(m, vocabulary) for m in marker)  # type: ignore[misc]
    return LazyPattern(_fill(marker, vocabulary)) if isinstance(marker, str) else marker  # type: ignore[return-value]


class LazyPattern:
    """A per-file pattern compiled on first use: most files never need most of them."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return _compiled(self.pattern).search(text, pos, endpos)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return _compiled(self.pattern).finditer(text)

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LazyPattern) and other.pattern == self.pattern


def _fill(template: str, vocabulary: dict[str, str]) -> str:
    for name, pattern in vocabulary.items():
        template = template.replace("{" + name + "}", pattern)
    return _without_dead_branches(template)


# What an empty vocabulary entry becomes (a pattern that never matches), bare or grouped.
_NEVER = ("(?!)", "(?:(?!))")


def _without_dead_branches(pattern: str) -> str:
    """``pattern`` less its top-level alternatives that start with a never-matching group.

    They cannot match, but a branch that does not start with a literal character turns off
    ``re``'s first-character scan for the whole pattern (several times slower on a file)."""
    if "(?!)" not in pattern:
        return pattern
    branches, depth, start, escaped, in_class = [], 0, 0, False, False
    for position, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            branches.append(pattern[start:position])
            start = position + 1
    branches.append(pattern[start:])
    alive = [b for b in branches if not b.startswith(_NEVER)]
    return "|".join(alive) if alive else "(?!)"


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# What a unit's source text says it calls and does with ``self`` (``{self}``: the name of its first
# parameter).  Read from the text, not the tree: the flow context is a superset (calls written in
# comments or strings only add context), and a scan of the text is much cheaper than a tree walk.
_NAME_CALL = re.compile(r"(?<![\w.])(?<!def )(?<!class )([A-Za-z_]\w*)\s*\(")
_ATTRIBUTE_CALL = re.compile(r"\.([A-Za-z_]\w*)\s*\(")
_SUPER_CALL = re.compile(r"super\s*\([^()]*\)\s*\.(\w+)\s*\(")
_SELF_CALL = r"(?<![\w.]){self}\.(\w+)\s*\("
_SELF_MOVED = r"(?<![\w.]){self}\.(\w+)\.(?:to|cuda|cpu)\s*\("
_SELF_MENTION = r"(?<![\w.]){self}\.(\w+)"
# ``self.x = ``, ``self.x: T = ``, ``self.x += ``, and the ``self.a`` of ``self.a, self.b = ...``.
_SELF_SET = (
    r"(?<![\w.]){self}\.(\w+)"
    r"(?:\s*(?::[^=\n]*)?(?:[-+*/@%&|^]|//|\*\*|<<|>>)?=(?!=)|(?=\s*,[^=\n]*[^=!<>]=(?!=)))"
)


@dataclass
class _UnitFacts:
    """What a unit calls, and which attributes of ``self`` it reads and sets (from its text)."""

    # Every name called (``f(...)``, ``x.f(...)``), those called bare (``f(...)``), and those called on
    # ``self`` or ``super()``.
    calls: set[str] = field(default_factory=set)
    name_calls: set[str] = field(default_factory=set)
    self_calls: set[str] = field(default_factory=set)
    reads: set[str] = field(default_factory=set)
    # An in-place move of an attribute (``self.x.to(...)``) counts as setting it.
    sets: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, text: str, self_name: str) -> _UnitFacts:
        facts = cls()
        facts.name_calls = set(_NAME_CALL.findall(text))
        facts.calls = facts.name_calls | set(_ATTRIBUTE_CALL.findall(text))
        facts.self_calls = set(_SUPER_CALL.findall(text))
        if self_name + "." in text:
            name = re.escape(self_name)
            facts.self_calls.update(_compiled(_SELF_CALL.format(self=name)).findall(text))
            set_at = _compiled(_SELF_SET.format(self=name)).findall(text)
            facts.sets = set(set_at) | set(_compiled(_SELF_MOVED.format(self=name)).findall(text))
            # Read: mentioned more often than assigned.
            mentions: dict[str, int] = {}
            for attribute in _compiled(_SELF_MENTION.format(self=name)).findall(text):
                mentions[attribute] = mentions.get(attribute, 0) + 1
            for attribute in set_at:
                mentions[attribute] -= 1
            facts.reads = {a for a, count in mentions.items() if count > 0}
        return facts


def _self_name(nodes: list[ast.stmt]) -> str:
    """The name a method calls its instance (its first parameter; ``self`` elsewhere)."""
    if len(nodes) == 1 and isinstance(nodes[0], _DEFS) and nodes[0].args.args:
        return nodes[0].args.args[0].arg
    return "self"


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
                span = [(_first_line(statement), _last_line(statement))]
                self._add(Unit(span, kind="function", name=statement.name, nodes=[statement]))
            elif isinstance(statement, ast.ClassDef):
                self._add_class(statement, parent=-1)
            else:
                script.ranges.append((_first_line(statement), _last_line(statement)))
                script.nodes.append(statement)
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
            self._add(Unit([(first, _last_line(node))], parent=parent, kind="class"))
            return
        header = self._add(Unit([(first, header_last)], parent=parent, kind="header", name=node.name, nodes=[node]))
        statements = Unit(parent=header)
        for statement in node.body:
            if isinstance(statement, _DEFS):
                span = [(_first_line(statement), _last_line(statement))]
                self._add(Unit(span, parent=header, kind="method", name=statement.name, nodes=[statement]))
            elif isinstance(statement, ast.ClassDef):
                self._add_class(statement, parent=header)
            else:
                statements.ranges.append((_first_line(statement), _last_line(statement)))
                statements.nodes.append(statement)
        if statements.ranges:
            self._add(statements)

    def unit_of_line(self, line: int) -> int:
        position = bisect_right(self._starts, line) - 1
        if position < 0:
            return -1
        first, last, index = self._owners[position]
        return index if first <= line <= last else -1

    def _units_matching(self, index: LineIndex, pattern: re.Pattern[str]) -> set[int]:
        """The units where ``pattern`` matches (after a match, the search goes on from the end of
        the lines that unit owns there: a common pattern matches a file thousands of times)."""
        text, starts, found = index.text, index.starts, set()
        position = 0
        while (match := pattern.search(text, position)) is not None:
            position = max(match.end(), match.start() + 1)
            line = index.line_of(match.start())
            owner = bisect_right(self._starts, line) - 1
            if owner >= 0:
                first, last, unit = self._owners[owner]
                if first <= line <= last:
                    found.add(unit)
                    position = max(position, starts[last] if last < len(starts) else len(text))
        return found

    def _unit_contains(self, index: LineIndex, unit: int, marker: Marker) -> bool:
        starts, text = index.starts, index.text
        patterns = marker if isinstance(marker, tuple) else (marker,)
        for first, last in self.units[unit].ranges:
            end = starts[last] if last < len(starts) else len(text)
            if any(p.search(text, starts[first - 1], end) for p in patterns):  # type: ignore[union-attr]
                return True
        return False

    def _unit_contains_literal(self, index: LineIndex, unit: int, literal: str) -> bool:
        starts, text = index.starts, index.text
        for first, last in self.units[unit].ranges:
            end = starts[last] if last < len(starts) else len(text)
            if text.find(literal, starts[first - 1], end) >= 0:
                return True
        return False

    def wanted(self, index: LineIndex, units: Iterable[int], spec: MarkerSpec) -> set[int]:
        """Of ``units``, those the spec's rule can report in at all (its ``wants_unit``), whatever
        its markers: where a flow rule reports, in the code the flow read beside its own units."""
        return {unit for unit in units if self._wants(index, unit, spec)}

    def _wants(self, index: LineIndex, unit: int, spec: MarkerSpec) -> bool:
        """The spec's rule's last word on ``unit`` (its ``wants_unit``; yes where it has none)."""
        return spec.wants is None or spec.wants(
            self.units[unit], lambda literal: self._unit_contains_literal(index, unit, literal)
        )

    def select(self, index: LineIndex, specs: Iterable[MarkerSpec]) -> list[set[int]]:
        """The units each spec wants (see :meth:`with_headers` for what to keep).

        A spec's first pattern is scanned over the whole text (so it should be the
        cheapest and rarest: a literal start makes Python's ``re`` fast); the others
        are only searched inside the units the first one found.
        """
        lead_hits: dict[re.Pattern[str], set[int]] = {}
        contains: dict[tuple[re.Pattern[str], int], bool] = {}
        chosen: list[set[int]] = []
        for spec in specs:
            lead, *rest = spec.patterns
            units = lead_hits.get(lead)
            if units is None:
                units = lead_hits[lead] = self._units_matching(index, lead)
            wanted = set()
            for unit in units:
                for pattern in rest:
                    key = (pattern, unit)
                    found = contains.get(key)
                    if found is None:
                        found = contains[key] = self._unit_contains(index, unit, pattern)
                    if not found:
                        break
                else:
                    if self._wants(index, unit, spec):
                        wanted.add(unit)
            if wanted and spec.whole_class:
                parents = {self.units[u].parent for u in wanted if self.units[u].parent >= 0}
                wanted |= {i for i, unit in enumerate(self.units) if unit.parent in parents}
            chosen.append(wanted)
        return chosen

    def flow_context(self, index: LineIndex, selected: set[int], depth: int = 2) -> set[int]:
        """The units the device flow of ``selected`` reads, up to ``depth`` steps away: the functions
        and methods they call, the classes they instantiate (construction, ``forward``/``__call__``,
        the methods called on the instances), the methods of their own class that set the attributes
        they read, read those they set, or construct it, and the code that calls them (which gives
        their parameters and the attributes ``self`` has); and the same again around what was added."""
        facts = self._facts(index)
        wanted = set(selected)
        frontier = set(selected)
        for _ in range(depth):
            found: set[int] = set()
            for unit in frontier:
                found |= self._callees(unit, facts) | self._callers(unit, facts)
            found -= wanted
            wanted |= found
            frontier = found
        return wanted

    def _callees(self, unit: int, facts: dict[int, _UnitFacts]) -> set[int]:
        fact = facts.get(unit)
        if fact is None:
            return set()
        found: set[int] = set()
        for name in fact.name_calls:
            found |= self._functions_named.get(name, set())
        instantiated = {c for name in fact.name_calls for c in self._classes_named.get(name, set())}
        for c in instantiated:
            # Its construction and calls; at least one member, so that its bases are known.
            found |= self._members(c, ("__init__", "forward", "__call__")) or set(sorted(self._members(c))[:1])
        # ``obj.m(...)``: the methods of that name in the file's classes (whichever ``obj`` is).
        for name in fact.calls - fact.name_calls:
            if not name.startswith("__"):  # ``super().__init__()``: its own class's, found below
                found |= self._methods_named.get(name, set())
        parent = self.units[unit].parent
        if parent >= 0:
            found |= self._members(parent, fact.self_calls | {"__init__"})
            # (Those reading what it sets too: a tensor made here is reported here where it meets there.)
            found |= {
                m
                for m in self._members(parent)
                if facts.get(m) and (facts[m].sets & fact.reads or facts[m].reads & fact.sets)
            }
        return found

    def _callers(self, unit: int, facts: dict[int, _UnitFacts]) -> set[int]:
        name, parent, kind = self.units[unit].name, self.units[unit].parent, self.units[unit].kind
        if name is None:
            return set()
        if kind == "function":
            return self._calling_by_name.get(name, set())
        if kind != "method" or parent < 0:
            return set()
        made = self._calling_by_name.get(self.units[parent].name or "", set())  # ``Cls(...)``
        if name == "__init__":
            return made
        if name in ("__call__", "forward"):  # the code that makes an instance usually calls it
            return made | self._calling.get(name, set())
        return self._calling.get(name, set())  # ``self.m()``, ``obj.m()``

    def _members(self, header: int, names: Iterable[str] | None = None) -> set[int]:
        """The method units of the class whose header unit is ``header`` (only ``names`` if given)."""
        members = getattr(self, "_members_cache", None)
        if members is None:
            members = self._members_cache = {}
            for i, unit in enumerate(self.units):
                if unit.kind == "method":
                    members.setdefault(unit.parent, []).append(i)
        chosen = set(names) if names is not None else None
        return {i for i in members.get(header, ()) if chosen is None or self.units[i].name in chosen}

    def _facts(self, lines: LineIndex) -> dict[int, _UnitFacts]:
        cached = getattr(self, "_facts_cache", None)
        if cached is not None:
            return cached
        facts: dict[int, _UnitFacts] = {}
        self._functions_named: dict[str, set[int]] = {}
        self._methods_named: dict[str, set[int]] = {}
        self._classes_named: dict[str, set[int]] = {}
        for index, unit in enumerate(self.units):
            if unit.kind == "function" and unit.name:
                self._functions_named.setdefault(unit.name, set()).add(index)
            if unit.kind == "method" and unit.name:
                self._methods_named.setdefault(unit.name, set()).add(index)
            if unit.kind == "header" and unit.name:
                self._classes_named.setdefault(unit.name, set()).add(index)
            if unit.kind in ("function", "method", "statements"):
                facts[index] = _UnitFacts.of(self._text(index, lines), _self_name(unit.nodes))
        # Who calls a name: bare (``f(...)``, ``Cls(...)``), or in any way (``obj.f(...)`` too).
        self._calling_by_name: dict[str, set[int]] = {}
        self._calling: dict[str, set[int]] = {}
        for index, fact in facts.items():
            for name in fact.name_calls:
                self._calling_by_name.setdefault(name, set()).add(index)
            for name in fact.calls:
                self._calling.setdefault(name, set()).add(index)
        self._facts_cache = facts
        return facts

    def _text(self, unit: int, index: LineIndex) -> str:
        starts, text = index.starts, index.text
        return "".join(
            text[starts[first - 1] : starts[last] if last < len(starts) else len(text)]
            for first, last in self.units[unit].ranges
        )

    def with_headers(self, selected: set[int]) -> set[int]:
        """``selected`` plus the class headers around its members."""
        selected = set(selected)
        # A kept member needs the headers of every class around it.
        for member in list(selected):
            parent = self.units[member].parent
            while parent >= 0 and parent not in selected:
                selected.add(parent)
                parent = self.units[parent].parent
        # A header alone would be an empty class body.
        return {u for u in selected if not self.units[u].is_header or any(self.units[m].parent == u for m in selected)}

    def line_ranges(self, units: Iterable[int]) -> list[tuple[int, int]]:
        return sorted(span for unit in units for span in self.units[unit].ranges)

    def sparse_source(self, index: LineIndex, selected: set[int]) -> SparseSource:
        kept: set[int] = set()
        for unit in selected:
            for first, last in self.units[unit].ranges:
                kept.update(range(first, last + 1))
        if len(kept) >= index.line_count:
            return SparseSource(index.text, [], complete=True)
        line_map = sorted(line for line in kept if line <= index.line_count)
        return SparseSource("".join(index.line_with_ending(line) for line in line_map), line_map, complete=False)
