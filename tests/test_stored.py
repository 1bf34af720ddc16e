"""Summaries as plain data (flake8_device/analysis/flow/stored.py): what is written reads back as
the same facts, and nodes keep their identity across values and summaries."""

from __future__ import annotations

import json

import libcst as cst
import pytest

from flake8_device.analysis.flow import stored
from flake8_device.analysis.flow.summaries import Summary
from flake8_device.analysis.flow.values import Kind, OptimizerState, Value

CODE = "def f(x, device=None):\n    m = torch.zeros(3)\n    opt = SGD(x)\n    return x.to(device), m\n"


def _module() -> tuple[cst.Module, dict[int, int], cst.Call, cst.Call, cst.SimpleStatementLine]:
    module = cst.parse_module(CODE)
    numbers = {id(n): i for i, n in enumerate(_walk(module))}
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    body = function.body.body
    zeros = body[0].body[0].value  # type: ignore[attr-defined]
    line = body[1]
    sgd = line.body[0].value  # type: ignore[attr-defined]
    return module, numbers, zeros, sgd, line  # type: ignore[return-value]


def _walk(node: cst.CSTNode):  # type: ignore[no-untyped-def]
    yield node
    for child in node.children:
        yield from _walk(child)


def test_a_summary_reads_back_equal_with_each_node_parsed_once() -> None:
    module, numbers, zeros, sgd, line = _module()
    host = Value(Kind.HOST, origin=zeros, module=False, placed_by=(("device", "host"),))
    summary = Summary(
        returns=Value(Kind.CONTAINER, container="tuple", elements=(Value(Kind.INPUT, source="x"), host)),
        moves={"x": Value(Kind.ACCEL, device="device", move=".to(device)", origin=zeros)},
        attributes={"opt": Value(optimizer=OptimizerState(owner="self.model", built_by=sgd, line=line))},
        moves_itself=frozenset({"x"}),
        meets=frozenset({("x", "<state>")}),
    )
    address = {"key": "k"}

    def place(node: cst.CSTNode) -> tuple[str, int] | None:
        number = numbers.get(id(node))
        return None if number is None else (address["key"], number)

    data = json.loads(json.dumps(stored.encode(summary, place)))  # (as it goes to disk and back)
    back = stored.decode(data)
    assert isinstance(back, Summary)
    assert back.moves_itself == summary.moves_itself and back.meets == summary.meets
    (_, made) = back.returns.elements
    assert made.kind is Kind.HOST and made.placed_by == (("device", "host"),)
    # One node, named twice: one object, read back as its own code.
    assert made.origin is back.moves["x"].origin
    assert isinstance(made.origin, cst.Call) and module.code_for_node(made.origin) == "torch.zeros(3)"
    optimizer = back.attributes["opt"].optimizer
    assert optimizer is not None and module.code_for_node(optimizer.line) == module.code_for_node(line)
    # Read again (another summary naming the same places): the same objects.
    assert stored.decode(data).returns.elements[1].origin is made.origin
    # And a summary built from values read back is written with their places.
    assert stored.encode(back, lambda node: None)["nodes"] == data["nodes"]
    # Equal to the original, node fields aside.
    assert back.returns.elements[0] == summary.returns.elements[0]


def test_a_node_outside_the_module_or_of_another_sort_is_not_portable() -> None:
    _, numbers, zeros, _, _ = _module()
    with pytest.raises(stored.NotPortable):
        stored.encode(Summary(returns=Value(Kind.HOST, origin=zeros)), lambda node: None)
    arg = cst.Arg(cst.Name("x"))
    with pytest.raises(stored.NotPortable):
        stored.encode(Summary(returns=Value(Kind.HOST, origin=arg)), lambda node: ("k2", 1))


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"summary": {"S": {}}},
        {"summary": {"S": {"returns": {"V": {"kind": {"K": "nowhere"}}}}}, "nodes": []},
        {"summary": {"S": {"returns": {"Q": {}}}}, "nodes": []},
        {"summary": {"S": {}}, "nodes": [["k", 1, "e", "def ("]]},
        {"summary": {"S": {}}, "nodes": [["k", 1, "x", "a"]]},
        {"summary": {"V": {}}, "nodes": []},
        {"summary": {"S": {"moves": {"D": [[1, None]]}}}, "nodes": []},
    ],
)
def test_anything_else_is_refused(data: object) -> None:
    with pytest.raises(ValueError):
        stored.decode(data)


def test_a_signature_keeps_what_a_call_binds_against() -> None:
    function = cst.parse_statement("@staticmethod\ndef g(a, /, b=1, *c, d, **e) -> int:\n    return a\n")
    assert isinstance(function, cst.FunctionDef)
    text = stored.signature(function)
    assert text == "@staticmethod\ndef g(a, /, b=1, *c, d, **e) -> int: ...\n"
    read = stored.read_signature(text, "sig-test", "g")
    assert read is stored.read_signature(text, "sig-test", "g")
    with pytest.raises(ValueError):
        stored.read_signature("x = 1\n", "sig-test-2", "g")
