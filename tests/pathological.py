"""Inputs that made (or could make) the device analysis hang or grow without end.

Each is a program written to defeat one bound of the analysis (see
``flake8_device/analysis/flow/budget.py`` and ``values.bounded``), most with a real finding
the analysis must still make where it stays within its bounds.  Shared by
``tests/test_pathological.py`` (each finishes, and says what it found) and
``bench/bounds/run.py`` (time and memory against LibCST's own parse).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

HEADER = "import torch\nfrom torch import nn\n\n"
# A finding every program ends with, where the analysis is not cut short: a host tensor given
# to a model on the accelerator (DEV204).
TAIL = "\n\ndef tail():\n    model = nn.Linear(3, 3).cuda()\n    x = torch.zeros(3)\n    return model(x)\n"


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[int], str]
    # The size used in the tests (the benchmark uses ``bench_size``).
    size: int
    bench_size: int
    # Whether the tail's finding must be made (False where a bound is expected to cut the file).
    tail_found: bool = True


def method_chain(links: int) -> str:
    """A string built by a chain of ``.replace`` calls (pygments' LaTeX formatter has 18): each
    link once re-evaluated the whole chain before it."""
    chain = "".join(f".replace('a{i}', 'b{i}')" for i in range(links))
    return HEADER + f"def escape(text):\n    return text{chain}\n" + TAIL


def call_chain(depth: int) -> str:
    """Functions each handing a tensor to the next: summaries within summaries."""
    functions = [f"def f{i}(x):\n    return f{i + 1}(x * 2)\n" for i in range(depth)]
    functions.append(f"def f{depth}(x):\n    return x.cuda()\n")
    return HEADER + "\n".join(functions) + "\ny = f0(torch.ones(3))\n" + TAIL


def mutual_recursion(count: int) -> str:
    """Functions calling each other in a ring, each wrapping what it gets in a tuple (the shape of
    sympy's root isolation, which grew past 10 GB)."""
    functions = [
        f"def g{i}(a, b):\n"
        f"    if a:\n"
        f"        return (a, b)\n"
        f"    return g{(i + 1) % count}((a, b), (b, a))\n"
        for i in range(count)
    ]
    return HEADER + "\n".join(functions) + "\nresult = g0(torch.zeros(2), torch.ones(2))\n" + TAIL


def nested_tuples(depth: int) -> str:
    """Tuples nested through helpers and loops, each level twice as wide as the last."""
    calls = "x"
    for _ in range(depth):
        calls = f"pair({calls})"
    return (
        HEADER
        + "def pair(x):\n    return (x, x)\n\n"
        + f"def build(x):\n    y = {calls}\n    for _ in range(10):\n        y = (y, y, x)\n    return y\n\n"
        + "z = build(torch.zeros(1))\n"
        + TAIL
    )


def branches(arms: int) -> str:
    """An ``if``/``elif`` chain of ``arms`` arms, each leaving a different value."""
    lines = ["def choose(k, device):"]
    for i in range(arms):
        keyword = "if" if i == 0 else "elif"
        lines.append(f"    {keyword} k == {i}:")
        lines.append(f"        t = (torch.zeros({i}), torch.ones({i}).to(device), {i})")
    lines.append("    else:\n        t = None\n    return t\n")
    return HEADER + "\n".join(lines) + TAIL


def flat_file(statements: int) -> str:
    """A file of ``statements`` top-level tensor assignments."""
    body = "\n".join(f"x{i} = torch.zeros(3)" for i in range(statements))
    return HEADER + body + TAIL


def deep_nesting(depth: int) -> str:
    """Blocks nested ``depth`` deep (within Python's own parser limit), a tensor moved in the
    innermost one."""
    lines = ["def nested(flags, device):", "    t = torch.zeros(3)"]
    for level in range(depth):
        keyword = "if" if level % 2 == 0 else "for _ in"
        test = f"flags[{level}]" if level % 2 == 0 else "range(2)"
        lines.append("    " * (level + 1) + f"{keyword} {test}:")
    lines.append("    " * (depth + 1) + "t = t.to(device)")
    lines.append("    return t\n")
    return HEADER + "\n".join(lines) + TAIL


def wide_dict(keys: int) -> str:
    """A dict literal of ``keys`` tensors, read back key by key in a loop."""
    items = ", ".join(f"'k{i}': torch.zeros({i})" for i in range(keys))
    reads = "\n".join(f"    total = total + d['k{i}']" for i in range(0, keys, max(1, keys // 50)))
    return HEADER + f"def build():\n    d = {{{items}}}\n    total = 0\n{reads}\n    return d\n" + TAIL


def attribute_fanout(classes: int) -> str:
    """Module classes each holding instances of the next (a deep object graph), moved at the top."""
    parts = []
    for i in range(classes):
        inner = f"        self.child = C{i + 1}()\n" if i + 1 < classes else ""
        parts.append(
            f"class C{i}(nn.Module):\n"
            f"    def __init__(self):\n"
            f"        super().__init__()\n"
            f"        self.mask = torch.ones(3)\n"
            f"        self.table = {{'a': torch.zeros(2), 'b': (torch.ones(1), [torch.zeros(1)])}}\n"
            f"{inner}"
            f"    def forward(self, x):\n"
            f"        return x * self.mask\n"
        )
    return HEADER + "\n".join(parts) + "\nmodel = C0().cuda()\n" + TAIL


CASES = (
    Case("method-chain", method_chain, size=300, bench_size=2_000),
    Case("call-chain", call_chain, size=300, bench_size=2_000),
    Case("mutual-recursion", mutual_recursion, size=30, bench_size=200),
    Case("nested-tuples", nested_tuples, size=40, bench_size=200),
    Case("branches", branches, size=1_000, bench_size=1_000),
    Case("flat-file", flat_file, size=5_000, bench_size=50_000),
    Case("deep-nesting", deep_nesting, size=90, bench_size=90),
    Case("wide-dict", wide_dict, size=2_000, bench_size=20_000),
    Case("attribute-fanout", attribute_fanout, size=60, bench_size=400),
)
