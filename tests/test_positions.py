"""Positions computed one top-level statement at a time are LibCST's own (flake8_device/positions.py)."""

from __future__ import annotations

import ast
from contextlib import nullcontext
from pathlib import Path

import libcst as cst
import pytest

from fixture_support import FIXTURES
from flake8_device.positions import LazyPositions, known_tree, whole_module_positions
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
# Statements in nested blocks, placed alone with the indentation around them.
NESTED = (
    "class Model:\n"
    "\t'''tabs'''\n"
    "\n"
    "\t@property\n"
    "\tdef device(self):  # a comment\n"
    "\t\t# above\n"
    "\t\tif self.x:\n"
    "\t\t\treturn torch.device(\n"
    '\t\t\t\t"cuda")\n'
    "\t\telif self.y: return 1\n"
    "\t\telse:\n"
    "\t\t\tpass\n"
    "\n"
    "def train(model, loader):\n"
    "   for x, y in loader:\n"
    '         x = x.to("cuda"); y = (\n'
    "  y.cuda())\n"
    "         with torch.no_grad():\n"
    "             try:\n"
    "                 out = model(x)\n"
    "             except RuntimeError:\n"
    "                 raise\n"
    "             finally:\n"
    "                 del out\n"
    "         while x:\n"
    "             async def g(): await h(\n"
    "                 x)\n"
    "         if x: y = 1\n"
    "   else:\n"
    "       z = '''\n"
    "multi\n"
    "  line'''\n"
    "   match x:\n"
    "       case 1:\n"
    "           pass\n"
    "       # trailing comment\n"
    "x = 1"
)


def _code_nodes(module: cst.Module) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = list(module.body)
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(children(node))
    return found


@pytest.mark.parametrize(
    "text",
    [ODD, NESTED, *(p.read_text(encoding="utf-8") for p in PROGRAMS)],
    ids=["odd", "nested", *(p.name for p in PROGRAMS)],
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


def test_a_statement_in_a_function_is_placed_without_the_rest_of_the_function() -> None:
    module = cst.parse_module(NESTED)
    lazy = LazyPositions(module, NESTED, nullcontext)
    loop = module.body[1].body.body[0]
    line = loop.body.body[0]
    call = line.body[0].value  # ``x.to("cuda")``
    assert lazy[call] == whole_module_positions(module)[call]
    assert list(lazy._placed) == [line]  # only that line's code was generated


SPARSE_ORIGINAL = (
    "import torch\n"
    "class Model:\n"
    "    size = 1\n"
    "    def dropped(self):\n"
    "        return 1\n"
    "    def kept(self, x):\n"
    "        if x:\n"
    "            return x.to(\n"
    '                "cuda")\n'
    "def dropped_too():\n"
    "    pass\n"
    "x = 1; y = torch.zeros(2)\n"
)


@pytest.mark.parametrize("dropped", [(), (1, 4, 5, 10, 11)], ids=["complete", "sparse"])
def test_positions_read_the_lines_from_the_engines_tree(dropped: tuple[int, ...]) -> None:
    lines = SPARSE_ORIGINAL.splitlines(keepends=True)
    line_map = [n for n in range(1, len(lines) + 1) if n not in dropped]
    text = "".join(lines[n - 1] for n in line_map) if dropped else SPARSE_ORIGINAL
    module = cst.parse_module(text)
    expected = whole_module_positions(module)
    known_tree(text, ast.parse(SPARSE_ORIGINAL), line_map if dropped else None)
    try:
        lazy = LazyPositions(module, text, nullcontext)
        for node in _code_nodes(module):
            assert lazy.get(node) == expected[node], module.code_for_node(node)[:80]
        assert lazy._parsed and lazy._top_statements is not None and lazy._whole is None
        assert (lazy._line_in_text is not None) == bool(dropped)  # the registered tree was used
    finally:
        known_tree(None)
