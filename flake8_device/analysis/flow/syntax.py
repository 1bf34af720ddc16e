"""Small questions about LibCST nodes that the interpreter asks often."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from flake8_device.analysis.symbols import dotted_name

if TYPE_CHECKING:
    from flake8_device.analysis.flow.events import Operand


def last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def path_of(node: cst.BaseExpression) -> str | None:
    """The state key of an assignable expression: ``x``, ``self.mask``."""
    return dotted_name(node)


def is_classmethod(function: cst.FunctionDef) -> bool:
    return any(dotted_name(d.decorator) == "classmethod" for d in function.decorators)


def is_static(function: cst.FunctionDef) -> bool:
    return any(dotted_name(d.decorator) == "staticmethod" for d in function.decorators)


def root_path(node: cst.BaseExpression) -> str | None:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def target_paths(node: cst.BaseExpression) -> Iterator[str]:
    if isinstance(node, (cst.Tuple, cst.List)):
        for element in node.elements:
            yield from target_paths(element.value)
        return
    path = path_of(node)
    if path is not None:
        yield path


def argument_at(node: cst.Call, arguments: Sequence[Operand], position: int | None, *keywords: str) -> Operand | None:
    """The operand passed at ``position`` (before any ``*args``) or as one of ``keywords``."""
    if position is not None:
        index = 0
        for operand, arg in zip(arguments, node.args):
            if arg.star:
                break
            if arg.keyword is None:
                if index == position:
                    return operand
                index += 1
    for operand, arg in zip(arguments, node.args):
        if arg.keyword is not None and arg.keyword.value in keywords:
            return operand
    return None


def keyword_of(node: cst.Call, operand: Operand) -> str | None:
    return next((a.keyword.value for a in node.args if a.value is operand.expr and a.keyword is not None), None)


def related_paths(a: str, b: str) -> bool:
    """One path is the other or inside it (``model`` and ``model.backbone``)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def operator_symbol(node: cst.BinaryOperation) -> str:
    symbols = {
        cst.Add: "+",
        cst.Subtract: "-",
        cst.Multiply: "*",
        cst.Divide: "/",
        cst.FloorDivide: "//",
        cst.Modulo: "%",
        cst.Power: "**",
        cst.MatrixMultiply: "@",
        cst.BitAnd: "&",
        cst.BitOr: "|",
        cst.BitXor: "^",
        cst.LeftShift: "<<",
        cst.RightShift: ">>",
    }
    return f"`{symbols.get(type(node.operator), '?')}`"


def block_of(body: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(body, cst.IndentedBlock):
        return body.body
    return [cst.SimpleStatementLine(body=body.body)] if isinstance(body, cst.SimpleStatementSuite) else []


def compound_blocks(statement: cst.BaseCompoundStatement) -> Iterator[Sequence[cst.BaseStatement]]:
    if isinstance(statement, cst.Match):
        for case in statement.cases:
            yield block_of(case.body)
        return
    yield block_of(statement.body)
    orelse = getattr(statement, "orelse", None)
    while orelse is not None:
        yield block_of(orelse.body)
        orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
    for handler in getattr(statement, "handlers", ()):
        yield block_of(handler.body)
    final = getattr(statement, "finalbody", None)
    if final is not None:
        yield block_of(final.body)


def descendants(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``root`` and every node under it."""
    from flake8_device.walk import children

    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))


def captures(pattern: cst.CSTNode) -> Iterator[str]:
    """The names a ``match`` pattern binds."""
    from flake8_device.walk import children

    stack = [pattern]
    while stack:
        node = stack.pop()
        name = None
        if isinstance(node, (cst.MatchAs, cst.MatchStar)):
            name = node.name
        elif isinstance(node, cst.MatchMapping):
            name = node.rest
        if isinstance(name, cst.Name):
            yield name.value
        stack.extend(children(node))


def parameters_of(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``model`` in ``next(model.parameters())`` (or ``next(iter(model.buffers()))``)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "next"):
        return None
    inner = node.args[0].value if node.args and node.args[0].keyword is None and not node.args[0].star else None
    if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "iter" and inner.args:
        inner = inner.args[0].value
    if (
        isinstance(inner, cst.Call)
        and isinstance(inner.func, cst.Attribute)
        and inner.func.attr.value in ("parameters", "buffers")
        and not inner.args
    ):
        return inner.func.value
    return None
