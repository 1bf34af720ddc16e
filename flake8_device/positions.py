"""Where nodes of the parsed code are, computed for the top-level statements that are asked about.

LibCST's ``PositionProvider`` generates the code of the whole module to place every node: on a
large file that costs more than the parse (numpy's 10,578-line ``test_multiarray.py``: 3.5 s of
its 5 s lint went there, for three findings).  Positions are asked for a few nodes (findings,
fix edits, proofs), so they are computed one top-level statement at a time: the statement alone
is placed by LibCST (the same code generation, on a module holding just that statement), then
shifted to its line in the file, which the ``ast`` of the parsed text gives without generating
anything.  Top-level statements start at column 0, so lines are all that shift.  Anything this
cannot answer (a node outside the statements, ``ast`` and LibCST disagreeing on the statements)
falls back to LibCST's whole-module positions, as does iterating over all positions.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from flake8_device.walk import children


def whole_module_positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


class LazyPositions(Mapping[cst.CSTNode, CodeRange]):
    """``PositionProvider``'s answers for ``module`` (parsed from ``text``), one statement at a time.

    ``guard`` wraps each code generation (the caller's recursion allowance)."""

    def __init__(self, module: cst.Module, text: str, guard: Callable[[], AbstractContextManager[None]]) -> None:
        self.module = module
        self.text = text
        self._guard = guard
        self._statement_of: dict[cst.CSTNode, int] | None = None
        self._first_lines: list[int] | None = None
        self._by_statement: dict[int, Mapping[cst.CSTNode, CodeRange]] = {}
        self._whole: Mapping[cst.CSTNode, CodeRange] | None = None

    # -- Mapping -------------------------------------------------------------------------------
    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self._lookup(node)
        if found is None:
            raise KeyError(node)
        return found

    def get(self, node: cst.CSTNode, default: CodeRange | None = None) -> CodeRange | None:  # type: ignore[override]
        found = self._lookup(node)
        return default if found is None else found

    def __contains__(self, node: object) -> bool:
        return isinstance(node, cst.CSTNode) and self._lookup(node) is not None

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())

    # -- computing ------------------------------------------------------------------------------
    def _everything(self) -> Mapping[cst.CSTNode, CodeRange]:
        if self._whole is None:
            with self._guard():
                self._whole = whole_module_positions(self.module)
        return self._whole

    def _lookup(self, node: cst.CSTNode) -> CodeRange | None:
        if self._whole is not None:
            return self._whole.get(node)
        index = self._index().get(node)
        lines = self._lines()
        if index is None or lines is None:
            return self._everything().get(node)
        placed = self._by_statement.get(index)
        if placed is None:
            placed = self._by_statement[index] = self._place(index, lines[index])
        found = placed.get(node)
        return found if found is not None else self._everything().get(node)

    def _index(self) -> dict[cst.CSTNode, int]:
        """Each code node -> the index of the top-level statement holding it (one walk, no codegen)."""
        if self._statement_of is None:
            found: dict[cst.CSTNode, int] = {}
            for index, statement in enumerate(self.module.body):
                stack: list[cst.CSTNode] = [statement]
                while stack:
                    node = stack.pop()
                    found[node] = index
                    stack.extend(children(node))
            self._statement_of = found
        return self._statement_of

    def _lines(self) -> list[int] | None:
        """The first line of each top-level statement (``def``/``class`` lines, not decorators, as
        LibCST places them); None where ``ast`` sees other statements than LibCST."""
        if self._first_lines is None:
            try:
                tree = ast.parse(self.text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
            lines: list[int] = []
            statements = iter(tree.body)
            for statement in self.module.body:
                first = next(statements, None)
                if first is None:
                    return None
                if isinstance(statement, cst.SimpleStatementLine):
                    for _ in statement.body[1:]:  # ``a = 1; b = 2``: one LibCST line, two ``ast`` statements
                        next(statements, None)
                lines.append(first.lineno)
            if next(statements, None) is not None:
                return None
            self._first_lines = lines
        return self._first_lines

    def _place(self, index: int, line: int) -> Mapping[cst.CSTNode, CodeRange]:
        statement = self.module.body[index]
        alone = self.module.with_changes(body=[statement], header=[], footer=[])
        with self._guard():
            placed = whole_module_positions(alone)
        shift = line - placed[statement].start.line
        if shift == 0:
            return placed
        return {
            node: CodeRange((where.start.line + shift, where.start.column), (where.end.line + shift, where.end.column))
            for node, where in placed.items()
        }
