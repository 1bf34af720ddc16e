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

Within a top-level statement, the same holds one block down: a statement of a function's (or a
class's, an ``if``'s, a loop's, a ``with``'s, a ``try``'s) indented body is placed alone, with the
indentation of the blocks around it, when ``ast`` and LibCST agree on that body's statements, so a
finding in a long function generates the code of its own statement, not of the whole function.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from flake8_device.walk import children


def whole_module_positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


# The compound statements whose indented ``body`` is the ``body`` of the matching ``ast`` statement.
_BODY_OWNERS: dict[type[cst.CSTNode], tuple[type[ast.stmt], ...]] = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.If: (ast.If,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
}


_COMPOUND: tuple[type[ast.stmt], ...] = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
    ast.AsyncWith, ast.Try, *(getattr(ast, name) for name in ("Match", "TryStar") if hasattr(ast, name)),
)


def _statement_lines(block: Sequence[cst.BaseStatement], statements: Sequence[ast.stmt]) -> list[ast.stmt] | None:
    """The ``ast`` statement each LibCST statement of ``block`` starts with (``a = 1; b = 2`` is one
    LibCST line and two ``ast`` statements); None where the two disagree on the statements."""
    firsts: list[ast.stmt] = []
    position = 0
    for statement in block:
        if position >= len(statements):
            return None
        if isinstance(statement, cst.SimpleStatementLine) == isinstance(statements[position], _COMPOUND):
            return None
        firsts.append(statements[position])
        position += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return firsts if position == len(statements) else None


def _placed_alone(
    statement: cst.BaseStatement, indents: Sequence[str], module: cst.Module
) -> dict[cst.CSTNode, CodeRange]:
    """``PositionProvider``'s positions for ``statement`` generated alone from line 1, inside blocks
    indented by ``indents`` (so its columns are those of the file)."""

    class _Provider:  # what the codegen state records positions in
        def __init__(self) -> None:
            self._computed: dict[cst.CSTNode, CodeRange] = {}

    provider = _Provider()
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=provider,  # type: ignore[arg-type]
    )
    state.indent_tokens = list(indents)
    statement._codegen(state)
    return provider._computed


# The ``ast`` tree the engine already has for the text it parses (see ``known_tree``), per thread.
_KNOWN = threading.local()


def known_tree(text: str | None, tree: ast.Module | None = None, line_map: Sequence[int] | None = None) -> None:
    """Tell positions that ``text`` is the program of ``tree`` with only the lines ``line_map`` kept
    (None: all of them), so that ``LazyPositions`` of that very string need no ``ast`` parse of their
    own; ``known_tree(None)`` forgets it."""
    _KNOWN.entry = (text, tree, line_map) if text is not None else None


