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

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.classes import builds_own_layers
from flake8_device.analysis.flow import stored
from flake8_device.analysis.flow.budget import Budget, BudgetExhausted, Cut
from flake8_device.analysis.flow.conditions import DEVICE_CONDITION_WORDS
from flake8_device.analysis.flow.events import AttributeStore, E, Event
from flake8_device.analysis.flow.inputs import tensor_inputs
from flake8_device.analysis.flow.interpreter import Interpreter
from flake8_device.analysis.flow.program import CallSites, Program
from flake8_device.analysis.flow.summaries import MAX_SUMMARY_DEPTH, Summary
from flake8_device.analysis.flow.syntax import block_of, compound_blocks, descendants, path_of
from flake8_device.analysis.flow.values import ALWAYS, NEVER, UNKNOWN, Kind, Value, leaves, lift, tensorish, union
from flake8_device.analysis.helpers import HelperClasses
from flake8_device.analysis.symbols import dotted_name
from flake8_device.walk import children

if TYPE_CHECKING:
    from flake8_device.analysis.defaults import DefaultDeviceSetting
    from flake8_device.analysis.facts import FileFacts, ProjectModule

_OPTIMIZER_BASES = ("torch.optim.Optimizer", "torch.optim.optimizer.Optimizer")
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

    def __init__(
        self, ctx: FileFacts, *, run: bool = True, budget: Budget | None = None, program: Program | None = None
    ) -> None:
        """``run``: interpret every scope now (the checked file); False for a module another file
        imports, whose summaries are made when its calls ask for them (``ModuleSummaries``, with
        the importing file's ``budget`` and the module's shared ``program``)."""
        self.ctx = ctx
        self.events: list[Event] = []
        # What each scope (the module, or a function) knew at its end: for tests and debugging.
        self.final_env: dict[cst.CSTNode, dict[str, Value]] = {}
        self._seen: set[tuple[type, int]] = set()
        self._keys: list[cst.CSTNode] = []
        # The scope each event was emitted in (see ``retract``).
        self._emitted_in: dict[tuple[type, int], cst.FunctionDef | None] = {}
        self.program = program if program is not None else Program(ctx.module, ctx.symbols.project_plain_classes)
        # Each summary with the depth budget it was made with: a summary whose callees were cut off
        # by MAX_SUMMARY_DEPTH holds only for calls as deep (a shallower call makes it again).
        self._summaries: dict[tuple[cst.FunctionDef, bool, object], tuple[Summary | None, int]] = {}
        self._summarizing: list[cst.FunctionDef] = []
        self._cut_off = False
        self._attribute_states: dict[str, dict[str, Value]] = {}
        self._keeps_places: dict[str, bool] = {}
        # What the methods of each class store in ``self.<attr>``: (class, attr) -> stores.
        self._stores: dict[tuple[str, str], list[AttributeStore]] = {}
        # What the calls in the file pass each function: parameter -> (call number, value).
        self.contexts: dict[cst.FunctionDef, dict[str, list[tuple[int, Value]]]] = {}
        self._calls_recorded: dict[cst.FunctionDef, int] = {}
        self._outside_names: dict[cst.FunctionDef | None, frozenset[str]] = {}
        self._optimizer_classes: dict[str, bool] = {}
        # A function defined in another function: that function (whose names it reads as a closure).
        self.enclosing: dict[cst.FunctionDef, cst.FunctionDef] = {}
        # The work budget (see :mod:`.budget`), and the scopes whose facts it made unknown.
        self.budget = budget if budget is not None else Budget(_statement_count(ctx.module.body))
        self.cuts: list[Cut] = []
        # The project's functions this file imports, by (level, module, name): the module that
        # defines each and its name there, looked up once (None: not the project's).
        self._imported: dict[tuple[int, str | None, str], tuple[ProjectModule, str] | None] = {}
        self._imported_classes: dict[str, bool] = {}
        self._imported_methods: dict[tuple[str, str], tuple[ModuleSummaries, cst.FunctionDef] | None] = {}
        self._layer_classes: dict[tuple[str, str], tuple[str, ...]] = {}
        # The summaries of their functions this file has used (and paid for: see ``foreign_summary``).
        self._foreign_used: dict[tuple[ModuleSummaries, cst.FunctionDef], Summary | None] = {}
        if run:
            self._run()

    def events_of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    @cached_property
    def _node_numbers(self) -> dict[int, int]:
        """Each node of the parsed code by identity: its number in a walk of the tree."""
        return {id(node): number for number, node in enumerate(descendants(self.ctx.module))}

    def node_number(self, node: cst.CSTNode | None) -> str:
        """A name for ``node`` that every run gives alike (its number in a walk of the file's tree;
        ``?`` for a node of another module, ``-`` for none)."""
        if node is None:
            return "-"
        number = self._node_numbers.get(id(node))
        return "?" if number is None else str(number)

    @cached_property
    def call_sites(self) -> CallSites | None:
        """Where the whole file calls each of its functions (None without the file's ``ast``)."""
        tree = self.ctx.tree
        return None if tree is None else self.program.call_sites(tree)

    @cached_property
    def helpers(self) -> HelperClasses:
        return HelperClasses(self.ctx.classes, self.ctx.symbols)

    @cached_property
    def default_device_is_cpu(self) -> bool:
        """No ``torch.set_default_device`` (or ``with torch.device(...)``) that may pick an accelerator:
        a factory without ``device=`` allocates on the CPU."""
        return not any(s.accelerator is not False for s in self.ctx.default_devices)

    @cached_property
    def default_device_setting(self) -> DefaultDeviceSetting | None:
        """The file's ``torch.set_default_device`` of an accelerator (not a ``with`` block): the
        setting is global, and samplers draw when their loader is iterated, after any setup."""
        return next((s for s in self.ctx.default_devices if s.accelerator is True and not s.scoped), None)

    def imported_function(self, func: cst.BaseExpression) -> tuple[ModuleSummaries, cst.FunctionDef] | None:
        """The function of another module of the project that ``func`` names (``set_device`` after
        ``from utils import set_device``, ``utils.set_device`` after ``import utils``), with the
        module's summaries; None for anything else."""
        symbols = self.ctx.symbols
        if isinstance(func, cst.Name):
            found = symbols.from_imports.get(func.value)
            if found is None:
                return None
            level, module, name = found
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            imported = symbols.module_imports.get(func.value.value)
            if imported is None:
                return None
            (level, module), name = imported, func.attr.value
        else:
            return None
        key = (level, module, name)
        if key not in self._imported:
            self._imported[key] = self.ctx.project_function(level, module, name)
        found = self._imported[key]
        if found is None:
            return None
        summaries = ModuleSummaries.of(found[0])
        function = summaries.function(found[1])
        return (summaries, function) if function is not None else None

    def imported_method(self, class_name: str, method: str) -> tuple[ModuleSummaries, cst.FunctionDef] | None:
        """The method ``method`` of the class this file imports as ``class_name`` from another module
        of the project (``FaSNet`` after ``from .layers import FaSNet``, ``layers.FaSNet`` after
        ``import layers`` or ``from . import layers``), with that module's summaries; None for
        anything else."""
        key = (class_name, method)
        if key not in self._imported_methods:
            self._imported_methods[key] = self._find_imported_method(class_name, method)
        return self._imported_methods[key]

    def _find_imported_method(self, class_name: str, method: str) -> tuple[ModuleSummaries, cst.FunctionDef] | None:
        symbols = self.ctx.symbols
        head, _, tail = class_name.rpartition(".")
        where: tuple[int, str | None, str] | None = None
        if not head:
            where = symbols.from_imports.get(class_name)
        elif head in symbols.module_imports:  # ``layers.FaSNet`` after ``import layers``
            where = (*symbols.module_imports[head], tail)
        elif head in symbols.from_imports:  # ``dprnn.DPRNN`` after ``from .layers import dprnn``
            level, package, name = symbols.from_imports[head]
            where = (level, f"{package}.{name}" if package else name, tail)
        defined = self.ctx.project_class(*where) if where is not None else None
        if defined is None:
            return None
        summaries = ModuleSummaries.of(defined[0])
        function = summaries.function(f"{defined[1]}.{method}")
        return (summaries, function) if function is not None else None

    def layer_classes(self, class_name: str, attribute: str) -> tuple[str, ...]:
        """The classes (as written: ``Linear``, ``dprnn.DPRNN``) that the ``__init__`` of ``class_name``
        (or of a base in this file) builds ``self.<attribute>`` with, where it assigns it once from
        a call: the class called, or those a local of ``__init__`` chooses among (``Net = FaSNet
        if kind == "fasnet" else iFaSNet``, assigned once); none otherwise."""
        key = (class_name, attribute)
        if key not in self._layer_classes:
            self._layer_classes[key] = self._find_layer_classes(class_name, attribute)
        return self._layer_classes[key]

    def _find_layer_classes(self, class_name: str, attribute: str) -> tuple[str, ...]:
        init = self.program.method(class_name, "__init__")
        self_name = patterns.first_param_name(init) if init is not None else None
        if init is None or self_name is None:
            return ()
        assignments = [node for node in self.ctx.scope_nodes(init) if isinstance(node, cst.Assign)]

        def assigned_once(path: str) -> cst.BaseExpression | None:
            values = [a.value for a in assignments if any(path_of(t.target) == path for t in a.targets)]
            return values[0] if len(values) == 1 else None

        built = assigned_once(f"{self_name}.{attribute}")
        written = dotted_name(built.func) if isinstance(built, cst.Call) else None
        if written is None:
            return ()
        chosen = assigned_once(written) if "." not in written else None
        if chosen is None:
            return (written,)
        choices: list[str] = []
        todo = [chosen]
        while todo:
            value = todo.pop()
            if isinstance(value, cst.IfExp):
                todo.extend((value.orelse, value.body))
            elif isinstance(value, cst.Name):
                choices.append(value.value)
            else:
                return ()
        return tuple(choices)

    def imported_layers(self, name: str) -> bool:
        """Is ``name`` a module class imported from another module of the project whose construction
        builds layers of its own on the host (see ``classes.builds_own_layers``)?"""
        found = self._imported_classes.get(name)
        if found is None:
            where = self.ctx.symbols.from_imports.get(name)
            defined = self.ctx.project_class(*where) if where is not None else None
            found = self._imported_classes[name] = defined is not None and builds_own_layers(
                defined[0].tree, defined[0].symbols, defined[1]
            )
        return found

    def foreign_summary(self, module: ModuleSummaries, function: cst.FunctionDef) -> Summary | None:
        """The summary of another module's function.  This file pays for it once, at its first
        call: the steps it took to make are spent from this file's budget whether it is made now
        or was made for a file checked before (so a file's findings never depend on what the
        process checked before it)."""
        key = (module, function)
        if key not in self._foreign_used:
            self._foreign_used[key] = module.summary(function, self.budget)
        return self._foreign_used[key]

    def optimizer_class(self, name: str) -> bool:
        """A class of this file that is an optimizer (``class Prodigy(torch.optim.Optimizer)``)."""
        found = self._optimizer_classes.get(name)
        if found is None:
            found = any(
                (q := self.ctx.symbols.qualify_dotted(base)) is not None
                and (q in _OPTIMIZER_BASES or torch_api.is_optimizer_class(q))
                for entry in self.program.lineage(name)
                for base in entry.bases
            )
            self._optimizer_classes[name] = found
        return found

    def eager_optimizer(self, name: str) -> bool:
        """An optimizer class of this file whose construction builds per-parameter state
        (``self.state[p]["exp_avg"] = torch.zeros_like(p)`` in ``__init__``), as Adagrad does: the
        state is made where the parameters are when it is built, not at the first step."""
        if not self.optimizer_class(name):
            return False
        factories = torch_api.TENSOR_FACTORIES | torch_api.LIKE_FACTORIES
        for entry in self.program.lineage(name):
            init = entry.methods.get("__init__")
            if init is None:
                continue
            self_name = patterns.first_param_name(init)
            nodes = list(descendants(init.body))
            reads_state = any(
                isinstance(n, cst.Attribute) and patterns.self_attribute(n, self_name) == "state" for n in nodes
            )
            makes_tensor = any(
                isinstance(n, cst.Call) and self.ctx.symbols.qualify(n.func) in factories for n in nodes
            )
            if reads_state and makes_tensor:
                return True
        return False

    def param_group_tensors(self, name: str) -> tuple[str, ...]:
        """The keys under which an optimizer class of this file keeps tensors in its param groups
        (``group["d_numerator"] = torch.tensor(...)``): ``load_state_dict`` restores them as saved."""
        if not self.optimizer_class(name):
            return ()
        keys: list[str] = []
        moved: set[str] = set()  # keys the class itself moves where the parameters are
        for entry in self.program.lineage(name):
            for method in entry.methods.values():
                for node in self.ctx.scope_nodes(method):
                    if not isinstance(node, cst.Assign) or not isinstance(node.value, cst.Call):
                        continue
                    made = self.ctx.symbols.qualify(node.value.func) in torch_api.TENSOR_FACTORIES
                    moves = patterns.method_name(node.value) in ("to", "cuda")
                    if not (made or moves):
                        continue
                    for target in node.targets:
                        item = target.target
                        if (
                            isinstance(item, cst.Subscript)
                            and isinstance(item.value, cst.Name)
                            and "group" in item.value.value
                            and patterns.subscript_index(item) is not None
                        ):
                            key = patterns.subscript_key(item)
                            if key is not None and moves:
                                moved.add(key)
                            elif key is not None and key not in keys:
                                keys.append(key)
        return tuple(k for k in keys if k not in moved)

    def add(self, event: Event, key_node: cst.CSTNode, function: cst.FunctionDef | None = None) -> None:
        key = (type(event), id(key_node))
        if key not in self._seen:
            self._seen.add(key)
            # (The node is kept: an ``id`` is only unique while its object lives, and a node of another
            # module's parse may otherwise be freed and its ``id`` given to a node met later.)
            self._keys.append(key_node)
            self.events.append(event)
            self._emitted_in[key] = function

    def retract(self, kind: type, key_node: cst.CSTNode, function: cst.FunctionDef | None) -> None:
        """Withdraw an event this scope emitted that a later statement of it shows was no bug."""
        key = (kind, id(key_node))
        if key in self._seen and self._emitted_in.get(key, False) is function:
            found = [e for e in self.events if isinstance(e, kind) and getattr(e, "optimizer", None) is not None]
            for event in found:
                if event.optimizer.built_by is key_node:  # type: ignore[attr-defined]
                    self.events.remove(event)

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
        budget = MAX_SUMMARY_DEPTH - len(self._summarizing)
        cached = self._summaries.get(key)
        if cached is not None and cached[1] >= budget:
            if cached[1] < MAX_SUMMARY_DEPTH:
                self._cut_off = True
            return cached[0]
        if function in self._summarizing:
            return None
        if budget <= 0:
            self._cut_off = True
            return None
        owner = self.program.owner(function)
        if attributes is None and seeded and owner is not None:
            # The class's attributes first: its construction may call this very method (a helper
            # building a table), which must not look recursive there.
            self.attribute_state(owner.node.name.value)
            cached = self._summaries.get(key)
            if cached is not None and cached[1] >= budget:
                return cached[0]
        cut_off_outside, self._cut_off = self._cut_off, False
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
        self._summaries[key] = (summary, budget if self._cut_off else MAX_SUMMARY_DEPTH)
        self._cut_off = self._cut_off or cut_off_outside
        return summary

    def attribute_state(self, class_name: str) -> dict[str, Value]:
        """What each attribute of ``self`` may hold in the methods of ``class_name``: what its
        construction (``__init__`` and what it calls) leaves there, joined with what its other
        methods set (a reset, an ``init_hidden``, a cache filled on the first call)."""
        state = self._attribute_states.get(class_name)
        if state is not None:
            return state
        self._attribute_states[class_name] = {}  # while it is computed (methods calling each other)
        try:
            return self._compute_attribute_state(class_name)
        except (BudgetExhausted, RecursionError):
            del self._attribute_states[class_name]  # not the placeholder: nothing is known of it
            raise

    def _compute_attribute_state(self, class_name: str) -> dict[str, Value]:
        cut_off_outside, self._cut_off = self._cut_off, False
        stored: list[tuple[str, str, Value]] = []
        methods: dict[str, cst.FunctionDef] = {}
        lineage = list(self.program.lineage(class_name))
        for entry in reversed(lineage):
            for name, method in entry.methods.items():
                if not self.program.sets_attributes(method):
                    continue
                methods[name] = method
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
                if _offloaded(value):
                    continue  # ``self.unet.to("cpu")`` after use: an offload, undone before the next
                # A cache only the method filling it renews, and not at every call (it keeps what
                # an earlier call left along some path); state another method resets (an
                # ``init_hidden``), or one method sets anew at each call (a ``set_mask(context)``
                # before each use), lives as long as its owner decides.
                cache = len(setters[attribute]) == 1 and not _stored_at_every_call(methods[name], attribute)
                values.append(self.held(class_name, attribute, value, construction=False, cache=cache))
        state = {attribute: union(values) for attribute, values in found.items()}
        # Kept unless it misses something: a method of the class being summarised meanwhile (it
        # asked for this), or a summary cut short by the depth limit.
        partial = any(f in self._summarizing for entry in lineage for f in entry.methods.values())
        if (not self._cut_off or not self._summarizing) and not partial:
            self._attribute_states[class_name] = state
        else:
            del self._attribute_states[class_name]
        self._cut_off = self._cut_off or cut_off_outside
        return state

    def names_from_outside(self, function: cst.FunctionDef | None) -> frozenset[str]:
        """The plain names of a scope (a function, or the module for None) that may be bound by what
        the interpreter does not follow: parameters, imports, ``global``/``nonlocal`` names."""
        found = self._outside_names.get(function)
        if found is not None:
            return found
        names = set(self.ctx.symbols.imports)
        if function is not None:
            params = function.params
            names.update(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
            stars = (params.star_arg, params.star_kwarg)
            names.update(star.name.value for star in stars if isinstance(star, cst.Param))
            # (Statements only: ``global``, ``nonlocal`` and imports are never inside expressions.)
            stack: list[cst.BaseStatement] = list(block_of(function.body))
            while stack:
                statement = stack.pop()
                if isinstance(statement, cst.SimpleStatementLine):
                    for node in statement.body:
                        if isinstance(node, (cst.Global, cst.Nonlocal)):
                            names.update(item.name.value for item in node.names)
                        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(
                            node.names, cst.ImportStar
                        ):
                            for alias in node.names:
                                bound = alias.asname.name if alias.asname is not None else alias.name
                                names.add((dotted_name(bound) or "").split(".")[0])
                elif not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                    for block in compound_blocks(statement):
                        stack.extend(block)
        found = frozenset(names)
        self._outside_names[function] = found
        return found

    def held(self, class_name: str, attribute: str, value: Value, *, construction: bool, cache: bool = True) -> Value:
        """``value`` as a later call of a method of ``class_name`` finds it in ``self.<attribute>``:
        for a plain attribute of a module, its tensors stay where they were made when the module
        moves (``Value.held``).  What the construction left anywhere; what another method left on
        the host; what a method left where the module's inputs then were, if it is a ``cache`` (no
        other method renews it).  Not a tensor a method placed on a device its caller chose
        (``init_hidden(batch, device)``: made for that call)."""
        if not self.keeps_place(class_name) or attribute in FRAMEWORK_MOVED_ATTRIBUTES:
            return value
        # Made an ``nn.Parameter`` along some paths of the construction itself (``self.w = t``, then
        # ``if learn: self.w = nn.Parameter(self.w)``): each path says whether it is registered
        # (``registers`` None: only along some of them, so plain along the others).
        per_path = construction and any(leaf.registers is not False for leaf in leaves(value) if tensorish(leaf))
        for entry in self.program.lineage(class_name):
            info = self.ctx.classes.get(entry.node.name.value)
            if info is None:
                continue
            if attribute in info.buffers or attribute in info.added_states:
                return value  # registered (by this class or a base): it goes where the module goes
            if attribute in info.kept_where_they_are:
                return value  # placed by code the class does not show (see ``ClassInfo``)
            if attribute in info.parameters and not per_path:
                return value
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
            if leaf.registers is True:
                # An ``nn.Parameter`` made elsewhere (a helper, a local name): registered by the store.
                return Value(Kind.INPUT, module=False)
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
            call = self._calls_recorded.get(function, 0)
            self._calls_recorded[function] = call + 1
            for name, value in values.items():
                context.setdefault(name, []).append((call, value))

    def _run(self) -> None:
        # Every scope parsed is interpreted (the engine keeps a rule's findings where its markers
        # select it to report).  Callers run before the functions they call, so that those start from
        # what they are given.
        module = self.ctx.module
        self._run_scope(module, None, (), lambda: Interpreter(self, None, None).run(module.body))
        functions = list(_functions(module.body, None, ()))
        for function, _, _ in functions:
            for inner in _nested_functions(function):
                self.enclosing[inner] = function
        text_of = self.ctx.functions.text if self.ctx.functions is not None else (lambda path: None)
        for function, owner, path in _callers_first(functions, self.program, text_of):
            self._run_scope(
                function,
                owner,
                path,
                lambda f=function, o=owner, p=path: Interpreter(self, f, o, p).run_function(),  # type: ignore[misc]
            )

    def _run_scope(
        self,
        scope: cst.Module | cst.FunctionDef,
        owner: cst.ClassDef | None,
        path: tuple[str, ...],
        run: Callable[[], dict[str, Value]],
    ) -> None:
        """Run one scope within its share of the budget; past it, the scope's facts are unknown:
        its events are withdrawn, and it leaves nothing its enclosed functions could read."""
        body = scope.body if isinstance(scope, cst.Module) else block_of(scope.body)
        if not self.budget.start_scope(_statement_count(body)):
            self.final_env[scope] = {}
            self._cut(scope, path, "the file's work budget ran out before it; its facts are unknown")
            return
        events, seen = list(self.events), set(self._seen)
        try:
            self.final_env[scope] = run()
        except (BudgetExhausted, RecursionError) as error:
            self.events, self._seen = events, seen
            self.final_env[scope] = {}
            self._summarizing.clear()
            nested = isinstance(error, RecursionError)
            reason = "nested too deeply to follow; its facts are unknown" if nested else self.budget.reason()
            self._cut(scope, path, reason)
        finally:
            self.budget.end_scope()

    def _cut(self, scope: cst.Module | cst.FunctionDef, path: tuple[str, ...], reason: str) -> None:
        # (Lines from the ``ast``: LibCST's positions cost a code generation of the whole file,
        # which a scope nested too deeply to follow may not survive.)
        functions = self.ctx.functions
        lines = functions.first_lines(path) if path and functions is not None else []
        self.cuts.append(Cut(lines[0] if lines else 1, ".".join(path) or "<module>", reason))


class ModuleSummaries:
    """The summaries of one project module's functions, as the files that import it use them, kept
    for the whole process while the module (and what it imports) is unchanged: the loader makes a
    new ``ProjectModule`` otherwise (``flake8_device/project.py``), and this goes with the old one.

    Each summary is made by an analysis of its own, from a fresh start, so it is the same whatever
    was asked of the module before; it is kept with the steps it took, which every file that uses
    it pays (``FlowAnalysis.foreign_summary``).  A summary made while a call cycle through the
    modules was cut (``a.f`` calls ``b.g``, which calls ``a.f``) depends on where the cycle was
    entered, and is not kept.

    Each kept summary is also handed to the loader (``ProjectModules.keep``), with its function's
    ``def`` line, its steps and the project files its making read: the loader keeps it for the
    process apart from the module (a module dropped from the parsed ones and read again is not
    parsed for it) and, where the front end gives a store (an on-disk cache), writes it there for
    later processes, which read it back instead of parsing the module: every summary reaches
    the files that call it through that same plain-data form (:mod:`.stored`), read back or made
    now, so findings never depend on what was on disk."""

    _KEY = "flow"
    # Cycles cut so far, process-wide: a summary made while this grew saw one.
    _cycles_cut = 0

    def __init__(self, module: ProjectModule) -> None:
        self.module = module
        self.key = hashlib.sha256(f"{module.path}\0{module.text}".encode("utf-8", "surrogatepass")).hexdigest()
        self._made: dict[str, tuple[Summary | None, int]] = {}
        self._functions: dict[str, cst.FunctionDef | None] = {}
        # The name in the module of each function handed out (``Class.method`` for a method).
        self._names: dict[cst.FunctionDef, str] = {}
        self._making: set[str] = set()

    @classmethod
    def of(cls, module: ProjectModule) -> ModuleSummaries:
        """The module's summaries (an empty set, filled on demand)."""
        found = module.derived.get(cls._KEY)
        if found is None:
            found = module.derived[cls._KEY] = cls(module)
        return found

    @cached_property
    def _parsed(self) -> tuple[FileFacts, Program] | None:
        """The module's facts and program (a LibCST parse: only where a summary must be made)."""
        facts = self.module.facts
        return None if facts is None else (facts, Program(facts.module))

    @cached_property
    def _numbers(self) -> dict[int, int]:
        """Each node of the module's tree by identity: its number in a walk of the tree."""
        parsed = self._parsed
        return {} if parsed is None else {id(n): i for i, n in enumerate(descendants(parsed[0].module))}

    def _address(self, node: cst.CSTNode) -> tuple[str, int] | None:
        number = self._numbers.get(id(node))
        return None if number is None else (self.key, number)

    def function(self, name: str) -> cst.FunctionDef | None:
        """The module's function ``name`` (``Class.method`` for a method of one of its classes, its
        bases in the module included) as a call binds to it: its ``def`` line (see
        :func:`.stored.signature`); None where the module defines no such function."""
        if name not in self._functions:
            found = self._read(name)
            if found is None and self._parsed is not None:
                function = self._own(self._parsed[1], name)
                if function is not None:
                    found = stored.read_signature(stored.signature(function), self.key, name)
            self._functions[name] = found
            if found is not None:
                self._names[found] = name
        return self._functions[name]

    @staticmethod
    def _own(program: Program, name: str) -> cst.FunctionDef | None:
        """The module's own ``def`` of ``name`` (``Class.method``: as instances of the class see it)."""
        class_name, _, method = name.rpartition(".")
        return program.method(class_name, method) if class_name else program.functions.get(name)

    def summary(self, function: cst.FunctionDef, budget: Budget) -> Summary | None:
        """The summary of ``function`` (one :meth:`function` handed out); its steps are spent from
        ``budget`` (made now or before).  A method's starts from the attributes its class holds."""
        name = self._names.get(function, function.name.value)
        made = self._made.get(name)
        if made is not None:
            budget.left -= made[1]
            if budget.left < 0:
                budget.exhausted()
            return made[0]
        if name in self._making:
            ModuleSummaries._cycles_cut += 1
            return None
        parsed = self._parsed
        own = self._own(parsed[1], name) if parsed is not None else None
        if parsed is None or own is None:
            return None
        left, cycles = budget.left, ModuleSummaries._cycles_cut
        self._making.add(name)
        try:
            summary = FlowAnalysis(parsed[0], run=False, budget=budget, program=parsed[1]).summary(own)
        finally:
            self._making.discard(name)
        try:
            data = stored.encode(summary, self._address)
        except stored.NotPortable:
            data = None
        else:
            summary = stored.decode(data)
        if ModuleSummaries._cycles_cut == cycles:
            self._made[name] = (summary, left - budget.left)
            if data is not None:
                self._write(name, own, data, left - budget.left)
        return summary

    def _entry_parts(self, name: str) -> tuple[str, ...]:
        """What names the summary of ``name`` among what the loader keeps (see ``ProjectModules.kept``)."""
        config = self.module.config
        moves = ",".join(sorted(config.move_functions))
        return ("summary", moves, repr(config.versions), self.module.path, self.key, name)

    def _read(self, name: str) -> cst.FunctionDef | None:
        """The function ``name`` and its summary, from the store (None where it holds neither)."""
        entry = self.module.loader.kept(self._entry_parts(name))
        if entry is None:
            return None
        try:
            reads = {path: tuple(state) if state is not None else None for path, state in entry["reads"].items()}
            if not self.module.still_as_read(reads):
                return None
            function = stored.read_signature(entry["def"], self.key, name)
            summary, steps = stored.decode(entry["summary"]), entry["steps"]
            if not isinstance(steps, int):
                return None
        except (ValueError, KeyError, TypeError, AttributeError, stored.NotPortable):
            return None
        self._made.setdefault(name, (summary, steps))
        self.module.add_reads(reads)
        return function

    def _write(self, name: str, function: cst.FunctionDef, data: dict[str, object], steps: int) -> None:
        entry = {"def": stored.signature(function), "summary": data, "steps": steps, "reads": self.module.reads()}
        self.module.loader.keep(self._entry_parts(name), entry)


def _stored_at_every_call(method: cst.FunctionDef, attribute: str) -> bool:
    """Does every call of ``method`` store ``self.<attribute>``: a plain assignment among the
    statements of its body itself (not in a branch or a loop), with no ``return``, ``raise`` or
    ``yield`` before it?"""
    self_name = patterns.first_param_name(method)
    if self_name is None:
        return False
    for statement in patterns.body_statements(method):
        if not isinstance(statement, cst.SimpleStatementLine):
            if any(isinstance(node, (cst.Return, cst.Raise, cst.Yield)) for node in patterns.scope_nodes(statement)):
                return False
            continue
        for small in statement.body:
            if isinstance(small, (cst.Return, cst.Raise)) or (
                isinstance(small, cst.Expr) and isinstance(small.value, (cst.Yield, cst.Await))
            ):
                return False
            targets = (
                [t.target for t in small.targets]
                if isinstance(small, cst.Assign)
                else [small.target] if isinstance(small, cst.AnnAssign) else []
            )
            if any(patterns.self_attribute(t, self_name) == attribute for t in targets):
                return True
    return False


def _offloaded(value: Value) -> bool:
    """A module a method sent to the CPU itself (``self.unet.to("cpu")``, ``self.vae.cpu()``)."""
    found = leaves(value)
    return bool(found) and all(
        leaf.module is True
        and leaf.kind is Kind.HOST
        and isinstance(leaf.origin, cst.Call)
        and patterns.method_name(leaf.origin) in ("to", "cpu")
        for leaf in found
    )


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


def _nested_functions(function: cst.FunctionDef) -> Iterator[cst.FunctionDef]:
    """The functions defined directly in ``function``'s body (in its blocks too)."""
    todo: list[Sequence[cst.BaseStatement]] = [block_of(function.body)]
    while todo:
        for statement in todo.pop():
            if isinstance(statement, cst.FunctionDef):
                yield statement
            elif isinstance(statement, (cst.If, cst.Try, cst.With, cst.For, cst.While, cst.Match)):
                todo.extend(compound_blocks(statement))


def _callers_first(
    functions: list[tuple[cst.FunctionDef, cst.ClassDef | None, tuple[str, ...]]],
    program: Program,
    text_of: Callable[[tuple[str, ...]], str | None],
) -> list[tuple[cst.FunctionDef, cst.ClassDef | None, tuple[str, ...]]]:
    """The functions, each after the functions of the file that call it (file order otherwise)."""
    by_name: dict[str, list[cst.FunctionDef]] = {}
    for function, _, _ in functions:
        by_name.setdefault(function.name.value, []).append(function)
    for name in program.classes:
        # ``Model(...)`` runs its __init__ (its own or a base's), and the code that makes an instance
        # usually calls it (a module's forward then also starts from what its callers pass).
        for method in ("__init__", "__call__", "forward"):
            found = program.method(name, method)
            if found is not None:
                by_name.setdefault(name, []).append(found)
    callers: dict[cst.FunctionDef, set[cst.FunctionDef]] = {f: set() for f, _, _ in functions}
    inits = {owner: f for f, owner, _ in functions if owner is not None and f.name.value == "__init__"}
    for function, owner, path in functions:
        init = inits.get(owner) if owner is not None else None
        if init is not None and init is not function:
            callers[function].add(init)  # an instance is made before its other methods run
        # By name: ``f()``, ``self.f()``, ``Cls.f()``, ``obj.f()`` (an order only, so any ``f`` will do).
        text = text_of(path)
        names = set(_CALLED.findall(text)) if text is not None else _called_names(function)
        for name in names:
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


# A name followed by a call's parenthesis, in a function's source text (a superset of what it calls).
_CALLED = re.compile(r"(\w+)\s*\(")


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


def _statement_count(body: Sequence[cst.BaseStatement]) -> int:
    """How many statements ``body`` holds, at any depth (nested functions and classes too)."""
    count = 0
    stack: list[Sequence[cst.BaseStatement]] = [body]
    while stack:
        for statement in stack.pop():
            if isinstance(statement, cst.SimpleStatementLine):
                count += len(statement.body)
                continue
            count += 1
            if isinstance(statement, cst.BaseCompoundStatement):
                stack.extend(compound_blocks(statement))
    return count
