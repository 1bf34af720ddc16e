"""Device flow: where each value lives, statement by statement.

Each scope (the top-level script, every function and method) is interpreted
in statement order over an abstract state mapping names (``x``,
``self.mask``, ``batch.x``) to a :class:`Value`:

- ``HOST``: certainly on the CPU (a factory without ``device=``, ``.cpu()``,
  ``.to("cpu")``, a batch from a data loader, a module never moved);
- ``ACCEL``: certainly moved to a device expression (``.to(device)``,
  ``.cuda()``, ``device=dev``, the output of a moved model);
- ``INPUT``: wherever the function's tensor inputs (or the module's own
  parameters) live, which model code must follow;
- ``NEUTRAL``: not a tensor (numbers, shapes, strings);
- ``CONDITIONAL``: on the accelerator exactly when a device condition holds
  (``if args.cuda: x = x.cuda()``), on the CPU otherwise; only the rule about
  device choices reads it, every other rule sees it as unknown;
- ``UNKNOWN``: anything else.  Unknown never produces a finding.

Branches are joined (a value that differs between the arms becomes unknown,
except that moves in both arms still count as moved), loops are iterated to
a fixed point before their events are recorded, and the result is a list of
*events* (two devices meeting, a discarded move, ...) that rules turn into
findings.  Known PyTorch exceptions are built in: a host tensor that may be
0-dim mixes legally with device tensors, and indexing a device tensor with
host indices is legal (the reverse is not, and neither is any device mismatch
in ``gather``/``index_select``-style index arguments).

Besides tensors and modules, a few objects carry device facts of their own:
random generators (``torch.Generator(device=...)``), optimizers (whether their
state was built while their module was still on the host), and instances of
helper classes that keep host tensor constants (:mod:`.helpers`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from flake8_device.analysis.flow.conditions import DEVICE_CONDITION_WORDS
from flake8_device.analysis.flow.events import E, Event
from flake8_device.analysis.flow.inputs import tensor_inputs
from flake8_device.analysis.flow.interpreter import Interpreter
from flake8_device.analysis.flow.syntax import block_of, compound_blocks
from flake8_device.analysis.flow.values import ALWAYS, NEVER, UNKNOWN, Kind, Value
from flake8_device.analysis.helpers import HelperClasses

if TYPE_CHECKING:
    from flake8_device.context import FileContext

__all__ = [
    "ALWAYS",
    "DEVICE_CONDITION_WORDS",
    "NEVER",
    "UNKNOWN",
    "FlowAnalysis",
    "Kind",
    "Value",
    "functions_with_owners",
    "tensor_inputs",
]


class FlowAnalysis:
    """Runs the interpreter over every scope of a file once; rules read the events."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.events: list[Event] = []
        # What each scope (the module, or a function) knew at its end: for tests and debugging.
        self.final_env: dict[cst.CSTNode, dict[str, Value]] = {}
        self._seen: set[tuple[type, int]] = set()
        self._run()

    def events_of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    @cached_property
    def helpers(self) -> HelperClasses:
        return HelperClasses(self.ctx.classes, self.ctx.symbols)

    @cached_property
    def default_device_is_cpu(self) -> bool:
        """No ``torch.set_default_device`` (or ``with torch.device(...)``) that may pick an accelerator:
        a factory without ``device=`` allocates on the CPU."""
        return not any(s.accelerator is not False for s in self.ctx.default_devices)

    def add(self, event: Event, key_node: cst.CSTNode) -> None:
        key = (type(event), id(key_node))
        if key not in self._seen:
            self._seen.add(key)
            self.events.append(event)

    def _run(self) -> None:
        # Only the code flow rules selected is interpreted (other rules' units are parsed too).
        module = self.ctx.module
        if self.ctx.flow_covers(()):
            self.final_env[module] = Interpreter(self, None, None).run(module.body)
        for function, owner, path in _functions(module.body, None, ()):
            if self.ctx.flow_covers(path):
                self.final_env[function] = Interpreter(self, function, owner, path).run_function()


def functions_with_owners(module: cst.Module) -> dict[cst.FunctionDef, cst.ClassDef | None]:
    """Every function of the module, with the class whose body holds it (None for plain functions)."""
    return {function: owner for function, owner, _ in _functions(module.body, None, ())}


def _functions(
    body: Sequence[cst.CSTNode], owner: cst.ClassDef | None, path: tuple[str, ...]
) -> Iterator[tuple[cst.FunctionDef, cst.ClassDef | None, tuple[str, ...]]]:
    """Every function in the file with its directly enclosing class and its path of names
    (``("Net", "forward")``), outer before inner."""
    for statement in body:
        if isinstance(statement, cst.FunctionDef):
            inner = (*path, statement.name.value)
            yield statement, owner, inner
            yield from _functions(block_of(statement.body), None, inner)
        elif isinstance(statement, cst.ClassDef):
            yield from _functions(block_of(statement.body), statement, (*path, statement.name.value))
        elif isinstance(statement, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
            for block in compound_blocks(statement):
                yield from _functions(block, owner, path)
