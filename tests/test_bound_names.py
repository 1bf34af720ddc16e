"""The definite-binding proof DEV401's fix relies on (flake8_device/analysis/bound_names.py)."""

from __future__ import annotations

import ast

from flake8_device.analysis.bound_names import EVERYTHING, bound_before


def bound_at_marker(source: str) -> frozenset[str]:
    """Names bound on every path to the statement ``marker()`` of the first function."""
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)

    def search(body: list[ast.stmt], chain: tuple) -> tuple | None:  # type: ignore[type-arg]
        for index, statement in enumerate(body):
            here = (*chain, (body, index))
            if isinstance(statement, ast.Expr) and "marker" in ast.unparse(statement):
                return here
            for block in ("body", "orelse", "finalbody"):
                inner = getattr(statement, block, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    found = search(inner, here)
                    if found:
                        return found
            for handler in getattr(statement, "handlers", ()):
                found = search(handler.body, here)
                if found:
                    return found
        return None

    chain = search(function.body, ())
    assert chain is not None
    return bound_before(chain)


def test_both_branches_bind() -> None:
    source = "def f(x):\n    if x:\n        d = 1\n    else:\n        d = 2\n    marker()\n"
    assert "d" in bound_at_marker(source)


def test_one_branch_or_a_loop_does_not() -> None:
    assert "d" not in bound_at_marker("def f(x):\n    if x:\n        d = 1\n    marker()\n")
    assert "d" not in bound_at_marker("def f(xs):\n    for d in xs:\n        pass\n    marker()\n")


def test_an_exiting_branch_leaves_the_other_one() -> None:
    source = "def f(x):\n    if x:\n        return\n    else:\n        d = 2\n    marker()\n"
    assert "d" in bound_at_marker(source)


def test_try_binds_what_every_handler_binds() -> None:
    bound = "def f():\n    try:\n        d = g()\n    except OSError:\n        d = None\n    marker()\n"
    assert "d" in bound_at_marker(bound)
    unbound = "def f():\n    try:\n        d = g()\n    except OSError:\n        pass\n    marker()\n"
    assert "d" not in bound_at_marker(unbound)


def test_inside_blocks_with_targets_and_loop_variables() -> None:
    source = "def f(xs):\n    with open(p) as h:\n        for d in xs:\n            marker()\n"
    assert {"h", "d"} <= bound_at_marker(source)


def test_unreachable_code_binds_everything() -> None:
    assert bound_at_marker("def f():\n    raise ValueError\n    marker()\n") is EVERYTHING
