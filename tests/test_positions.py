"""Positions computed one top-level statement at a time are LibCST's own (flake8_device/positions.py)."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import libcst as cst
import pytest

from fixture_support import FIXTURES
from flake8_device.positions import LazyPositions, whole_module_positions
from flake8_device.walk import children

PROGRAMS = [p for p in sorted(FIXTURES.rglob("*.py")) if ".fixed" not in p.name]
ODD = """\
# a header comment

@decorator
@other(1)
async def f(x):  # trailing
    return x

x = 1; y = 2
if x:
    pass
elif y:

    class A:
        '''doc'''
z = [
    1,
    2]; w = 3
"""


def _code_nodes(module: cst.Module) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = list(module.body)
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(children(node))
    return found


@pytest.mark.parametrize(
    "text", [ODD, *(p.read_text(encoding="utf-8") for p in PROGRAMS)], ids=["odd", *(p.name for p in PROGRAMS)]
)
def test_lazy_positions_are_libcsts_for_every_code_node(text: str) -> None:
    module = cst.parse_module(text)
    expected = whole_module_positions(module)
    lazy = LazyPositions(module, text, nullcontext)
    nodes = _code_nodes(module)
    assert nodes
    for node in nodes:
        assert lazy.get(node) == expected[node], module.code_for_node(node)[:80]
    assert lazy._whole is None  # answered statement by statement, never by the whole module


def test_a_node_it_cannot_place_falls_back_to_the_whole_module() -> None:
    module = cst.parse_module("x = (1, 2)\n")
    lazy = LazyPositions(module, module.code, nullcontext)
    comma = module.body[0].body[0].value.elements[0].comma  # not a code node: no statement index
    assert lazy.get(comma) == whole_module_positions(module)[comma]
    assert len(lazy) == len(whole_module_positions(module))


def test_ast_and_libcst_disagreeing_falls_back(tmp_path: Path) -> None:
    module = cst.parse_module("x = 1\ny = 2\n")
    lazy = LazyPositions(module, "x = 1\n", nullcontext)  # a text that is not the module's
    statement = module.body[1]
    assert lazy[statement] == whole_module_positions(module)[statement]