class LazyPositions(Mapping[cst.CSTNode, CodeRange]):
    """``PositionProvider``'s answers for ``module`` (parsed from ``text``), one statement at a time.

    ``guard`` wraps each code generation (the caller's recursion allowance)."""

    def __init__(self, module: cst.Module, text: str, guard: Callable[[], AbstractContextManager[None]]) -> None:
        self.module = module
        self.text = text
        self._guard = guard
        # Each code node -> the node holding it (top-level statements: none), from one walk without codegen.
        self._parent: dict[cst.CSTNode, cst.CSTNode] | None = None
        self._top_index: dict[cst.CSTNode, int] = {}
        # The ``ast`` statement each top-level LibCST statement starts with (None: they disagree), and
        # the line of ``text`` that an ``ast`` line is (None: dropped), when the ``ast`` is of another text.
        self._top_statements: list[ast.stmt] | None = None
        self._parsed = False
        self._line_in_text: Callable[[int], int | None] | None = None
        # An indented block -> the ``ast`` statement each of its statements starts with (None: they disagree).
        self._block_statements: dict[cst.IndentedBlock, list[ast.stmt] | None] = {}
        # A statement placed alone -> its nodes' positions, and the lines to add to them.
        self._placed: dict[cst.CSTNode, tuple[Mapping[cst.CSTNode, CodeRange], int]] = {}
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
        path = self._path(node)
        tops = self._tops()
        if path is None or tops is None:
            return self._everything().get(node)
        innermost = self._innermost(path, tops[self._top_index[path[0]]])
        if innermost is None:
            return self._everything().get(node)
        statement, line, indents = innermost
        placed = self._placed.get(statement)
        if placed is None:
            placed = self._placed[statement] = self._place(statement, line, indents)
        where, shift = placed
        found = where.get(node)
        if found is None:
            return self._everything().get(node)
        if shift == 0:
            return found
        return CodeRange((found.start.line + shift, found.start.column), (found.end.line + shift, found.end.column))

    def _path(self, node: cst.CSTNode) -> list[cst.CSTNode] | None:
        """The nodes from the top-level statement holding ``node`` down to ``node`` (None: none holds it)."""
        if self._parent is None:
            parents: dict[cst.CSTNode, cst.CSTNode] = {}
            for index, statement in enumerate(self.module.body):
                self._top_index[statement] = index
                stack: list[cst.CSTNode] = [statement]
                while stack:
                    above = stack.pop()
                    for child in children(above):
                        parents[child] = above
                        stack.append(child)
            self._parent = parents
        path = [node]
        parent = self._parent.get(node)
        while parent is not None:
            path.append(parent)
            parent = self._parent.get(parent)
        if path[-1] not in self._top_index:
            return None
        path.reverse()
        return path

    def _tops(self) -> list[ast.stmt] | None:
        """The ``ast`` statement each top-level statement starts with; None where ``ast`` sees other
        statements than LibCST."""
        if not self._parsed:
            self._parsed = True
            if self._known_statements():
                return self._top_statements
            try:
                tree = ast.parse(self.text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
            self._top_statements = _statement_lines(self.module.body, tree.body)
        return self._top_statements

    def _known_statements(self) -> bool:
        """The top-level statements from the tree the engine registered for this very text, if any."""
        entry = getattr(_KNOWN, "entry", None)
        if entry is None or entry[0] is not self.text:
            return False
        _, tree, line_map = entry
        if line_map is None:
            self._top_statements = _statement_lines(self.module.body, tree.body)
            return True
        line_in_text = {line: number for number, line in enumerate(line_map, start=1)}
        kept = [s for s in tree.body if s.lineno in line_in_text]
        tops = _statement_lines(self.module.body, kept)
        if tops is None:
            return False
        self._top_statements, self._line_in_text = tops, line_in_text.get
        return True

    def _line(self, statement: ast.stmt) -> int | None:
        return statement.lineno if self._line_in_text is None else self._line_in_text(statement.lineno)

    def _innermost(
        self, path: list[cst.CSTNode], top: ast.stmt
    ) -> tuple[cst.BaseStatement, int, list[str]] | None:
        """The innermost statement on ``path`` whose line ``ast`` gives (``def``/``class`` lines, not
        decorators, as LibCST places them), that line, and the indentation of the blocks around it."""
        statement, match = path[0], top
        line = self._line(top)
        if line is None:
            return None
        indents: list[str] = []
        # ``path``: the statement, its indented block, a statement of that block, its block ...
        for position in range(1, len(path) - 1, 2):
            block, inner = path[position], path[position + 1]
            owners = _BODY_OWNERS.get(type(statement))
            if owners is None or not isinstance(match, owners) or getattr(statement, "body", None) is not block:
                break
            if not isinstance(block, cst.IndentedBlock):
                break
            if block not in self._block_statements:
                self._block_statements[block] = _statement_lines(block.body, match.body)  # type: ignore[attr-defined]
            firsts = self._block_statements[block]
            if firsts is None:
                break
            number = next((i for i, s in enumerate(block.body) if s is inner), None)
            if number is None:  # the block's own whitespace or comments
                break
            inner_line = self._line(firsts[number])
            if inner_line is None:
                break
            indents.append(self.module.default_indent if block.indent is None else block.indent)
            statement, match, line = inner, firsts[number], inner_line
        return statement, line, indents  # type: ignore[return-value]

    def _place(
        self, statement: cst.BaseStatement, line: int, indents: list[str]
    ) -> tuple[Mapping[cst.CSTNode, CodeRange], int]:
        """``statement``'s nodes placed alone, and the lines to add to put it on ``line``."""
        with self._guard():
            placed = _placed_alone(statement, indents, self.module)
        return placed, line - placed[statement].start.line
