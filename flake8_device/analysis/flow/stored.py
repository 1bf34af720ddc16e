"""Another module's summaries as plain data, so that a later process can reuse them from disk.

A summary (see :mod:`.summaries`) holds values, and a value may name syntax nodes of the module
it was made in: where a tensor was made (``Value.origin``), an optimizer's construction.  Here
each such node is written as its code and its place in its module (its number in a walk of the
module's tree), and read back as that code parsed again: once per process for each place, so
values that named one node still name one node.  A file that calls another module's function
always gets its summary through this round trip, made now or read from disk, so its findings are
the same either way (``ModuleSummaries`` in the device flow).  A summary that names a node that
cannot be written so (one that is neither an expression nor a statement) is used as made and is
not kept on disk.

The function itself is kept as its ``def`` line (decorators, name and parameters, with a body of
``...``): what a call binds its arguments against.

The reader builds only the flow's own classes (``Value``, ``Summary``, ``OptimizerState``) and
plain data, whatever a stored file says: a cache folder is input, never code.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import libcst as cst

from flake8_device.analysis.flow.summaries import Summary
from flake8_device.analysis.flow.values import Kind, OptimizerState, Value

# A node's address: (its module's key, its number in a walk of that module).
Address = tuple[str, int]

_CLASSES: dict[str, type] = {"V": Value, "O": OptimizerState, "S": Summary}
_TAGS = {cls: tag for tag, cls in _CLASSES.items()}


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


_FIELDS = {cls: tuple((f.name, _default(f)) for f in dataclasses.fields(cls)) for cls in _CLASSES.values()}
_NAMES = {cls: frozenset(name for name, _ in fields) for cls, fields in _FIELDS.items()}
_KINDS = {kind.value: kind for kind in Kind}
_CODE = cst.Module(body=[])

# The nodes read back in this process, by address, and the address of each: values that name one
# node name one object, and a summary made from values read back can be written again.
_interned: dict[Address, cst.CSTNode] = {}
_addresses: dict[int, Address] = {}
# The functions read back, by module key and name.
_signatures: dict[tuple[str, str], cst.FunctionDef] = {}


class NotPortable(Exception):
    """The summary names something that cannot be written as plain data."""


def address_of(node: cst.CSTNode) -> Address | None:
    """The address of a node read back by :func:`decode` (None for any other node)."""
    return _addresses.get(id(node))


def encode(summary: Summary | None, address: Callable[[cst.CSTNode], Address | None]) -> dict[str, Any]:
    """``summary`` as JSON data; ``address`` places a node of the module it was made in (nodes
    read back from other modules' summaries carry their own).  Raises :class:`NotPortable`."""
    writer = _Writer(address)
    data = writer.value(summary)
    return {"summary": data, "nodes": writer.nodes}


def decode(data: Any) -> Summary | None:
    """The summary :func:`encode` wrote; raises ``ValueError`` (or ``NotPortable``) for anything else."""
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
        raise ValueError("not a stored summary")
    try:
        nodes = [_node(entry) for entry in data["nodes"]]
        summary = _Reader(nodes).value(data.get("summary"))
    except (KeyError, TypeError) as error:  # (a value of a field that is not its type, an unknown kind)
        raise ValueError("not a stored summary") from error
    if summary is not None and not isinstance(summary, Summary):
        raise ValueError("not a stored summary")
    return summary


def signature(function: cst.FunctionDef) -> str:
    """The ``def`` of ``function`` with its decorators and parameters, and a body of ``...``."""
    stub = function.with_changes(
        body=cst.SimpleStatementSuite([cst.Expr(cst.Ellipsis())]), leading_lines=(), lines_after_decorators=()
    )
    return _CODE.code_for_node(stub)


def read_signature(code: Any, key: str, name: str) -> cst.FunctionDef:
    """The function :func:`signature` wrote, once per process for each module and name (a method's
    is ``Class.method``)."""
    found = _signatures.get((key, name))
    if found is not None:
        return found
    if not isinstance(code, str):
        raise ValueError("not a signature")
    try:
        parsed = cst.parse_statement(code)
    except (cst.ParserSyntaxError, RecursionError, MemoryError) as error:
        raise ValueError("not a signature") from error
    if not isinstance(parsed, cst.FunctionDef) or parsed.name.value != name.rpartition(".")[2]:
        raise ValueError("not a signature")
    _signatures[(key, name)] = parsed
    return parsed


def _intern(address: Address, node: cst.CSTNode) -> None:
    _interned[address] = node
    _addresses[id(node)] = address


def _node(entry: Any) -> cst.CSTNode:
    if not (
        isinstance(entry, list)
        and len(entry) == 4
        and isinstance(entry[0], str)
        and isinstance(entry[1], int)
        and entry[2] in ("e", "s")
        and isinstance(entry[3], str)
    ):
        raise ValueError("not a stored node")
    key, number, kind, code = entry
    found = _interned.get((key, number))
    if found is not None:
        return found
    node = _parse(kind, code)
    if node is None:
        raise ValueError("not a stored node")
    _intern((key, number), node)
    return node


def _parse(kind: str, code: str) -> cst.CSTNode | None:
    """``code`` parsed alone as an expression (``"e"``) or a statement (``"s"``); None if it does not parse."""
    try:
        return cst.parse_expression(code) if kind == "e" else cst.parse_statement(code)
    except (cst.ParserSyntaxError, RecursionError, MemoryError):
        return None


class _Writer:
    def __init__(self, address: Callable[[cst.CSTNode], Address | None]) -> None:
        self.address = address
        self.nodes: list[list[Any]] = []
        self._numbers: dict[int, int] = {}

    def value(self, item: Any) -> Any:
        if item is None or isinstance(item, (bool, int, str)):
            return item
        if isinstance(item, Kind):
            return {"K": item.value}
        if isinstance(item, tuple):
            return {"T": [self.value(i) for i in item]}
        if isinstance(item, frozenset):
            return {"F": sorted((self.value(i) for i in item), key=json.dumps)}
        if isinstance(item, dict):
            if not all(isinstance(k, str) for k in item):
                raise NotPortable("a mapping with keys other than names")
            return {"D": [[k, self.value(v)] for k, v in item.items()]}
        tag = _TAGS.get(type(item))
        if tag is not None:
            fields = {}
            for name, default in _FIELDS[type(item)]:
                held = getattr(item, name)
                if held is not default and held != default:
                    fields[name] = self.value(held)
            return {tag: fields}
        if isinstance(item, cst.CSTNode):
            return {"N": self._node(item)}
        raise NotPortable(type(item).__name__)

    def _node(self, node: cst.CSTNode) -> int:
        number = self._numbers.get(id(node))
        if number is not None:
            return number
        address = address_of(node) or self.address(node)
        if address is None:
            raise NotPortable(f"a node outside its module: {type(node).__name__}")
        if isinstance(node, cst.BaseExpression):
            kind = "e"
        elif isinstance(node, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            kind = "s"
        else:  # (a small statement parses only with its line)
            raise NotPortable(f"a {type(node).__name__} node")
        code = _CODE.code_for_node(node)
        parsed = _interned.get(address)
        if parsed is None:
            parsed = _parse(kind, code)
            if type(parsed) is not type(node):
                raise NotPortable(f"code that does not parse alone as the node it was: {code!r}")
            _intern(address, parsed)
        number = self._numbers[id(node)] = len(self.nodes)
        self.nodes.append([address[0], address[1], kind, code])
        return number


class _Reader:
    def __init__(self, nodes: list[cst.CSTNode]) -> None:
        self.nodes = nodes

    def value(self, item: Any) -> Any:
        if item is None or isinstance(item, (bool, int, str)):
            return item
        if not isinstance(item, dict) or len(item) != 1:
            raise ValueError("not a stored value")
        ((tag, body),) = item.items()
        if tag == "K":
            return _KINDS[body]
        if tag == "T":
            return tuple(self.value(i) for i in _list(body))
        if tag == "F":
            return frozenset(self.value(i) for i in _list(body))
        if tag == "D":
            pairs = [_list(pair) for pair in _list(body)]
            if not all(len(p) == 2 and isinstance(p[0], str) for p in pairs):
                raise ValueError("not a stored mapping")
            return {k: self.value(v) for k, v in pairs}
        if tag == "N":
            if not isinstance(body, int) or not 0 <= body < len(self.nodes):
                raise ValueError("not a stored node")
            return self.nodes[body]
        cls = _CLASSES.get(tag)
        if cls is None or not isinstance(body, dict) or not set(body) <= _NAMES[cls]:
            raise ValueError("not a stored value")
        return cls(**{name: self.value(v) for name, v in body.items()})


def _list(item: Any) -> list[Any]:
    if not isinstance(item, list):
        raise ValueError("not a stored list")
    return item
