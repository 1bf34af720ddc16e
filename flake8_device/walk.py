"""One walk over the LibCST tree that calls every enabled rule (a batched visit).

LibCST's own ``visit_batched`` rebuilds every node (whitespace included) on the
way back up; on real files that costs about as much as the parse itself.  This
walker only descends into fields that can hold code, so it is about three times
faster (measured on timm's ``vision_transformer.py``: 0.18 s against 0.51 s),
while rules keep LibCST's ``visit_<Node>`` / ``leave_<Node>`` method names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

import libcst as cst

_NOT_CODE_PREFIXES = (
    "whitespace",
    "lpar",
    "rpar",
    "leading_lines",
    "lines_after_decorators",
    "header",
    "footer",
    "comma",
    "semicolon",
    "equal",
    "colon",
    "operator",
    "dot",
    "star",
    "lbracket",
    "rbracket",
    "lbrace",
    "rbrace",
    "trailing_whitespace",
    "asynchronous",
    "default_indent",
    "default_newline",
    "encoding",
    "has_trailing_newline",
)

# Source order for the nodes where dataclass field order differs from it.
_SOURCE_ORDER: dict[type[cst.CSTNode], tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.For: ("target", "iter", "body", "orelse"),
}

_FIELDS: dict[type, tuple[str, ...]] = {}


def code_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        fields = _SOURCE_ORDER.get(node_type) or tuple(
            f.name for f in dataclasses.fields(node_type) if not f.name.startswith(_NOT_CODE_PREFIXES)
        )
        _FIELDS[node_type] = fields
    return fields


def children(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """The code-bearing children of ``node`` in source order."""
    for name in code_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


VisitorTable = dict[str, list[Callable[[cst.CSTNode], Any]]]


def visitor_table(visitor_maps: Iterable[dict[str, Callable[[cst.CSTNode], Any]]]) -> VisitorTable:
    table: VisitorTable = {}
    for methods in visitor_maps:
        for name, method in methods.items():
            table.setdefault(name, []).append(method)
    return table


def walk(
    root: cst.CSTNode,
    table: VisitorTable,
    before_visit: Callable[[cst.CSTNode], None],
    after_leave: Callable[[cst.CSTNode], None],
) -> None:
    """Depth-first walk calling ``visit_X`` before and ``leave_X`` after the children of X.

    Iterative, so a deeply nested expression (which LibCST itself managed to
    parse) cannot overflow the interpreter stack here.
    """
    empty: list[Callable[[cst.CSTNode], Any]] = []
    # Stack entries: (node, entered). A node is pushed unentered, then re-pushed entered.
    stack: list[tuple[cst.CSTNode, bool]] = [(root, False)]
    while stack:
        node, entered = stack.pop()
        name = type(node).__name__
        if entered:
            for method in table.get("leave_" + name, empty):
                method(node)
            after_leave(node)
            continue
        before_visit(node)
        # As in LibCST's batched visit, a visitor cannot prune the walk for the others.
        for method in table.get("visit_" + name, empty):
            method(node)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(list(children(node))))
