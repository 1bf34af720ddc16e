"""Which names are bound on every path to a statement: the proof a fix needs before it inserts a name.

Deliberately small and conservative, on the stdlib ``ast``: assignments, imports,
definitions and ``with ... as`` bind; an ``if`` binds what both branches bind; a
``try`` what its body and every handler bind; loops never bind (they may not run);
a block that always exits (``return``, ``raise``) binds everything after it (that
code is unreachable).  No aliasing, no ``global``/``nonlocal``, no ``del``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

# A chain of (block, index) from a scope's body down to one statement.
Chain = tuple[tuple[list[ast.stmt], int], ...]


def target_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from target_names(element)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


EVERYTHING = frozenset({"*"})  # what an unreachable point binds


def with_names(statement: ast.With | ast.AsyncWith) -> set[str]:
    return {n for item in statement.items if item.optional_vars is not None for n in target_names(item.optional_vars)}


def _exits(statement: ast.stmt) -> bool:
    return isinstance(statement, (ast.Return, ast.Raise, ast.Continue, ast.Break))


def block_binds(body: Iterable[ast.stmt]) -> frozenset[str]:
    """Names every complete run of ``body`` binds (``EVERYTHING`` when it never completes)."""
    bound: set[str] = set()
    for statement in body:
        names = _statement_binds(statement)
        if names is EVERYTHING:
            return EVERYTHING
        bound |= names
    return frozenset(bound)


def _statement_binds(statement: ast.stmt) -> frozenset[str]:
    if _exits(statement):
        return EVERYTHING
    if isinstance(statement, ast.Assign):
        return frozenset(n for t in statement.targets for n in target_names(t))
    if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) and (
        not isinstance(statement, ast.AnnAssign) or statement.value is not None
    ):
        return frozenset(target_names(statement.target))
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return frozenset((a.asname or a.name).split(".")[0] for a in statement.names if a.name != "*")
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return frozenset({statement.name})
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        names = with_names(statement)
        inner = block_binds(statement.body)
        return EVERYTHING if inner is EVERYTHING else frozenset(names | inner)
    if isinstance(statement, ast.If):
        body, orelse = block_binds(statement.body), block_binds(statement.orelse)
        if not statement.orelse:
            return frozenset()
        if body is EVERYTHING:
            return orelse
        if orelse is EVERYTHING:
            return body
        return body & orelse
    if isinstance(statement, ast.Try) or type(statement).__name__ == "TryStar":
        body = block_binds([*statement.body, *statement.orelse])  # type: ignore[attr-defined]
        for handler in statement.handlers:  # type: ignore[attr-defined]
            handled = block_binds(handler.body)
            if body is EVERYTHING:
                body = handled
            elif handled is not EVERYTHING:
                body = body & handled
        final = block_binds(statement.finalbody)  # type: ignore[attr-defined]
        if final is EVERYTHING or body is EVERYTHING:
            return EVERYTHING if final is EVERYTHING else body
        return frozenset(body | final)
    return frozenset()


def bound_before(chain: Chain) -> frozenset[str]:
    """Names bound on every path to the statement at the end of ``chain`` (within its scope)."""
    bound: set[str] = set()
    for depth, (body, index) in enumerate(chain):
        before = block_binds(body[:index])
        if before is EVERYTHING:
            return EVERYTHING  # unreachable: any name will do
        bound |= before
        holder = body[index]
        if depth + 1 < len(chain):
            inner_body = chain[depth + 1][0]
            if isinstance(holder, (ast.With, ast.AsyncWith)):
                bound |= with_names(holder)
            elif isinstance(holder, (ast.For, ast.AsyncFor)) and inner_body is holder.body:
                bound |= set(target_names(holder.target))
            bound |= {h.name for h in getattr(holder, "handlers", ()) if inner_body is h.body and h.name}
    return frozenset(bound)
