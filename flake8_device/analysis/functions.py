"""Where each function is in the original file, and what its text says about its parameters.

The LibCST tree the rules see holds only the selected units and carries no
positions (resolving them costs a code generation pass), so facts that need a
function's extent come from the ``ast`` instead: functions are identified by
their path of names (``("Net", "forward")``, ``("main", "helper")``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from flake8_device.source import LineIndex

Path = tuple[str, ...]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = tuple(t for t in (ast.If, ast.Try, getattr(ast, "TryStar", None), ast.With, ast.For, ast.While) if t)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    return min([node.lineno, *(d.lineno for d in decorators or ())])


class FunctionTable:
    def __init__(self, tree: ast.Module | None, index: LineIndex) -> None:
        self.index = index
        self.spans: dict[Path, list[tuple[int, int]]] = {}
        self._evidence: dict[tuple[Path, frozenset[str]], tuple[set[str], bool]] = {}
        # First lines of the top-level statements that are not definitions (the "script").
        self.script_lines: list[int] = []
        if tree is not None:
            self._collect(tree.body, ())
            self.script_lines = [
                s.lineno for s in tree.body if not isinstance(s, (*_DEFS, ast.ClassDef, ast.Import, ast.ImportFrom))
            ]

    def _collect(self, body: Iterable[ast.stmt], path: Path) -> None:
        # (A stack, not recursion: an ``elif`` chain of a thousand arms nests a thousand deep.)
        todo: list[tuple[list[ast.stmt], Path]] = [(list(body), path)]
        while todo:
            statements, where = todo.pop()
            if not statements:
                continue
            statement, rest = statements[0], statements[1:]
            todo.append((rest, where))  # the statements after this one, once its blocks are done
            if isinstance(statement, _DEFS + (ast.ClassDef,)):
                inner = (*where, statement.name)
                if not isinstance(statement, ast.ClassDef):
                    span = (_first_line(statement), statement.end_lineno or statement.lineno)
                    self.spans.setdefault(inner, []).append(span)
                todo.append((list(statement.body), inner))
            elif isinstance(statement, _BLOCKS):
                blocks = [getattr(statement, b, ()) for b in ("body", "orelse", "finalbody")]
                blocks += [handler.body for handler in getattr(statement, "handlers", ())]
                todo.extend((list(block), where) for block in reversed(blocks))

    def text(self, path: Path) -> str | None:
        """The source of every function defined at ``path`` (several when redefined)."""
        spans = self.spans.get(path)
        if spans is None:
            return None
        index = self.index
        return "".join(
            index.text[index.starts[first - 1] : index.starts[last] if last < len(index.starts) else len(index.text)]
            for first, last in spans
        )

    def first_lines(self, path: Path) -> list[int]:
        return [first for first, _ in self.spans.get(path, ())]

    def evidence(self, path: Path, attributes: frozenset[str]) -> tuple[set[str], bool] | None:
        """Names used like tensors (``x.size``) and whether a device is mentioned, or None if unknown."""
        key = (path, attributes)
        cached = self._evidence.get(key)
        if cached is None:
            text = self.text(path)
            if text is None:
                return None
            code = _PROSE.sub("", text)
            pattern = _evidence_pattern(attributes)
            cached = self._evidence[key] = ({m.group(1) for m in pattern.finditer(code)}, "device" in code)
        return cached


_PATTERNS: dict[frozenset[str], re.Pattern[str]] = {}
# Docstrings and comments, roughly (a "#" inside a string may cut a little code: the
# evidence only gets weaker, never invented).
_PROSE = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|#[^\n]*')


def _evidence_pattern(attributes: frozenset[str]) -> re.Pattern[str]:
    pattern = _PATTERNS.get(attributes)
    if pattern is None:
        names = "|".join(sorted(attributes))
        pattern = _PATTERNS[attributes] = re.compile(rf"\b([A-Za-z_]\w*)\s*\.\s*(?:{names})\b")
    return pattern
