"""Definite bindings and reaching definitions (flake8_device.analysis.bindings), and the fix proofs built on them."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from flake8_device.analysis.bindings import Binding, FileBindings
from flake8_device.engine import Engine
from flake8_device.fixes import swapped
from flake8_device.model import FixSafety, ReplaceNode
from flake8_device.registry import rule_by_code
from flake8_device.rule import Rule


def binding(source: str, name: str, marker: str = "HERE") -> Binding:
    """How ``name`` is bound where the (first) ``HERE`` name of ``source`` is."""
    text = textwrap.dedent(source)
    line = next(number for number, row in enumerate(text.splitlines(), 1) if marker in row)
    column = text.splitlines()[line - 1].index(marker)
    return FileBindings(ast.parse(text), text).binding(name, (line, column))


@pytest.mark.parametrize(
    "source, name, bound",
    [
        ("def f(device):\n    HERE\n", "device", True),
        ("def f():\n    HERE\n    device = 1\n", "device", False),  # a later local shadows the global
        ("device = 1\ndef f():\n    HERE\n    device = 2\n", "device", False),
        ("device = 1\ndef f():\n    HERE\n", "device", True),
        ("def f():\n    HERE\nf()\ndevice = 1\n", "device", False),  # called before it is defined
        ("def f():\n    HERE\ndevice = 1\nf()\n", "device", True),
        ("def f():\n    HERE\nif __name__ == '__main__':\n    device = 1\n    f()\n", "device", False),
        ("def g():\n    HERE\ndef f():\n    g()\nf()\ndevice = 1\n", "device", False),  # through another function
        ("def f(flag):\n    if flag:\n        device = 1\n    HERE\n", "device", False),
        ("def f(flag):\n    if flag:\n        device = 1\n    else:\n        device = 2\n    HERE\n", "device", True),
        ("def f():\n    device = 1\n    del device\n    HERE\n", "device", False),
        ("def f():\n    try:\n        pass\n    except E as device:\n        pass\n    HERE\n", "device", False),
        ("def f(x):\n    match x:\n        case [device]:\n            HERE\n", "device", True),
        ("def f(x):\n    match x:\n        case [device]:\n            pass\n    HERE\n", "device", False),
        ("def f(x):\n    match x:\n        case [device]:\n            pass\n        case device:\n"
         "            pass\n    HERE\n", "device", True),
        ("def f(x):\n    if (device := x):\n        HERE\n", "device", True),
        ("def f(xs):\n    for device in xs:\n        pass\n    HERE\n", "device", False),
        ("def f(xs):\n    while True:\n        device = 1\n        break\n    HERE\n", "device", True),
        ("def f():\n    device = 1\n    def g():\n        HERE\n    return g\n", "device", True),
        ("def f():\n    def g():\n        HERE\n    device = 1\n    return g\n", "device", False),  # conservative
        ("def f(xs):\n    return [HERE for device in xs]\n", "device", True),
        ("def f():\n    g = lambda device: HERE\n", "device", True),
        ("class A:\n    device = 1\n    def m(self):\n        HERE\n", "device", False),  # class scope is skipped
        ("def f():\n    HERE\n", "len", True),
        ("def f():\n    HERE\n", "nowhere", False),
    ],
)
def test_definitely_bound(source: str, name: str, bound: bool) -> None:
    assert binding(source, name).bound is bound


def test_reaching_definitions_tell_a_rebinding() -> None:
    text = "def f(device, model):\n    A = model.to(device)\n    device = 'cpu'\n    B = 1\n"
    facts = FileBindings(ast.parse(text), text)
    before, after = facts.binding("device", (2, 4)), facts.binding("device", (4, 4))
    assert before.bound and after.bound and before.definitions != after.definitions
    assert facts.binding("model", (2, 4)).definitions == facts.binding("model", (4, 4)).definitions


def test_reasons_name_the_problem() -> None:
    assert binding("def f():\n    HERE\n    device = 1\n", "device").reason == (
        "`device` is a local of `f` assigned only later (line 3)"
    )
    assert "line 3 may call this code" in (binding("def f():\n    HERE\nf()\ndevice = 1\n", "device").reason or "")


def test_self_attributes_set_in_init() -> None:
    text = textwrap.dedent(
        """\
        class A:
            def __init__(self, early):
                self.early = self.load()
                self.device = 1

            def load(self):
                return 0

            def later(self):
                return 0
        """
    )
    facts = FileBindings(ast.parse(text), text)
    assert facts.self_attribute("device", (10, 8)).bound
    assert not facts.self_attribute("device", (7, 8)).bound  # __init__ calls `load` first
    assert not facts.self_attribute("device", (3, 8)).bound
    assert not facts.self_attribute("missing", (10, 8)).bound


def test_a_swap_keeps_line_ends_at_the_end_of_a_file() -> None:
    text = "a = 1  # one\nb = 2  # two"
    first, second = (0, 13), (13, len(text))
    assert swapped(text, first, second) == ("b = 2  # two\n", "a = 1  # one")


def _fix(code: str, source: str) -> tuple[FixSafety, str | None, str]:
    engine = Engine([rule_by_code(code)])  # type: ignore[list-item]
    text = textwrap.dedent(source)
    (violation,) = engine.lint(text).violations
    return violation.fix_safety, violation.fix_reason, engine.fix(text, unsafe_fixes=True).text


def test_the_proof_downgrades_a_fix_that_inserts_an_unbound_name() -> None:
    safety, reason, fixed = _fix(
        "DEV101",
        """\
        import torch
        from torch import nn

        def build():
            model = nn.Linear(2, 2)
            model.to(device)
            model.head = nn.Linear(2, 2)

        build()
        device = torch.device("cuda")
        """,
    )
    assert safety is FixSafety.DISPLAY_ONLY
    assert reason == "`device` is not yet bound at module level where line 9 may call this code"
    assert "head = nn.Linear(2, 2)\n" in fixed


class _AssignMoves(Rule):
    """Test rule: rebinds every discarded ``x.to(...)`` to ``x`` (a DEV203-style fix, for any name)."""

    code = "DEV999"
    name = "test-assign-moves"
    message = "`{call}`"
    fix_title = "Assign it"
    fix_safety = FixSafety.SAFE
    markers = (r"\.to\(",)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
            target = call.func.value
            self.report(node, fix=self.make_fix(ReplaceNode(node, target, " = ", call)), call="")


def test_the_proof_refuses_an_assignment_that_makes_a_global_local() -> None:
    text = "import torch\nweights = torch.ones(2)\n\ndef step(x, device):\n    weights.to(device)\n    x.to(device)\n"
    found = Engine([_AssignMoves]).lint(text).violations
    assert [(v.line, v.fix_safety, v.fix_reason) for v in found] == [
        (5, FixSafety.DISPLAY_ONLY, "assigning `weights` would make it a local of `step`, unbound where it is read"
         " before"),
        (6, FixSafety.SAFE, None),
    ]
