"""Device flow: where each value may be, at every point of the file's code.

The interpreter (:mod:`.interpreter`) runs each scope (the top-level script, every function
and method) in statement order over an abstract state mapping names (``x``, ``self.mask``,
``batch.x``) to values (:mod:`.values`): a value's place is a set of possible places along
paths (host, accelerator, "where the inputs are", unknown).  Branches join into sets, loops
are iterated to a fixed point, paths that only run on the CPU never make an accelerator
finding, and the result is a list of events (:mod:`.events`) that rules turn into findings.

The file is analysed as a whole:

- calls into the file's own functions and methods apply their summaries (:mod:`.summaries`,
  :mod:`.local_calls`), and each function starts from what its callers in the file pass it;
- a class's methods see the attributes its construction (``__init__`` and what it calls) and
  its other methods set (:meth:`FlowAnalysis.attribute_state`); a module's registered state
  goes wherever the module goes, its plain attributes stay where they were made;
- calling a module is where its parameters meet its tensor arguments, containers included.

Known PyTorch exceptions are built in: a host tensor that may be 0-dim mixes legally with
device tensors, and indexing a device tensor with host indices is legal (the reverse is not,
and neither is any device mismatch in ``gather``/``index_select``-style index arguments).
Besides tensors and modules, a few objects carry device facts of their own: random generators,
optimizers (whether their state was built while their module was still on the host), and
instances of helper classes that keep host tensor constants (:mod:`..helpers`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from flake8_device.analysis.flow.conditions import DEVICE_CONDITION_WORDS
from flake8_device.analysis.flow.events import AttributeStore, E, Event
from flake8_device.analysis.flow.inputs import tensor_inputs
from flake8_device.analysis.flow.interpreter import Interpreter
from flake8_device.analysis.flow.program import Program
from flake8_device.analysis.flow.summaries import MAX_SUMMARY_DEPTH, Summary
from flake8_device.analysis.flow.syntax import block_of, compound_blocks
from flake8_device.analysis.flow.values import ALWAYS, NEVER, UNKNOWN, Kind, Value, lift, tensorish, union
from flake8_device.analysis.helpers import HelperClasses
from flake8_device.walk import children

if TYPE_CHECKING:
    from flake8_device.context import FileContext

# Attributes a framework moves with the module itself (Lightning's sample input).
FRAMEWORK_MOVED_ATTRIBUTES = frozenset({"example_input_array"})
METRIC_BASES = frozenset({"torchmetrics.Metric", "torchmetrics.metric.Metric"})

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
        self.program = Program(ctx.module)
        self._summaries: dict[tuple[cst.FunctionDef, bool, object], Summary | None] = {}
        self._summarizing: list[cst.FunctionDef] = []
        # Summaries cut short by MAX_SUMMARY_DEPTH so far (those made meanwhile are not kept).
        self._truncations = 0
        self._attribute_states: dict[str, dict[str, Value]] = {}
        self._keeps_places: dict[str, bool] = {}
        # What the methods of each class store in ``self.<attr>``: (class, attr) -> stores.
        self._stores: dict[tuple[str, str], list[AttributeStore]] = {}
        # What the calls in the file pass each function: parameter -> values.
        self.contexts: dict[cst.FunctionDef, dict[str, list[Value]]] = {}
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

    # -- the file's own functions --------------------------------------------------------------
    def summary(
        self,
        function: cst.FunctionDef,
        *,
        seeded: bool = True,
        attributes: tuple[tuple[str, Value], ...] | None = None,
    ) -> Summary | None:
        """What ``function`` does (see :mod:`.summaries`); None while it is being summarised (a
        recursive call) or too deep inside other summaries.  ``seeded``: a method starts from the
        attributes its class holds, or from ``attributes`` (an instance's) when given."""
        key = (function, seeded, attributes)
        if key in self._summaries:
            return self._summaries[key]
        if function in self._summarizing:
            return None
        if len(self._summarizing) >= MAX_SUMMARY_DEPTH:
            self._truncations += 1
            return None
        owner = self.program.owner(function)
        if attributes is None and seeded and owner is not None:
            # The class's attributes first: its construction may call this very method (a helper
            # building a table), which must not look recursive there.
            self.attribute_state(owner.node.name.value)
            if key in self._summaries:
                return self._summaries[key]
        truncations = self._truncations
        self._summarizing.append(function)
        try:
            interpreter = Interpreter(self, function, owner.node if owner else None, summary_mode=True)
            if attributes is not None:
                interpreter.seed_attributes(dict(attributes))
            elif seeded and owner is not None:
                interpreter.seed_attributes(self.attribute_state(owner.node.name.value))
            summary = interpreter.summarize()
        finally:
            self._summarizing.pop()
        if self._truncations == truncations or not self._summarizing:
            # (One made deep inside others, missing what it calls, is made again where asked nearer.)
            self._summaries[key] = summary
        return summary

    def attribute_state(self, class_name: str) -> dict[str, Value]:
        """What each attribute of ``self`` may hold in the methods of ``class_name``: what its
        construction (``__init__`` and what it calls) leaves there, joined with what its other
        methods set (a reset, an ``init_hidden``, a cache filled on the first call)."""
        state = self._attribute_states.get(class_name)
        if state is not None:
            return state
        self._attribute_states[class_name] = {}  # while it is computed (methods calling each other)
        truncations = self._truncations
        stored: list[tuple[str, str, Value]] = []
        lineage = list(self.program.lineage(class_name))
        for entry in reversed(lineage):
            for name, method in entry.methods.items():
                summary = self.summary(method, seeded=False)
                if summary is not None:
                    stored.extend((name, attribute, value) for attribute, value in summary.attributes.items())
        setters: dict[str, set[str]] = {}
        for name, attribute, _ in stored:
            if name != "__init__":
                setters.setdefault(attribute, set()).add(name)
        found: dict[str, list[Value]] = {}
        for name, attribute, value in stored:
            values = found.setdefault(attribute, [])
            if name == "__init__":
                values.insert(0, self.held(class_name, attribute, value, construction=True))
            else:
                # A cache only the method filling it renews; state another method resets (an
                # ``init_hidden``) lives as long as its owner decides.
                cache = len(setters[attribute]) == 1
                values.append(self.held(class_name, attribute, value, construction=False, cache=cache))
        state = {attribute: union(values) for attribute, values in found.items()}
        # Kept unless it misses something: a method of the class being summarised meanwhile (it
        # asked for this), or a summary cut short by the depth limit.
        partial = any(f in self._summarizing for entry in lineage for f in entry.methods.values())
        if (self._truncations == truncations or not self._summarizing) and not partial:
            self._attribute_states[class_name] = state
        else:
            del self._attribute_states[class_name]
        return state

    def held(self, class_name: str, attribute: str, value: Value, *, construction: bool, cache: bool = True) -> Value:
        """``value`` as a later call of a method of ``class_name`` finds it in ``self.<attribute>``:
        for a plain attribute of a module, its tensors stay where they were made when the module
        moves (``Value.held``).  What the construction left anywhere; what another method left on
        the host; what a method left where the module's inputs then were, if it is a ``cache`` (no
        other method renews it).  Not a tensor a method placed on a device its caller chose
        (``init_hidden(batch, device)``: made for that call)."""
        if not self.keeps_place(class_name) or attribute in FRAMEWORK_MOVED_ATTRIBUTES:
            return value
        for entry in self.program.lineage(class_name):
            info = self.ctx.classes.get(entry.node.name.value)
            if info is not None and (info.holds_state(attribute) or attribute in info.added_states):
                return value  # registered (by this class or a base): it goes where the module goes
        if construction:
            kinds: tuple[Kind, ...] = (Kind.HOST, Kind.ACCEL, Kind.INPUT)
        else:
            kinds = (Kind.HOST, Kind.INPUT) if cache else (Kind.HOST,)
        mark = f"{class_name}.{attribute}"

        def marked(leaf: Value) -> Value:
            if leaf.kind is Kind.CONTAINER:
                return replace(leaf, elements=tuple(lift(e, marked) for e in leaf.elements))
            # (Made by something in the file: a factory, a move, a torch function; arithmetic on the
            # construction's parameters is as often a number.)
            made = leaf.module is False and leaf.origin is not None
            if leaf.kind in kinds and made and tensorish(leaf) and not leaf.held:
                if leaf.source is not None and leaf.kind is Kind.INPUT and leaf.module is False:
                    # A tensor made where an argument of that call was (a cache made from
                    # ``x.device``): not where the arguments of a later call are.
                    return replace(leaf, held=mark, source=None)
                return replace(leaf, held=mark)
            return leaf

        return lift(value, marked)

    def keeps_place(self, class_name: str) -> bool:
        """A module class of this file whose plain attributes nothing moves: neither it nor a base
        overrides ``_apply``/``to``, and it is no torchmetrics ``Metric`` (whose states it moves)."""
        known = self._keeps_places.get(class_name)
        if known is None:
            symbols = self.ctx.symbols
            known = (
                symbols.is_local_module_class(class_name)
                and not symbols.class_inherits(class_name, METRIC_BASES)
                and not any(
                    (info := self.ctx.classes.get(entry.node.name.value)) is not None and info.custom_move
                    for entry in self.program.lineage(class_name)
                )
            )
            self._keeps_places[class_name] = known
        return known

    def record_store(self, class_name: str, attribute: str, store: AttributeStore) -> None:
        stores = self._stores.setdefault((class_name, attribute), [])
        if all(known.target is not store.target for known in stores):
            stores.append(store)

    def stores(self, class_name: str, attribute: str) -> list[AttributeStore]:
        """The assignments to ``self.<attribute>`` in the methods of ``class_name`` and its bases in
        this file, construction first."""
        found = [
            store
            for entry in self.program.lineage(class_name)
            for store in self._stores.get((entry.node.name.value, attribute), [])
        ]
        return sorted(found, key=lambda s: s.method.name.value != "__init__")

    def record_context(self, function: cst.FunctionDef, values: dict[str, Value], *, record: bool) -> None:
        if record:
            context = self.contexts.setdefault(function, {})
            for name, value in values.items():
                context.setdefault(name, []).append(value)

    def _run(self) -> None:
        # Events come from the code flow rules selected (other rules' units are parsed too).
        # Callers run before the functions they call, so that those start from what they are given.
        # The code parsed only as context for them is interpreted too, reporting nothing: it gives
        # the functions it calls what it passes them.
        module = self.ctx.module
        self.final_env[module] = Interpreter(self, None, None, report=self.ctx.flow_covers(())).run(module.body)
        for function, owner, path in _callers_first(list(_functions(module.body, None, ()))):
            interpreter = Interpreter(self, function, owner, path, report=self.ctx.flow_covers(path))
            self.final_env[function] = interpreter.run_function()


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
        elif isinstance(statement, (cst.If, cst.Try, cst.With, cst.For, cst.While, cst.Match)):
            for block in compound_blocks(statement):
                yield from _functions(block, owner, path)


def _callers_first(
    functions: list[tuple[cst.FunctionDef, cst.ClassDef | None, tuple[str, ...]]],
) -> list[tuple[cst.FunctionDef, cst.ClassDef | None, tuple[str, ...]]]:
    """The functions, each after the functions of the file that call it (file order otherwise)."""
    by_name: dict[str, list[cst.FunctionDef]] = {}
    for function, owner, _ in functions:
        by_name.setdefault(function.name.value, []).append(function)
        if owner is not None and function.name.value == "__init__":
            by_name.setdefault(owner.name.value, []).append(function)  # ``Model(...)`` runs its __init__
    callers: dict[cst.FunctionDef, set[cst.FunctionDef]] = {f: set() for f, _, _ in functions}
    for function, _, _ in functions:
        # By name: ``f()``, ``self.f()``, ``Cls.f()``, ``obj.f()`` (an order only, so any ``f`` will do).
        for name in _called_names(function):
            for callee in by_name.get(name, ()):
                if callee is not function:
                    callers[callee].add(function)
    ordered: list[tuple[cst.FunctionDef, cst.ClassDef | None, tuple[str, ...]]] = []
    done: set[cst.FunctionDef] = set()
    entries = {f: (f, owner, path) for f, owner, path in functions}

    def visit(function: cst.FunctionDef, active: set[cst.FunctionDef]) -> None:
        if function in done or function in active:
            return
        active.add(function)
        for caller in callers[function]:
            visit(caller, active)
        active.discard(function)
        done.add(function)
        ordered.append(entries[function])

    for function, _, _ in functions:
        visit(function, set())
    return ordered


def _called_names(function: cst.FunctionDef) -> set[str]:
    """Names called in a function's body: ``f(...)`` and ``self.f(...)``."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Name):
                names.add(func.value)
            elif isinstance(func, cst.Attribute):
                names.add(func.attr.value)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(children(node))
    return names
