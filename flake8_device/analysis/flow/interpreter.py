"""The device-flow interpreter: statements and expressions of one scope, in order.

Each scope (the top-level script, every function and method) is interpreted in statement order
over an abstract state mapping names (``x``, ``self.mask``, ``batch.x``) to a
:class:`~.values.Value`.  Branches are joined, loops are iterated to a fixed point before their
events are recorded, and the result is a list of events (:mod:`.events`) that rules turn into
findings.  The other jobs live in mixins: calls (:mod:`.calls`), moves and device expressions
(:mod:`.placement`), device conditions (:mod:`.conditions`) and the rule-specific checks
(:mod:`.checks`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.flow.calls import CallsMixin
from flake8_device.analysis.flow.checks import ChecksMixin
from flake8_device.analysis.flow.conditions import ConditionsMixin
from flake8_device.analysis.flow.events import (
    AttributeStore,
    DiscardedMove,
    Event,
    HostMeetsInput,
    IndexMismatch,
    Mix,
    Operand,
    PlainAttributeMeets,
)
from flake8_device.analysis.flow.inputs import tensor_inputs
from flake8_device.analysis.flow.knowledge import (
    DATA_LOADING_CODE,
    DEVICE_NAME,
    HOST_WORDS,
    LOADER_NAME,
    MODULE_TENSOR_EVIDENCE,
    NO_GRAD,
    OPTIMIZER_CLASS_NAMES,
    OPTIMIZER_CLASS_PREFIX,
    PASS_THROUGH_CALLS,
    TENSOR_EVIDENCE,
    names_cpu,
)
from flake8_device.analysis.flow.local_calls import LocalCallsMixin, placeholder
from flake8_device.analysis.flow.placement import PlacementMixin
from flake8_device.analysis.flow.program import rebound_names
from flake8_device.analysis.flow.state import Env, State, join_states
from flake8_device.analysis.flow.summaries import STATE, Summary, without_parameters
from flake8_device.analysis.flow.syntax import (
    block_of,
    compound_blocks,
    captures,
    is_static,
    last_name,
    operator_symbol,
    parameters_of,
    path_of,
    target_paths,
)
from flake8_device.analysis.flow.values import (
    NEUTRAL,
    UNKNOWN,
    Kind,
    Value,
    alternatives,
    carries_tensor,
    choices_of,
    chosen_along,
    chosen_by,
    compatible,
    constant_everywhere,
    container_of,
    element_of,
    element_values,
    guarded,
    item_at,
    item_of,
    join,
    keyed_dict,
    leaves,
    lift,
    negate,
    neutral_constant,
    placement_of,
    tensorish,
    union,
    with_item,
)
from flake8_device.analysis.symbols import dotted_name

if TYPE_CHECKING:
    from flake8_device.analysis.flow.base import FileAnalysis
    from flake8_device.analysis.symbols import Symbols

# A branch test about devices (``x.device == device``, ``x.is_cuda``): what it returns is chosen by it.
_DEVICE_WORD = re.compile(r"device|\bdev\b|cuda|gpu|\bcpu\b|\bmps\b", re.I)

# Libraries that place models and batches themselves.
_AUTO_PLACEMENT = ("accelerate", "lightning.fabric", "lightning_fabric", "torch_xla.distributed.parallel_loader")

# Loops nested deeper than this are interpreted once, without iterating to a fixed point.
MAX_LOOP_DEPTH = 3


def _mark_cpu_literal_paths(branches: list[State]) -> None:
    """A branch that sets a device to the CPU literal where another sets one that may be an
    accelerator runs on the CPU only (``if args.test: device = "cpu" else: device = "cuda"``)."""
    live = [b for b in branches if not b.terminated and not b.cpu_only]
    if len(live) < 2:
        return
    names = {name for b in live for name in b.env if DEVICE_NAME.search(name)}
    for name in names:
        on_cpu = [b for b in live if b.env.get(name, UNKNOWN).constant == "cpu"]
        if on_cpu and len(on_cpu) < len(live):
            for branch in on_cpu:
                branch.cpu_only = True


_NOT_TENSOR_TYPES = re.compile(
    r"(?:numpy\.ndarray|ndarray|list|tuple|dict|int|float|str|bool|numbers\.\w+|\w+\.Number)$"
)


def _positioned_leaves(value: Value, *, containers: bool) -> list[tuple[int, Value]]:
    """The places of an operand, each with the position of the element of a container it is in
    (``parts = [x, y]``: ``x`` and ``y`` are two values; the alternatives of one element are not)."""
    if containers and value.kind is Kind.CONTAINER:
        return [(position, leaf) for position, element in enumerate(value.elements) for leaf in leaves(element)]
    return [(0, leaf) for leaf in leaves(value, containers=containers)]


_TENSOR_TYPES = ("torch.Tensor", "torch.nn.Parameter")


def _isinstance_test(call: cst.Call, symbols: Symbols) -> tuple[str, bool] | None:
    """``isinstance(x, T)``: ``x``'s path and whether ``T`` is a tensor type (None: neither kind)."""
    if dotted_name(call.func) != "isinstance" or len(call.args) != 2:
        return None
    path = path_of(call.args[0].value)
    kinds = call.args[1].value
    types = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    names = [symbols.qualify(t) or dotted_name(t) or "" for t in types]
    if path is None:
        return None
    if names and all(n in _TENSOR_TYPES for n in names):
        return path, True
    if names and all(_NOT_TENSOR_TYPES.search(n) for n in names):
        return path, False
    return None


def _element(value: Value) -> Value:
    """One element of iterating ``value``: a container's element; a tensor's rows (or the tensors of
    a module's input, which may be a list of them) are where it is.  A row of a 1-D tensor is 0-dim
    (``for t in torch.linspace(0, 1, n)``)."""
    if value.kind is Kind.CONTAINER:
        return element_values(value)
    if value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and value.module is not True and not value.batch:
        return replace(value, scalar=value.kind is not Kind.INPUT, origin=value.origin)
    return UNKNOWN


def _code_key(code: str) -> str:
    return "".join(code.split())


def _statements_in(body: Sequence[cst.BaseStatement]) -> list[cst.SimpleStatementLine]:
    """The simple statements of a block, nested blocks included (not nested functions or classes)."""
    found: list[cst.SimpleStatementLine] = []
    stack = list(body)
    while stack:
        statement = stack.pop()
        if isinstance(statement, cst.SimpleStatementLine):
            found.append(statement)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        elif isinstance(statement, cst.BaseCompoundStatement):
            for block in compound_blocks(statement):
                stack.extend(block)
    return found


def _value_path(node: cst.BaseExpression, symbols: Symbols) -> str | None:
    """The variable an expression reads without moving it: ``freqs`` for ``freqs.cos()``,
    ``freqs.float()`` or ``torch.ones_like(freqs)``, ``self.table`` for ``self.table.sum(0)``; None
    for anything else (``torch.zeros(n)`` is made there: it reads no variable of ``torch``)."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value in ("to", "cuda", "cpu", "type", "type_as", "new_tensor", "new_zeros", "new_ones"):
            return None
        qualified = symbols.qualify(node.func)
        if qualified in torch_api.LIKE_FACTORIES:
            # ``torch.ones_like(freqs)`` is made where ``freqs`` is, path by path.
            if not node.args or node.args[0].keyword is not None or patterns.keyword(node, "device") is not None:
                return None
            node = node.args[0].value
            continue
        if qualified is not None:
            return None  # a function of an imported module, not a method of a value
        node = node.func.value
    return path_of(node)


def _one_value(a: cst.BaseExpression, b: cst.BaseExpression, symbols: Symbols) -> bool:
    """Two operands that are one value along each path: one variable (``torch.cat(parts)``, the
    elements of a list built by one loop), or computations on one variable with no move between
    (``torch.cat([f.cos(), f.sin()])``), whose alternatives are chosen together."""
    if a is b:
        return path_of(a) is not None
    path = _value_path(a, symbols)
    return path is not None and path == _value_path(b, symbols)


def _apart(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two places of one operand in different elements of its container (see ``_positioned_leaves``)."""
    return a[0] == b[0] and a[1] != b[1]


def _to_own_device(call: cst.Call, receiver: cst.BaseExpression) -> bool:
    """``x.to(x.device, ...)`` / ``x.to(device=x.device)``: the device it names is its own."""
    path = path_of(receiver)
    target = patterns.keyword(call, "device") or patterns.positional(call, 0)
    value = target.value if target is not None else None
    return (
        path is not None
        and isinstance(value, cst.Attribute)
        and value.attr.value == "device"
        and path_of(value.value) == path
    )


# The longest literal list a comprehension is followed through item by item.
_LITERAL_ITEMS = 8

# What callers outside the file may pass a parameter, as one more "call" (see ``_given_by_calls``).
_ELSEWHERE = "elsewhere"


def _given_by_calls(
    function: cst.FunctionDef,
    context: dict[str, list[tuple[int, Value]]],
    defaults: dict[str, Value],
) -> dict[str, tuple[list[Value], Value | None]]:
    """For each parameter the file's calls pass (and each attribute of ``self`` where a method is
    called): what they pass, and what callers elsewhere may (its default place).  Where the calls
    differ, each value remembers its call (calls passing the same things share one), and callers
    elsewhere are one more call: what one call passes never meets what another passes for another
    parameter, or what ``self`` held at another call."""
    calls = f"calls of {function.name.value}"
    private = _private(function)  # (called by this file's code only: what its calls pass is all it gets)
    bindings: dict[int, set[tuple[str, Value]]] = {}
    for name, given in context.items():
        for call, value in given:
            bindings.setdefault(call, set()).add((name, value))
    first: dict[frozenset[tuple[str, Value]], int] = {}
    alike = {call: first.setdefault(frozenset(bound), call) for call, bound in sorted(bindings.items())}
    elsewhere_too = not private and any(defaults.get(name, UNKNOWN).kind is not Kind.UNKNOWN for name in context)
    apart = len(set(alike.values())) + elsewhere_too > 1
    found = {}
    for name, given in context.items():
        elsewhere = None if private else defaults.get(name, UNKNOWN)
        if name.startswith("self.") and not private:
            # (What ``self`` holds at each call is no parameter with a default: a caller elsewhere
            # may find it as any of the file's calls leave it.)
            elsewhere = union([value for _, value in given])
        if not apart:
            found[name] = ([value for _, value in given], elsewhere)
            continue
        values = [chosen_along(value, calls, f"#{alike[call]}") for call, value in given]
        found[name] = (values, None if elsewhere is None else chosen_along(elsewhere, calls, _ELSEWHERE))
    return found


def _registered_submodule(value: Value) -> Value:
    """What a module's own submodule is in its methods: where the module is."""
    if value.module is True and value.container is None:
        return Value(Kind.INPUT, module=True, stateful=value.stateful, class_name=value.class_name)
    return value


def _private(function: cst.FunctionDef) -> bool:
    """``_rel_shift``: by convention, called by its own module's code only."""
    return function.name.value.startswith("_") and not function.name.value.startswith("__")


def _forward_inputs(function: cst.FunctionDef, *, skip_first: bool) -> list[str]:
    """The parameters of ``forward`` that take data: no default (or ``None``), no scalar annotation."""
    params = [*function.params.posonly_params, *function.params.params]
    if skip_first:
        params = params[1:]
    found = []
    for param in params:
        default = param.default
        if default is not None and not (isinstance(default, cst.Name) and default.value == "None"):
            continue
        annotation = dotted_name(param.annotation.annotation) if param.annotation else None
        if annotation == "str" or _annotated_as_numbers(param):
            continue
        found.append(param.name.value)
    return found


def _parts_known(test: cst.BaseExpression, *, holds: bool) -> list[tuple[cst.BaseExpression, bool]]:
    """The parts of a test whose value its outcome tells: each side of an ``and`` that holds, of an
    ``or`` that fails (through ``not``), with the value each has."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _parts_known(test.expression, holds=not holds)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And if holds else cst.Or):
        return [*_parts_known(test.left, holds=holds), *_parts_known(test.right, holds=holds)]
    return [(test, holds)]


def _none_test(test: cst.BaseExpression) -> tuple[str, bool] | None:
    """``x is None`` -> ("x", True); ``x is not None`` -> ("x", False); anything else -> None."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        path = path_of(test.left)
        if path is not None and isinstance(target.comparator, cst.Name) and target.comparator.value == "None":
            if isinstance(target.operator, cst.Is):
                return path, True
            if isinstance(target.operator, cst.IsNot):
                return path, False
    return None


def _combined_source(a: Value, b: Value) -> str | None:
    """The parameter a value computed from ``a`` and ``b`` follows; ``"*"`` when several."""
    if a.source == b.source:
        return a.source
    return "*" if a.source or b.source else None


def _equal_sides(
    test: cst.BaseExpression, *, holds: bool
) -> list[tuple[cst.BaseExpression, cst.BaseExpression, bool]]:
    """The two sides of each comparison a branch knows are equal: ``a == b`` (or ``a is b``) where
    the test holds, ``a != b`` (``is not``) where it fails, through ``not``, ``and`` and ``or``;
    with whether the comparison was an identity (``is``)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _equal_sides(test.expression, holds=not holds)
    if isinstance(test, cst.BooleanOperation):
        conjunction = isinstance(test.operator, cst.And)
        if conjunction != holds:
            return []  # one of the parts holds (or fails), which one is not known
        return _equal_sides(test.left, holds=holds) + _equal_sides(test.right, holds=holds)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comparison = test.comparisons[0]
        operator = comparison.operator
        if (isinstance(operator, (cst.Equal, cst.Is)) and holds) or (
            isinstance(operator, (cst.NotEqual, cst.IsNot)) and not holds
        ):
            return [(test.left, comparison.comparator, isinstance(operator, (cst.Is, cst.IsNot)))]
    return []


def _device_equalities(test: cst.BaseExpression, *, holds: bool) -> list[tuple[str, str]]:
    """The pairs of paths a branch knows are on one device: ``a.device == b.device`` where the test
    holds, ``a.device != b.device`` where it fails (through ``not``, ``and`` and ``or``)."""
    found = []
    for left, right, _ in _equal_sides(test, holds=holds):
        if all(isinstance(side, cst.Attribute) and side.attr.value == "device" for side in (left, right)):
            paths = [path_of(side.value) for side in (left, right)]  # type: ignore[attr-defined]
            if paths[0] is not None and paths[1] is not None:
                found.append((paths[0], paths[1]))
    return found


def _device_tests(test: cst.BaseExpression, *, holds: bool) -> list[tuple[str, cst.Call]]:
    """The paths a branch knows are on a device written as ``torch.device(...)``: ``x.device ==
    torch.device(d)`` where the test holds, ``!=`` where it fails (through ``not`` and ``and``/``or``)."""
    found = []
    for left, right, identity in _equal_sides(test, holds=holds):
        if identity:
            continue
        if isinstance(right, cst.Attribute) and isinstance(left, cst.Call):
            left, right = right, left
        if not (isinstance(left, cst.Attribute) and left.attr.value == "device" and isinstance(right, cst.Call)):
            continue
        if dotted_name(right.func) not in ("torch.device", "device") or not right.args:
            continue
        path = path_of(left.value)
        if path is not None:
            found.append((path, right))
    return found


def _keeps_dimension(index: cst.BaseSlice) -> bool:
    """An index that keeps (or adds) a dimension: a slice, ``...`` or ``None``."""
    if isinstance(index, cst.Slice):
        return True
    value = index.value if isinstance(index, cst.Index) else None
    return isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None")


def _unseen_operand(value: Value) -> bool:
    """An operand the analysis cannot see (a number, or a tensor somewhere), not a container."""
    return value.kind is Kind.UNKNOWN and value.container is None and value.module is not True


def _placed_tensor(value: Value) -> bool:
    """A tensor of one or more dimensions whose place is known (or is where the inputs are)."""
    return (
        value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT)
        and value.module is False
        and not value.scalar
        and value.container is None
        and not value.generator
        and not value.distribution
        and value.optimizer is None
    )


def _host_where_given(
    places: Sequence[tuple[tuple[int, int], Operand]], at: tuple[int, int], partner: Operand, whole: Value
) -> bool:
    """``partner`` is where the inputs are only for callers elsewhere, while every call in the file
    passes a host tensor there (``get_embedding(torch.tensor(scale))``): the file says its inputs are
    on the host, so a host tensor meeting them is no finding.  (Not where some call passes what is
    not known: ``whole``, the operand, may then be anywhere.)"""
    calls = next((key for key, which in partner.value.placed_by if which == _ELSEWHERE), None)
    if calls is None or any(a.kind is Kind.UNKNOWN for a in alternatives(whole)):
        return False
    given = [
        o.value
        for (index, _), o in places
        if index == at[0] and any(key == calls and which != _ELSEWHERE for key, which in o.value.placed_by)
    ]
    return bool(given) and all(value.kind is Kind.HOST and tensorish(value) for value in given)


def _clash(a: Value, b: Value) -> bool:
    """Tensors on the host and on the accelerator: the operation fails along this path."""
    kinds = {a.kind, b.kind}
    return kinds == {Kind.HOST, Kind.ACCEL} and tensorish(a) and tensorish(b) and not (a.scalar or b.scalar)


class Interpreter(CallsMixin, LocalCallsMixin, ChecksMixin, ConditionsMixin, PlacementMixin):
    def __init__(
        self,
        analysis: FileAnalysis,
        function: cst.FunctionDef | None,
        owner: cst.ClassDef | None,
        path: tuple[str, ...] = (),
        *,
        summary_mode: bool = False,
        report: bool = True,
    ) -> None:
        self.analysis = analysis
        self.budget = analysis.budget
        # Events of this run become findings (the code around selected units runs for context only).
        self.report = report and not summary_mode
        # Summarising a function for its callers: parameters stand for the caller's values, and
        # no event is recorded (the function's own run reports its findings).
        self.summary_mode = summary_mode
        self.returns: list[Value] = []
        self.yields: list[Value] = []  # (what a generator function gives each step)
        # Parameters moved in place (``model.to(device)`` on a parameter), with their value then.
        self.moved_in_place: dict[str, Value] = {}
        # Parameters (dicts) the function stored entries into by string key (see ``Summary.entries``).
        self.entries_stored: set[str] = set()
        # The attributes of ``self`` the run started from (see ``seed_attributes``).
        self.seeded: dict[str, Value] = {}
        # Summary mode: the parameters, those the function moves to a device itself, and the pairs
        # of them that meet.
        self.parameters: set[str] = set()
        self.moves_itself: set[str] = set()
        self.parameter_meets: set[tuple[str, str]] = set()
        # Summary mode: an optimizer's state is reloaded after a parameter was moved.
        self.reloads_optimizers = False
        # It moves what it cannot follow (``getattr(obj, key).to(device)``): see ``Summary``.
        self.moves_unseen = False
        # Where the host tensors the file's callers pass this function were made (see ``_given``).
        self.given_origins: set[int] = set()
        self.cpu_defaults: frozenset[str] = frozenset()
        self.discarded: cst.Call | None = None
        # Inside ``for k in d:`` (``d.keys()``, ``d.items()``): the loop's key name -> the dict's path.
        self.iterated_keys: dict[str, str] = {}
        # ``for k in ["a", "b"]:``: the keys ``k`` takes (``d[k]`` reads those entries only).
        self.literal_keys: dict[str, tuple[str, ...]] = {}
        # In such a loop: the stores ``d[k] = ...`` that run for every tensor entry of ``d`` (by
        # node identity), and the value each last stored, by ``d``'s path (see ``_loop_body``).
        self.entry_stores: frozenset[int] = frozenset()
        self.stored_entries: dict[str, Value] = {}
        # ``dit = pipe.transformer``: the path each name was read from an attribute of (see ``_part_moved``).
        self.parts: dict[str, str] = {}
        self.last_entries_stored: tuple[cst.For | cst.While | None, dict[str, Value]] = (None, {})
        # Summary mode: the tests of the branches around the statement, and the parameters returned
        # as they came along a path whose tests name no device (see ``Summary.passes_through``).
        self.tests: list[str] = []
        self.passes_through: set[str] = set()
        self.ctx = analysis.ctx
        self.symbols = analysis.ctx.symbols
        self.function = function
        self.owner = owner
        self.path = path
        self.state = State()
        self.record = not summary_mode
        self.no_grad = 0
        self.scoped_device = False
        self.loop_depth = 0
        # For each loop being run, the states at its ``continue``/``break`` statements (they go on
        # to the next step or after the loop, not out of the function).
        self.loop_exits: list[list[State]] = []
        self.self_name: str | None = None
        # The simple statement being interpreted (None inside compound-statement headers).
        self.statement: cst.SimpleStatementLine | None = None
        self.in_module_class = owner is not None and self.symbols.is_local_module_class(owner.name.value)
        # Run only while a module's ``__init__`` builds it (nothing can have moved it yet).
        self.building_module = (
            self.in_module_class
            and function is not None
            and self.ctx.classes.runs_only_in_construction(function.name.value)
        )
        self.in_lightning_module = owner is not None and self.symbols.is_lightning_module_class(owner.name.value)
        self.uses_auto_placement = any(
            # (torch_xla's MpDeviceLoader / ParallelLoader put every batch on the XLA device.)
            t.startswith(_AUTO_PLACEMENT) for t in self.symbols.imports.values()
        )

    @cached_property
    def _outside(self) -> frozenset[str]:
        """The plain names of this scope that may hold what the state does not track (see
        ``join_states``): the parameters, imports, and names declared global or nonlocal."""
        return self.analysis.names_from_outside(self.function)

    def run(self, body: Sequence[cst.BaseStatement]) -> dict[str, Value]:
        self._block(body)
        self._flush_pending()
        return self.state.env

    def _host_side(self, function: cst.FunctionDef) -> bool:
        """Code that says it works on host tensors: a collator's, a dataset's or a sampler's (by its
        name, its class's, or that class's bases), or a function whose docstring (or an enclosing
        function's) says "host" or "CPU"."""
        named = [function.name.value]
        if self.owner is not None:
            named += [self.owner.name.value, *(self.ctx.code_for(base.value) for base in self.owner.bases)]
        if any(DATA_LOADING_CODE.search(name) for name in named):
            return True
        scope: cst.FunctionDef | None = function
        while scope is not None:  # (a nested function is what its enclosing function says too)
            docstring = scope.get_docstring(clean=False)
            if docstring is not None and HOST_WORDS.search(docstring) is not None:
                return True
            scope = self.analysis.enclosing.get(scope)
        return False

    def run_function(self) -> dict[str, Value]:
        function = self.function
        assert function is not None
        self._bind_self()
        if self.owner is not None and self.self_name is not None and function.name.value != "__init__":
            self.seed_attributes(self.analysis.attribute_state(self.owner.name.value))
            self._seed_from_construction()
            if self.analysis.optimizer_class(self.owner.name.value):
                # An optimizer's parameters (and their gradients) are wherever the model it was
                # given is: one place, which its own code must follow.
                parameters = container_of("list", [Value(Kind.INPUT, module=False)])
                groups = container_of("list", [keyed_dict(["params"], [parameters])])
                self.state.env[f"{self.self_name}.param_groups"] = groups
        attributes = MODULE_TENSOR_EVIDENCE if self.in_module_class else TENSOR_EVIDENCE
        functions = self.ctx.functions
        evidence = functions.evidence(self.path, attributes) if functions is not None else None
        inputs = tensor_inputs(
            function,
            self.ctx,
            skip_first=self.self_name is not None,
            in_module=self.in_module_class,
            device_aware=not self.in_module_class,
            host_side=self._host_side(function),
            evidence=evidence,
        )
        context = self.analysis.contexts.get(function, {})
        defaults = {name: Value(Kind.INPUT, module=False) for name in inputs}
        if self.in_module_class and function.name.value == "forward":
            # What reaches a module's forward is its input: tensors, or containers of them.
            for name in _forward_inputs(function, skip_first=self.self_name is not None):
                defaults.setdefault(name, Value(Kind.INPUT, module=None))
        by_calls = _given_by_calls(function, context, defaults)
        if self.self_name is not None:
            # What ``self`` holds where the file calls this method on it, by call.
            # (The calls in the file show the order its methods run in: trusted over the class's
            # attributes joined across all its methods.)
            given = {
                k[len("self.") :]: union([*values, *([] if elsewhere is None else [elsewhere])])
                for k, (values, elsewhere) in by_calls.items()
                if k.startswith("self.")
            }
            if given and self.building_module:
                # Called only while ``__init__`` builds the module: nothing has moved it yet, so
                # its layers are where that construction made them.
                for attribute, value in given.items():
                    self.state.env[f"{self.self_name}.{attribute}"] = value
            elif given:
                self.seed_attributes(given)
        # What the file's own calls pass, joined with what other callers may pass.
        for name, (values, elsewhere) in by_calls.items():
            if name.startswith("self."):
                continue
            defaults[name] = choices_of(name, union([*values, *([] if elsewhere is None else [elsewhere])]))
            self.given_origins.update(
                id(leaf.origin)
                for value in values
                for leaf in leaves(value)
                if leaf.kind is Kind.HOST and leaf.origin is not None
            )
        for name in _number_parameters(function):
            # Annotated as numbers (``window_size: tuple[int, int]``), whatever a call gives (a flag
            # the calls give as constants keeps them).
            if not constant_everywhere(defaults.get(name, UNKNOWN)):
                defaults[name] = NEUTRAL
        for name, value in defaults.items():
            if value.kind is not Kind.UNKNOWN:
                self.state.env[name] = value
        self.cpu_defaults = frozenset(
            name for name in _cpu_defaults(function) if name not in context and name not in self.state.env
        )
        for name, given in context.items():
            if LOADER_NAME.search(name) and given and all(v.kind is Kind.UNKNOWN for _, v in given):
                # A loader the file's calls build with something not followed (``create_loader``, a
                # prefetcher, ``accelerator.prepare``): where its batches are is not known.
                self.state.env[name] = UNKNOWN
        self._seed_closure(function)
        return self.run(block_of(function.body))

    def _seed_closure(self, function: cst.FunctionDef) -> None:
        """A function defined in another reads that function's names as they are when it runs:
        what they hold at the end of the enclosing function (which runs first: it calls it)."""
        enclosing = self.analysis.enclosing.get(function)
        outer = self.analysis.final_env.get(enclosing) if enclosing is not None else None
        if not outer:
            return
        own = self.analysis.names_from_outside(function)
        for name, value in outer.items():
            if name.split(".")[0] not in own and name not in self.state.env and value.kind is not Kind.UNKNOWN:
                self.state.env[name] = value

    def _seed_from_construction(self) -> None:
        """The optimizers (and distributions) ``__init__`` left in attributes that the class's
        summaries cannot tell (built from what the file's constructions pass it:
        ``optimizer_fn(self.model.parameters())``, ``Uniform(low, high)``), once it ran. (Only
        these: they are facts of the construction, whatever the method.)"""
        assert self.owner is not None
        init = self.analysis.program.method(self.owner.name.value, "__init__")
        built = self.analysis.final_env.get(init) if init is not None else None
        params = [*init.params.posonly_params, *init.params.params] if init is not None else []
        if not built or not params:
            return
        prefix = params[0].name.value + "."
        gaps = {
            path[len(prefix) :]: value
            for path, value in built.items()
            if path.startswith(prefix)
            and "." not in path[len(prefix) :]
            and any(leaf.optimizer is not None or leaf.distribution for leaf in leaves(value))
            and self.state.env.get(f"{self.self_name}.{path[len(prefix) :]}", UNKNOWN).kind is Kind.UNKNOWN
        }
        if gaps:
            self.seed_attributes(gaps)

    def _bind_self(self) -> None:
        function = self.function
        assert function is not None
        params = [*function.params.posonly_params, *function.params.params]
        if self.owner is not None and not is_static(function) and params:
            self.self_name = params[0].name.value

    def seed_attributes(self, attributes: dict[str, Value]) -> None:
        """Start a method from what ``self``'s attributes hold (see FlowAnalysis.attribute_state).

        A module's submodules, parameters and buffers go wherever the module goes: they are read
        from the class's registrations (see ``_self_attribute``), not from where they were made."""
        if self.self_name is None:
            self._bind_self()
        if self.self_name is None:
            return
        info = self.ctx.class_info(self.owner) if self.owner is not None and self.in_module_class else None
        moves_itself = info is not None and not self.analysis.keeps_place(info.name)
        # A class with a base from elsewhere (``ModelMixin``) may be a module: what it holds may move
        # with it, so where its submodules and tensors are is not known.
        # So is a class with a ``to``/``cuda`` of its own (a scheduler or solver moving its tables).
        maybe_module = info is None and self.owner is not None and self.analysis.program.moves_itself(
            self.owner.name.value
        )
        for attribute, value in attributes.items():
            if info is not None and info.holds_state(attribute) and not any(leaf.held for leaf in leaves(value)):
                continue  # (a parameter along some paths of the construction only: see ``held``)
            if moves_itself and carries_tensor(value):
                continue  # its own ``_apply``/``to`` moves what it holds: where to is not known here
            if maybe_module and (carries_tensor(value) or any(leaf.module is True for leaf in leaves(value))):
                continue
            if info is not None:
                # A submodule (along the paths that made one: ``self.bias = nn.Embedding(...)`` or
                # ``None``) goes wherever the module goes.
                value = lift(value, _registered_submodule)
            value = without_parameters(value)  # what the construction was given is not known here
            if carries_tensor(value):
                # One attribute is one of its places along each path: what is placed by its device
                # (``t.to(self.timesteps.device)``) meets it along the same choice.
                value = self._by_alternative(value)
            if value.kind is not Kind.UNKNOWN or value.class_name is not None:
                self.state.env[f"{self.self_name}.{attribute}"] = value
                self.seeded[f"{self.self_name}.{attribute}"] = value

    def summarize(self) -> Summary:
        """Interpret the function with its parameters standing for the caller's values."""
        function = self.function
        assert function is not None
        self._bind_self()
        params = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
        numbers = set(_number_parameters(function))
        flags = self._fixed_flags
        for param in params:
            name = param.name.value
            if name == self.self_name or DEVICE_NAME.search(name):
                continue  # a device parameter keeps its name: ``x.to(device)`` reads as written
            if name in flags:
                # ``zero_triu=False`` that every call of the file leaves alone: its branches that
                # need it True are no path of any call.
                self.state.env[name] = neutral_constant(flags[name])
                continue
            if name in numbers:
                # ``scale_factor: int``: a number whatever the call gives (a 0-dim tensor times it
                # stays 0-dim).
                self.state.env[name] = NEUTRAL
                continue
            self.state.env[name] = Value(Kind.INPUT, module=None, source=name)
            self.parameters.add(name)
        self.run(block_of(function.body))
        returns = union(self.returns) if self.returns else NEUTRAL
        if self.yields and not function.decorators:
            # A generator function (not a context manager): iterating what it returns gives what
            # it yields (``for batch in endless(loader)``, ``next(endless(loader))``).
            returns = container_of("list", [union(self.yields)])
        prefix = f"{self.self_name}." if self.self_name else None
        attributes = {}
        if prefix is not None:
            attributes = {
                path[len(prefix) :]: value
                for path, value in self.state.env.items()
                if path.startswith(prefix) and "." not in path[len(prefix) :] and self.seeded.get(path) != value
            }
            self._fold_parts(prefix, attributes)
        placed = self.state.env.get(self.self_name) if self.self_name else None
        return Summary(
            returns=returns,
            moves=dict(self.moved_in_place),
            entries={
                p: held
                for p in sorted(self.entries_stored)
                if (held := self.state.env.get(p)) is not None and held.kind is Kind.CONTAINER and held.keys
            },
            attributes=attributes,
            placed=placed,
            moves_itself=frozenset(self.moves_itself),
            meets=frozenset(self.parameter_meets),
            reloads_optimizers=self.reloads_optimizers,
            moves_unseen=self.moves_unseen,
            passes_through=frozenset(self.passes_through),
        )

    def _fold_parts(self, prefix: str, attributes: dict[str, Value]) -> None:
        """An attribute of an instance ``self`` holds, changed here (``self.state.model.to(device)``):
        the instance, as the summary gives it, holds it changed."""
        for path, value in self.state.env.items():
            head, _, part = path[len(prefix) :].partition(".") if path.startswith(prefix) else ("", "", "")
            if not part or "." in part:
                continue
            holder = attributes.get(head, self.state.env.get(prefix + head))
            if holder is None or holder.kind is Kind.MAYBE or dict(holder.attributes).get(part, value) == value:
                continue
            parts = tuple((name, value if name == part else held) for name, held in holder.attributes)
            attributes[head] = replace(holder, attributes=parts)

    def _emit(self, event: Event, key_node: cst.CSTNode) -> None:
        if self.record and self.report and not self.state.cpu_only:
            self.analysis.add(event, key_node, self.function)

    # -- statements -------------------------------------------------------------

    def _block(self, body: Sequence[cst.BaseStatement]) -> None:
        for statement in body:
            if self.state.terminated:
                return
            self._statement(statement)

    def _statement(self, statement: cst.BaseStatement) -> None:
        budget = self.budget
        budget.left -= 1
        if budget.left < 0:
            budget.exhausted()
        if isinstance(statement, cst.SimpleStatementLine):
            self.statement = statement
            for small in statement.body:
                self._small(small, statement)
        elif isinstance(statement, cst.If):
            self._eval(statement.test)
            before = self.state
            cpu_when = self._cpu_when(statement.test)
            none_test = _none_test(statement.test)
            type_test = self._type_test(statement.test) if none_test is None else None
            none_tested = none_test or type_test
            # ``if isinstance(pos, int): pos = torch.arange(pos)`` in a summary: a caller passing a
            # tensor never takes that branch, so what it makes of ``pos`` there is not what such a
            # call gets (a caller passing a number is given what the test's other side computes).
            untyped = type_test if self.summary_mode and type_test and type_test[0] in self.parameters else None
            guard = self._guard_text(statement.test)
            branches = []
            self.state = before.copy()
            self.state.cpu_only |= cpu_when is True
            if none_tested is not None:
                self._narrow(none_tested[0], is_none=none_tested[1])
            self._same_devices(_device_equalities(statement.test, holds=True))
            self._placed_by_test(statement.test, holds=True)
            self._assume_test(statement.test, guard, holds=True)
            filled = self._not_empty_test(statement.test)
            if filled is not None:
                self.state.not_empty = self.state.not_empty | set(self._emptiness_keys(filled))
            known = self._flag_test(statement.test)
            self.tests.append(guard)
            if known is False:
                self.state.terminated = True  # ``if first:`` where ``first`` is False on every path here
            else:
                self._block(block_of(statement.body))
            self.tests.pop()
            if untyped is not None and untyped[1]:
                self._keep_parameter(untyped[0], before)
            branches.append(self.state)
            self.state = before.copy()
            # The `else` of an accelerator test is CPU-only; an `elif` may test another accelerator.
            self.state.cpu_only |= cpu_when is False and not isinstance(statement.orelse, cst.If)
            if none_tested is not None:
                self._narrow(none_tested[0], is_none=not none_tested[1])
            self._same_devices(_device_equalities(statement.test, holds=False))
            self._placed_by_test(statement.test, holds=False)
            self._assume_test(statement.test, guard, holds=False)
            self.tests.append(negate(guard))
            if known is True:
                self.state.terminated = True
            elif statement.orelse is not None:
                if isinstance(statement.orelse, cst.If):
                    self._statement(statement.orelse)
                else:
                    self._block(block_of(statement.orelse.body))
            self.tests.pop()
            if untyped is not None and not untyped[1]:
                self._keep_parameter(untyped[0], before)
            branches.append(self.state)
            _mark_cpu_literal_paths(branches)
            self.state = join_states(branches, (guard, negate(guard)), self._outside)
            self._join_placements_under(statement, branches[0], branches[1], before)
        elif isinstance(statement, (cst.For, cst.While)):
            self._loop(statement)
        elif isinstance(statement, cst.With):
            self._with(statement)
        elif isinstance(statement, cst.Try):
            self._try(statement)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            name = statement.name.value
            if self.analysis.program.functions.get(name) is statement:
                # The file's own function: calls to it apply its summary (see ``_local_callee``).
                self.state.env.pop(name, None)
            else:
                self.state.env[name] = UNKNOWN
        elif isinstance(statement, cst.Match):
            self._match(statement)
        # Other compound statements (none in Python 3.12) are skipped: their bindings are
        # unknown to us, so we forget what we knew of anything they may bind.
        else:
            self.state.env = Env()

    def _keep_parameter(self, name: str, before: State) -> None:
        """A parameter rebound along a branch only a non-tensor takes keeps, as callers passing a
        tensor see it, what it held before (see ``untyped`` in ``_statement``).  A conversion of
        the caller's data there (``seq = torch.tensor(seq)``) follows each call already."""
        now = self.state.env.get(name)
        if self.state.terminated or (now is not None and any(v.converted or v.source == name for v in leaves(now))):
            return
        held = before.env.get(name)
        if held is None:
            self.state.env.pop(name, None)
        else:
            self.state.env[name] = held

    def _type_test(self, test: cst.BaseExpression) -> tuple[str, bool] | None:
        """``isinstance(x, np.ndarray)`` (or a flag bound to one): ``x`` is no tensor where it holds,
        like ``x is None`` (see ``_narrow``); ``isinstance(x, torch.Tensor)``: where it fails."""
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        inner = test.expression if negated else test  # type: ignore[attr-defined]
        found = _isinstance_test(inner, self.symbols) if isinstance(inner, cst.Call) else None
        if found is None:
            found = self.state.type_tests.get(path_of(inner) or "")
        if found is None:
            return None
        path, tensor_type = found
        # (path, True): not a tensor where the test holds; (path, False): where it fails.
        return path, (not tensor_type) != negated

    def _record_parameter_meet(self, places: list[tuple[tuple[int, int], Operand]]) -> None:
        """In a summary: which parameters' tensors meet here (checked at each call, see ``meets``)."""
        sources = {(i, o.value.source) for i, o in places if o.value.source not in (None, "*")}
        for first_index, first in sources:
            for second_index, second in sources:
                if first_index != second_index and first != second:
                    self.parameter_meets.add((min(first, second), max(first, second)))
        if self.in_module_class:
            # A parameter's tensor meeting the module's own (its weights, or a tensor made where
            # they are): ``x * self.scale``.
            for index, source in sources:
                if any(
                    i != index and o.value.source is None and o.value.kind in (Kind.INPUT, Kind.ACCEL)
                    for i, o in places
                ):
                    self.parameter_meets.add((source, STATE))

    def _not_empty_test(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """``x.numel() != 0``, ``x.numel() > 0``, ``len(x)``, ``x.shape[0] > 0``: the tested expression."""
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            zero = isinstance(target.comparator, cst.Integer) and target.comparator.value == "0"
            if not (zero and isinstance(target.operator, (cst.NotEqual, cst.GreaterThan))):
                return None
            test = test.left
        tested: cst.BaseExpression | None = None
        if isinstance(test, cst.Call):
            if patterns.method_name(test) in ("numel", "nelement") and not test.args:
                tested = patterns.receiver(test)
            elif dotted_name(test.func) == "len" and len(test.args) == 1:
                tested = test.args[0].value
            elif patterns.method_name(test) == "size" and len(test.args) == 1:
                tested = patterns.receiver(test)
        elif isinstance(test, cst.Subscript) and isinstance(test.value, cst.Attribute):
            tested = test.value.value if test.value.attr.value == "shape" else None
        return tested

    def _record_state_meet(self, value: Value) -> None:
        """In a summary of a module's method: the parameters ``value`` comes from meet the module's state."""
        for leaf in leaves(value):
            if leaf.source is not None and tensorish(leaf):
                self.parameter_meets.add((leaf.source, STATE))

    def _flag_test(self, test: cst.BaseExpression) -> bool | None:
        """The value of a test of a flag the function sets itself (``first = True``, later
        ``first = False``) where it holds one value along every path; None otherwise."""
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        name = test.expression if negated else test  # type: ignore[attr-defined]
        if not isinstance(name, cst.Name) or name.value not in self._local_flags | self._private_flags:
            return None
        value = self.state.env.get(name.value)
        if value is None or value.kind is not Kind.NEUTRAL or value.constant not in ("True", "False"):
            return None
        return (value.constant == "True") is not negated

    @cached_property
    def _private_flags(self) -> frozenset[str]:
        """The parameters of a private function (its file's calls are all it is given) never
        rebound in it: a flag every call passes alike, or leaves at its default, holds along
        every path."""
        if self.summary_mode:
            return frozenset(self._fixed_flags)
        if self.function is None or not _private(self.function):
            return frozenset()
        params = self.function.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        return frozenset(names - rebound_names(self.function))

    @cached_property
    def _fixed_flags(self) -> dict[str, str]:
        """In a summary: the flags of a private function that every call of the file leaves at one
        constant (see ``CallSites.constant_flags``)."""
        if self.function is None or not _private(self.function):
            return {}
        sites = self.analysis.call_sites
        return {} if sites is None else sites.constant_flags(self.function, method=self.owner is not None)

    @cached_property
    def _local_flags(self) -> frozenset[str]:
        """The plain names the function binds to ``True`` or ``False`` itself."""
        if self.function is None:
            return frozenset()
        return frozenset(
            target.target.value
            for node in self.ctx.scope_nodes(self.function)
            if isinstance(node, cst.Assign)
            and isinstance(node.value, cst.Name)
            and node.value.value in ("True", "False")
            for target in node.targets
            if isinstance(target.target, cst.Name)
        )

    def _assume_test(self, test: cst.BaseExpression, guard: str, *, holds: bool) -> None:
        """Along the arm where ``test`` (whose text is ``guard``) is ``holds``: what it says, and what
        each part of it says (``if ready and mode != "latent":`` drops what an earlier ``if mode ==
        "latent":`` made)."""
        self.state.assume(guard if holds else negate(guard))
        for part, part_holds in _parts_known(test, holds=holds):
            if part is test:
                continue
            text = self._guard_text(part)
            self.state.assume(text if part_holds else negate(text))

    def _guard_text(self, test: cst.BaseExpression) -> str:
        """A branch condition as text that a later test of the same condition gives again."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return negate(self._guard_text(test.expression))
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            # ``x is not None`` is the opposite of ``x is None`` (tested elsewhere in the function).
            target = test.comparisons[0]
            positive = {cst.IsNot: "is", cst.NotIn: "in", cst.NotEqual: "=="}.get(type(target.operator))
            if positive is not None:
                left, right = (" ".join(self.ctx.code_for(n).split()) for n in (test.left, target.comparator))
                return negate(f"{left} {positive} {right}")
        path = path_of(test)
        return path if path is not None else " ".join(self.ctx.code_for(test).split())

    def _same_devices(self, pairs: list[tuple[str, str]]) -> None:
        """Where a test tells two tensors are on one device (``self.cache.device == x.device``), a
        stale plain attribute among them is where the other one is."""
        env = self.state.env
        for first, second in pairs:
            for stale, other in ((first, second), (second, first)):
                value = env.get(stale)
                if value is None or not any(a.held for a in leaves(value)):
                    continue
                there = env.get(other, UNKNOWN)
                if carries_tensor(there) and value.kind is not Kind.CONTAINER:
                    env[stale] = there
                else:
                    env[stale] = UNKNOWN

    def _placed_by_test(self, test: cst.BaseExpression, *, holds: bool) -> None:
        """Where a test tells a tensor is on a device (``x.device == torch.device(d)`` holds, or
        ``!=`` fails: ``if x.device != torch.device(d): x = x.to(d)``), it is there."""
        for path, device in _device_tests(test, holds=holds):
            value = self.state.env.get(path)
            if value is None or not tensorish(value) and value.kind is not Kind.MAYBE:
                continue
            placed = self._device_value(device, device, module=False)
            if placed is not None and placed.kind is Kind.ACCEL:
                self.state.env[path] = replace(placed, grad=value.grad, scalar=value.scalar)

    def _narrow_constant_none(self, test: tuple[str, bool] | None, *, holds: bool) -> None:
        """``device if device is not None else x.device``: along each arm, ``device`` is None or is
        not (a name given ``None`` along some paths: a default, a constant)."""
        if test is None:
            return
        path, is_none = test
        known = self.state.env.get(path)
        if known is None or known.kind is not Kind.MAYBE:
            return
        kept = [a for a in known.alternatives if (a.constant == "None") == (is_none == holds)]
        if kept:
            self.state.env[path] = union(kept)

    def _narrow(self, path: str, *, is_none: bool) -> None:
        """Where a test tells ``path`` is None (or is not), keep only what it can be there."""
        known = self.state.env.get(path)
        if is_none:
            self.state.env[path] = NEUTRAL
        elif known is not None and known.kind is Kind.MAYBE:
            kept = [a for a in known.alternatives if a.kind is not Kind.NEUTRAL]
            if kept:
                self.state.env[path] = union(kept)

    def _small(self, small: cst.BaseSmallStatement, line: cst.SimpleStatementLine) -> None:
        if isinstance(small, cst.Assign):
            value = self._helper_instance(small.value) or self._eval(small.value)
            for target in small.targets:
                self._assign(target.target, small.value, value, line)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                value = self._helper_instance(small.value) or self._eval(small.value)
                self._assign(small.target, small.value, value, line)
        elif isinstance(small, cst.AugAssign):
            left = self._eval(small.target)
            right = self._eval(small.value)
            # Written in place, the target keeps its device: a 0-dim CPU accumulator cannot take a
            # device tensor (``total = torch.tensor(0.0); total += loss``).
            # (An empty placeholder, ``torch.Tensor()`` for no input, is no accumulator.)
            target = Operand(
                small.target,
                lift(left, lambda v: replace(v, scalar=False) if tensorish(v) and not placeholder(v) else v),
            )
            result = self._binary(small, target, Operand(small.value, right), "augmented assignment")
            path = path_of(small.target)
            if path is not None:
                self.state.env[path] = result
        elif isinstance(small, cst.Expr):
            self._expression_statement(small)
        elif isinstance(small, cst.Return):
            if small.value is not None:
                self._use(small.value)
                returned = self._eval(small.value)
                if self.summary_mode and not any(_DEVICE_WORD.search(test) for test in self.tests):
                    self.passes_through.update(
                        a.source
                        for a in alternatives(returned)
                        if a.kind is Kind.INPUT and a.source in self.parameters and a.module is not True
                    )
                if self.in_module_class and self.function is not None and self.function.name.value == "forward":
                    # A module's output is where the module is; a stale plain attribute is not
                    # (unless along a path a test of the caller's arguments chose: ``device=None``).
                    output = leaves(returned, containers=False)
                    stale = next((v for v in output if v.held and tensorish(v) and not v.scalar and not v.guard), None)
                    if stale is not None:
                        self._emit_held(Operand(small.value, stale), None, "the output of `forward`")
                if not self.state.cpu_only or not self.summary_mode:
                    self.returns.append(returned)
            else:
                self.returns.append(NEUTRAL)
            self.state.terminated = True
        elif isinstance(small, (cst.Raise, cst.Continue, cst.Break)):
            if not isinstance(small, cst.Raise) and self.loop_exits:
                self.loop_exits[-1].append(self._continue_state(self.state))
            self.state.terminated = True
        elif isinstance(small, cst.Del):
            for path in target_paths(small.target):
                self.state.env.pop(path, None)
        elif isinstance(small, (cst.Global, cst.Nonlocal)):
            for name in small.names:
                self.state.env.pop(name.name.value, None)

    def _expression_statement(self, statement: cst.Expr) -> None:
        expression = statement.value
        if isinstance(expression, cst.Yield):
            given = expression.value
            if isinstance(given, cst.From):
                self.yields.append(self._iteration_value(given.item))  # ``yield from loader``
            elif given is not None:
                self.yields.append(self._eval(given))
            return
        if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute):
            method = expression.func.attr.value
            base = expression.func.value
            if method in ("to", "cuda", "cpu") or method in self.ctx.config.move_functions:
                target_value = self._eval(base)
                own = None
                if method in ("to", "cuda", "cpu"):
                    own = self._own_move(expression, base, target_value, method, None)
                if own is not None:
                    return  # ``signal.to(device)``: as its own ``to`` leaves it (see ``_own_move``)
                moved = self._move(expression, target_value)
                if method in ("to", "cuda"):
                    self._note_unseen_move(base, method, target_value)
                path = path_of(base)
                if target_value.module is False:
                    # (A cast, or a "move" to where it already is (``x.to(x.device, dtype)``), is
                    # not a device placement lost; nor is a move of what may be something else
                    # than a tensor along some path, such as ``getattr(obj, name, None)``.)
                    places = alternatives(target_value)
                    tensor = any(tensorish(a) for a in places) and all(
                        tensorish(a) or (a.kind is Kind.NEUTRAL and a.constant == "None") for a in places
                    )
                    if tensor and moved is not None and not (
                        _to_own_device(expression, base) or self._casts_only(expression)
                    ):
                        self._emit(DiscardedMove(statement, expression, base), expression)
                    return
                if moved is not None and path is not None and target_value.module is not False:
                    # A module (or something we cannot tell from one) moves in place.
                    self.state.env[path] = replace(
                        moved, module=True if target_value.module is None else target_value.module
                    )
                    if target_value.source == path:
                        self.moved_in_place[path] = self.state.env[path]
                    self._moved(path)
                    self._check_optimizers(path, moved, expression)
                    self._part_moved(path)
                elif path is not None and method != "cpu":
                    # Moved somewhere we cannot tell: no longer known to be where it was.
                    self.state.env[path] = Value(Kind.UNKNOWN, module=target_value.module)
                return
        # A call whose result is dropped: what it returns is never needed (see ``_call_local``).
        self.discarded = expression if isinstance(expression, cst.Call) else None
        try:
            self._eval(expression)
        finally:
            self.discarded = None

    def _part_moved(self, path: str) -> None:
        """``pipe.transformer.to(device)`` (or ``dit = pipe.transformer; dit.to(device)``): the
        modules holding the one moved are now partly there and partly where they were: unknown."""
        # (an alias read from ``pipe.transformer`` stands for a path below ``pipe``)
        paths = [path] if path not in self.parts else [path, f"{self.parts[path]}."]
        owners = {p[:i] for p in paths for i, c in enumerate(p) if c == "."}
        for owner in owners - {self.self_name}:
            held = self.state.env.get(owner)
            if held is not None and held.module is not False and held.kind in (Kind.HOST, Kind.ACCEL, Kind.MAYBE):
                self.state.env[owner] = Value(Kind.UNKNOWN, module=held.module)

    def _assign(
        self,
        target: cst.BaseAssignTargetExpression,
        value_node: cst.BaseExpression,
        value: Value,
        line: cst.SimpleStatementLine,
    ) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            if isinstance(value_node, (cst.Tuple, cst.List)) and len(value_node.elements) == len(elements):
                for element, source in zip(elements, value_node.elements):
                    self._assign(element, source.value, self._value_of(source.value), line)  # type: ignore[arg-type]
            elif value.kind is Kind.CONTAINER and value.container == "tuple" and len(value.elements) == len(elements):
                for element, item in zip(elements, value.elements):
                    self._assign(element, value_node, item, line)  # type: ignore[arg-type]
            else:
                for element in elements:
                    self._assign(element, value_node, element_of(value), line)  # type: ignore[arg-type]
            return
        if isinstance(target, cst.StarredElement):
            return
        path = path_of(target)
        self._check_attach(target, value_node, value)
        self._check_transform_then_move(target, value_node, value, line)
        if path is None:
            if isinstance(target, cst.Subscript):
                self._subscript(target)  # ``host[device_index] = value`` fails like a read
                self._store_item(target, value)
            return
        if self.self_name is not None and path.startswith(f"{self.self_name}.") and self.record:
            attribute = path[len(self.self_name) + 1 :]
            if "." not in attribute and self.owner is not None and self.function is not None:
                store = AttributeStore(target, value, self.function)
                self.analysis.record_store(self.owner.name.value, attribute, store)
        # Rebinding a name forgets what we knew of its attributes.
        self.state.env.forget_attributes(path)
        type_test = _isinstance_test(value_node, self.symbols) if isinstance(value_node, cst.Call) else None
        if type_test is not None:
            self.state.type_tests[path] = type_test
        elif self.state.type_tests:
            self.state.type_tests.pop(path, None)
        self.state.env[path] = value
        self.entries_stored.discard(path)  # (a parameter rebound: the caller's dict is not this one)
        self._bind_condition(path, value_node, value)
        if value.kind in (Kind.ACCEL, Kind.INPUT) and isinstance(value_node, cst.Call) and path in self.parameters:
            base = patterns.receiver(value_node)
            if base is not None and path_of(base) == path and patterns.method_name(value_node) in ("to", "cuda"):
                self.moves_itself.add(path)  # ``x = x.to(self.device)``: callers may pass it from anywhere
        if value.kind is Kind.ACCEL and isinstance(value_node, cst.Call):
            base = patterns.receiver(value_node)
            if base is not None and path_of(base) == path:
                self._moved(path)  # ``m = m.to(device)``
                self._check_optimizers(path, value, value_node)
                if value.module is not False:
                    self._part_moved(path)  # (a module moves in place: ``pipe.unet = pipe.unet.to(device)``)
            elif base is not None and patterns.method_name(value_node) in ("to", "cuda"):
                # ``self.model = model.to(device)``: a module moves in place, ``model`` with it (a
                # parameter that may be one is moved for the callers that pass one).
                moved_from = path_of(base)
                before = self.state.env.get(moved_from, UNKNOWN) if moved_from is not None else UNKNOWN
                parameter = before.source is not None and before.source == moved_from and before.module is None
                if moved_from is not None and (before.module is True or parameter):
                    self.state.env[moved_from] = replace(value, module=before.module)
                    if parameter:
                        self.moved_in_place[moved_from] = self.state.env[moved_from]
                    self._moved(moved_from)
                    self._check_optimizers(moved_from, value, value_node)
                    self._part_moved(moved_from)
        owner = path_of(value_node.value) if isinstance(value_node, cst.Attribute) else None
        if owner is not None:
            self.parts[path] = owner  # ``dit = pipe.transformer``: moving ``dit`` moves part of ``pipe``
        else:
            self.parts.pop(path, None)

    def _store_item(self, target: cst.Subscript, value: Value) -> None:
        """``criteria["mel"] = MelLoss()``: a list or dict built here holds the value too; ``batch[k]
        = ...`` in ``for k in batch:`` (or ``.keys()``, ``.items()``) sets every key's entry."""
        path = path_of(target.value)
        if path is not None and id(target) in self.entry_stores:
            self.stored_entries[path] = value
        if path is None:
            return
        container = self.state.env.get(path)
        index = patterns.subscript_index(target)  # (not ``d[a:b] = ...``)
        if (
            container is not None
            and container.kind is Kind.CONTAINER
            and container.keys
            and isinstance(index, cst.Name)
            and self.iterated_keys.get(index.value) == path
        ):
            self.state.env[path] = replace(container, elements=tuple(value for _ in container.elements))
            return
        self.store_entry(path, patterns.subscript_key(target), value)

    def store_entry(self, path: str, key: str | None, value: Value) -> None:
        """``path[key] = value`` (``key``: a string key, or None for any other index)."""
        container = self.state.env.get(path)
        if key is not None and path in self.parameters and (container is None or not container.keys):
            # ``batch["ids"] = ids.to(device)`` into a parameter: the caller's dict holds it from
            # here (its other entries, as the caller has them, are not known here).
            self.state.env[path] = keyed_dict([key], [value])
            self.entries_stored.add(path)
            return
        if container is not None and container.kind is Kind.UNKNOWN and key is not None:
            if "." not in path and path not in self.parameters and not (self.self_name and path == self.self_name):
                # ``state = self.state[p]; state["exp_avg"] = torch.zeros(n)``: whatever ``state``
                # held, that key now holds this (its other keys stay unknown).
                self.state.env[path] = keyed_dict([key], [value])
            return
        if container is None or container.kind is not Kind.CONTAINER or container.container not in ("list", "dict"):
            return
        self.state.env[path] = with_item(container, key, value)

    # -- compound statements ------------------------------------------------------

    def _loop(self, statement: cst.For | cst.While) -> None:
        before = self.state.copy()
        if isinstance(statement, cst.For):
            self._eval(statement.iter)
        else:
            self._eval(statement.test)
        record = self.record
        self.loop_depth += 1
        entry = before
        if self.loop_depth <= MAX_LOOP_DEPTH:
            # Iterate to a fixed point silently, then once more recording events.
            self.record = False
            for _ in range(2):
                self.state = entry.copy()
                stepped = self._loop_step(statement)
                joined = join_states([before, stepped], outside=self._outside)
                converged = joined.env == entry.env
                entry = joined
                if converged:
                    break  # another pass would start from the same state
            self.record = record
        self.state = entry.copy()
        self.state.transformed = {}
        after_body = self._loop_step(statement)
        self.loop_depth -= 1
        if self._runs_at_least_once(statement, before):
            self.state = after_body  # it is left from inside (or after its last step)
        else:
            self.state = join_states([before, after_body], outside=self._outside)
        loop, stored_entries = self.last_entries_stored
        if loop is statement:
            # ``for k, v in batch.items(): if isinstance(v, torch.Tensor): batch[k] = v.to(device)``:
            # every tensor entry holds what was stored (a path that skips the store has no tensor
            # entry, and a loop that never runs, no entry at all).
            for path, stored in stored_entries.items():
                self.state.env[path] = _with_every_tensor_entry(self.state.env.get(path, UNKNOWN), stored)
        self.state.transformed = {}
        self._parameters_moved_by(statement)
        if statement.orelse is not None:
            self._block(block_of(statement.orelse.body))

    def _parameters_moved_by(self, statement: cst.For | cst.While) -> None:
        """``for p in model.parameters(): p.data = p.data.to(device)`` moves ``model`` in place."""
        if not isinstance(statement, cst.For) or not isinstance(statement.iter, cst.Call):
            return
        method = patterns.method_name(statement.iter)
        base = patterns.receiver(statement.iter)
        owner = path_of(base) if base is not None else None
        target = statement.target
        if isinstance(target, cst.Tuple) and method in ("named_parameters", "named_buffers") and target.elements:
            target = target.elements[-1].value
        if method not in ("parameters", "buffers", "named_parameters", "named_buffers") or owner is None:
            return
        variable = path_of(target)
        moved = None
        for node in _statements_in(block_of(statement.body)):
            for small in node.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and path_of(small.targets[0].target) == f"{variable}.data"
                    and isinstance(small.value, cst.Call)
                    and patterns.method_name(small.value) in ("to", "cuda")
                ):
                    moved = small.value
        if moved is None:
            return
        known = self.state.env.get(owner, UNKNOWN)
        placed = self._move(moved, replace(known, module=True))
        if placed is not None and placed.kind is Kind.ACCEL:
            self.state.env[owner] = placed
            self._moved(owner)

    def _loop_step(self, statement: cst.For | cst.While) -> State:
        """One run of the loop's body: the state it ends in, joined with those its ``continue`` and
        ``break`` statements left it in."""
        self.loop_exits.append([])
        try:
            self._loop_body(statement)
        finally:
            exits = self.loop_exits.pop()
        ended = self._continue_state(self.state)
        if not exits:
            return ended
        # (a body that ends in ``continue`` left its state among the exits; one that returns, none)
        live = [] if self.state.terminated else [ended]
        return join_states([*live, *exits], outside=self._outside)

    @staticmethod
    def _continue_state(state: State) -> State:
        # `continue`/`break` end the body, not the function: the loop goes on.
        copy = state.copy()
        copy.terminated = False
        return copy

    @staticmethod
    def _runs_at_least_once(statement: cst.For | cst.While, before: State) -> bool:
        """``while True:``, or a ``for`` over a dict built here with its keys (``d``, ``d.keys()``,
        ``d.items()``): the body runs at least once."""
        if isinstance(statement, cst.While):
            return isinstance(statement.test, cst.Name) and statement.test.value == "True"
        keyed = _keys_iterated(statement)
        container = before.env.get(keyed[1]) if keyed is not None else None
        return container is not None and container.kind is Kind.CONTAINER and bool(container.keys)

    def _loop_body(self, statement: cst.For | cst.While) -> None:
        keyed = _keys_iterated(statement) if isinstance(statement, cst.For) else None
        listed = _literal_keys_iterated(statement) if isinstance(statement, cst.For) else None
        if isinstance(statement, cst.For):
            self._bind_loop_target(statement.target, statement.iter)
        if keyed is not None:
            self.iterated_keys[keyed[0]] = keyed[1]
        if listed is not None:
            self.literal_keys[listed[0]] = listed[1]
        outer = (self.entry_stores, self.stored_entries)
        if keyed is not None and isinstance(statement, cst.For):
            self.entry_stores = _every_entry_stores(statement, keyed[0], keyed[1], self.symbols)
            self.stored_entries = {}
        try:
            self._block(block_of(statement.body))
        finally:
            if keyed is not None:
                self.iterated_keys.pop(keyed[0], None)
            if listed is not None:
                self.literal_keys.pop(listed[0], None)
            self.last_entries_stored = (statement, self.stored_entries)
            self.entry_stores, self.stored_entries = outer

    def _bind_loop_target(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """Bind what iterating ``iterable`` gives: ``enumerate``/``zip``/``tqdm`` are seen through."""
        items = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else None
        if isinstance(iterable, cst.Call):
            callee = dotted_name(iterable.func) or ""
            qualified = self.symbols.qualify(iterable.func) or callee
            sources = [a.value for a in iterable.args if a.keyword is None and not a.star]
            if callee == "enumerate" and sources and items is not None and len(items) == 2:
                self._bind_values(items[0], NEUTRAL)
                self._bind_loop_target(items[1], sources[0])
                return
            if callee == "zip" and items is not None and len(items) == len(sources):
                for item, source in zip(items, sources):
                    self._bind_loop_target(item, source)
                return
            if sources and (callee in PASS_THROUGH_CALLS or qualified in PASS_THROUGH_CALLS):
                self._bind_loop_target(target, sources[0])
                return
        element = self._iteration_value(iterable)
        self._bind_values(target, element)

    def _bind_values(self, target: cst.BaseExpression, element: Value) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            items = target.elements
            if element.kind is Kind.CONTAINER and element.container == "tuple" and len(element.elements) == len(items):
                # ``for obs, reward in pairs`` over tuples built here: each name gets its own position.
                for item, value in zip(items, element.elements):
                    self._bind_values(item.value, value)
                return
            for item in items:
                self._bind_values(item.value, element_of(element))
            return
        path = path_of(target)
        if path is not None:
            self.state.env[path] = element

    def _iteration_value(self, node: cst.BaseExpression) -> Value:
        """What one step of iterating ``node`` gives: a host batch for a data loader."""
        value = self._value_of(node)
        if self.analysis.default_device_setting is not None and value.kind is Kind.LOADER:
            return UNKNOWN  # collated with factories that follow the default device
        if value.kind is Kind.LOADER:
            return Value(Kind.HOST, module=None, batch=True, origin=node)
        name = last_name(node)
        path = path_of(node)
        known = path is not None and path in self.state.env
        if name and LOADER_NAME.search(name) and not self.uses_auto_placement:
            batch = Value(Kind.HOST, module=None, batch=True, origin=node)
            if not known:
                return UNKNOWN if self.analysis.default_device_setting is not None else batch
            if value.kind is Kind.MAYBE and self.analysis.default_device_setting is None:
                # A loader parameter: what the file's calls pass, and a host batch from the others.
                steps = [lift(a, _element) for a in alternatives(value)]
                return union([batch if step.kind is Kind.UNKNOWN else step for step in steps])
        return lift(value, _element)

    def _with(self, statement: cst.With) -> None:
        quiet = False
        scoped = self.scoped_device
        for item in statement.items:
            called = self.symbols.qualify(item.item.func) if isinstance(item.item, cst.Call) else None
            if called in NO_GRAD:
                quiet = True
            else:
                self._eval(item.item)
            if called == "torch.device":
                # ``with torch.device("meta"):`` (or any device but the CPU) places what is made inside.
                first = item.item.args[0].value if item.item.args else None
                scoped = scoped or first is None or patterns.string_value(first) != "cpu"
            if item.asname is not None:
                for path in target_paths(item.asname.name):
                    self.state.env[path] = UNKNOWN
        self.no_grad += quiet
        outer, self.scoped_device = self.scoped_device, scoped
        try:
            self._block(block_of(statement.body))
        finally:
            self.scoped_device = outer
        self.no_grad -= quiet

    def _match(self, statement: cst.Match) -> None:
        """Each case binds its captures (unknown values), then runs; no case may match at all."""
        self._eval(statement.subject)
        before = self.state
        branches = []
        exhaustive = False
        for case in statement.cases:
            self.state = before.copy()
            for path in captures(case.pattern):
                self.state.env.forget_attributes(path)
                self.state.env[path] = UNKNOWN
            if case.guard is not None:
                self._eval(case.guard)
            self._block(block_of(case.body))
            branches.append(self.state)
            pattern = case.pattern
            exhaustive = exhaustive or (
                case.guard is None and isinstance(pattern, cst.MatchAs) and pattern.pattern is None
            )
        if not exhaustive:
            branches.append(before.copy())
        self.state = join_states(branches, outside=self._outside)

    def _try(self, statement: cst.Try) -> None:
        before = self.state.copy()
        self._block(block_of(statement.body))
        outcomes = [self.state]
        for handler in statement.handlers:
            self.state = join_states([before, outcomes[0]], outside=self._outside)
            self.state.terminated = False
            if handler.name is not None:
                for path in target_paths(handler.name.name):
                    self.state.env[path] = UNKNOWN
            self._block(block_of(handler.body))
            outcomes.append(self.state)
        if statement.orelse is not None:
            self.state = outcomes[0]
            self._block(block_of(statement.orelse.body))
            outcomes[0] = self.state
        self.state = join_states(outcomes, outside=self._outside)
        if statement.finalbody is not None:
            terminated = self.state.terminated
            self.state.terminated = False
            self._block(block_of(statement.finalbody.body))
            self.state.terminated = self.state.terminated or terminated

    # -- expressions ----------------------------------------------------------------

    def _value_of(self, node: cst.BaseExpression) -> Value:
        """The value of an expression already evaluated (no events): names and attributes only."""
        path = path_of(node)
        if path is not None and path in self.state.env:
            return self.state.env[path]
        return self._eval_quietly(node)

    def _eval_quietly(self, node: cst.BaseExpression) -> Value:
        record, self.record = self.record, False
        try:
            return self._eval(node)
        finally:
            self.record = record

    def _eval(self, node: cst.BaseExpression) -> Value:
        budget = self.budget
        budget.left -= 1
        if budget.left < 0:
            budget.exhausted()
        # (The commonest kinds by their exact type first: ``isinstance`` of a LibCST class that
        # does not match goes through ``ABCMeta``, and this runs at every subexpression.)
        kind = type(node)
        if kind is cst.Name:
            return self._name(node)  # type: ignore[arg-type]
        if kind is cst.Attribute:
            return self._attribute(node)  # type: ignore[arg-type]
        if kind is cst.Call:
            return self._call(node)  # type: ignore[arg-type]
        if isinstance(node, cst.BinaryOperation):
            left = self._eval(node.left)
            right = self._eval(node.right)
            return self._binary(node, Operand(node.left, left), Operand(node.right, right), operator_symbol(node))
        if isinstance(node, cst.Comparison):
            left = Operand(node.left, self._eval(node.left))
            result = UNKNOWN
            for target in node.comparisons:
                right = Operand(target.comparator, self._eval(target.comparator))
                if isinstance(target.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                    result = NEUTRAL
                    continue
                result = self._binary(node, left, right, "comparison")
                left = right
            # ``mask == 0`` is a tensor where ``mask`` is; a chain is not followed.
            return result if len(node.comparisons) == 1 else UNKNOWN
        if isinstance(node, cst.UnaryOperation):
            return self._eval(node.expression)
        if isinstance(node, cst.Subscript):
            return self._subscript(node)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            return NEUTRAL
        if isinstance(node, cst.SimpleString):
            return neutral_constant(patterns.string_value(node))
        if isinstance(node, cst.FormattedString):
            for part in node.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    self._eval(part.expression)
            return NEUTRAL
        if isinstance(node, cst.ConcatenatedString):
            self._eval(node.left)
            self._eval(node.right)
            return NEUTRAL
        if isinstance(node, cst.IfExp):
            self._eval(node.test)
            none_test = _none_test(node.test)
            if self.state.guarded or none_test is not None:
                guard = self._guard_text(node.test)
                before = self.state
                self.state = before.copy()
                self._assume_test(node.test, guard, holds=True)
                self._narrow_constant_none(none_test, holds=True)
                when_true = self._eval(node.body)
                self.state = before.copy()
                self._assume_test(node.test, guard, holds=False)
                self._narrow_constant_none(none_test, holds=False)
                when_false = self._eval(node.orelse)
                self.state = before
            else:
                when_true, when_false = self._eval(node.body), self._eval(node.orelse)
            if when_true != when_false:
                # Each arm remembers its test: ``a = x.to(d) if d else x`` and ``b = y.to(d) if d else
                # y`` (or ``a, b = (x.to(d), y.to(d)) if d else (x, y)``) never pair ``a`` of one arm
                # with ``b`` of the other.
                guard = self._guard_text(node.test)
                when_true, when_false = guarded(when_true, guard), guarded(when_false, negate(guard))
            conditional = self._conditional_placement(node, when_true, when_false, self.state.conditions)
            return conditional if conditional is not None else join(when_true, when_false)
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            values = [self._eval(element.value) for element in node.elements]
            if isinstance(node, cst.Set):
                return UNKNOWN
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                # ``(*features, x)``: the elements of each, at positions not known here.
                spread = [
                    element_of(v) if isinstance(e, cst.StarredElement) else v for e, v in zip(node.elements, values)
                ]
                return container_of("list", spread)
            return container_of("tuple" if isinstance(node, cst.Tuple) else "list", values)
        if isinstance(node, cst.Dict):
            values = []
            keys = []
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    self._eval(element.key)
                    keys.append(patterns.string_value(element.key))
                values.append(self._eval(element.value))
            if any(not isinstance(e, cst.DictElement) for e in node.elements):
                return UNKNOWN
            if keys and all(k is not None for k in keys):
                return keyed_dict(keys, values)  # type: ignore[arg-type]
            return container_of("dict", values)
        if isinstance(node, cst.NamedExpr):
            value = self._eval(node.value)
            path = path_of(node.target)
            if path is not None:
                self.state.env[path] = value
            return value
        if isinstance(node, cst.Await):
            self._eval(node.expression)
            return UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            self._eval(node.left)
            # ``a.device == b.device and torch.equal(a, b)``: the right side runs only where the left
            # held (failed, for ``or``), and sees what that tells of the devices.
            pairs = _device_equalities(node.left, holds=isinstance(node.operator, cst.And))
            saved = {path: self.state.env.get(path) for pair in pairs for path in pair}
            self._same_devices(pairs)
            self._eval(node.right)
            for path, value in saved.items():
                if value is None:
                    self.state.env.pop(path, None)
                else:
                    self.state.env[path] = value
            return UNKNOWN
        if isinstance(node, cst.StarredElement):
            return self._eval(node.value)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self._comprehension(node)
        if isinstance(node, cst.Lambda):
            return self._lambda(node)
        return UNKNOWN

    def _comprehension(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> Value:
        """A comprehension runs where it is written, with its targets bound in a scope of its own; it
        makes a container of what its element is (``{k: v.to(device) for k, v in batch.items()}``)."""
        by_item = self._comprehension_by_item(node)
        if by_item is not None:
            return by_item
        outer = self.state
        self.state = outer.copy()
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            self._eval(clause.iter)
            for path in target_paths(clause.target):
                self.state.env.forget_attributes(path)
            self._bind_loop_target(clause.target, clause.iter)
            for condition in clause.ifs:
                self._eval(condition.test)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self._eval(node.key)
            element = self._eval(node.value)
        else:
            element = self._eval(node.elt)
        outer.pending = self.state.pending  # a module used in it is used here
        self.state = outer
        if isinstance(node, cst.SetComp):
            return UNKNOWN
        return container_of("dict" if isinstance(node, cst.DictComp) else "list", [element])

    def _comprehension_by_item(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp
    ) -> Value | None:
        """``[t[:, :n] for t in [x, self.index] if t is not None]``: over a short literal list, one
        element per item, each where its item is (a ``None`` the test drops is no element)."""
        clause = node.for_in
        items = clause.iter
        if (
            not isinstance(node, (cst.ListComp, cst.GeneratorExp))
            or clause.inner_for_in is not None
            or not isinstance(clause.target, cst.Name)
            or not isinstance(items, (cst.List, cst.Tuple))
            or not 0 < len(items.elements) <= _LITERAL_ITEMS
            or any(isinstance(item, cst.StarredElement) for item in items.elements)
        ):
            return None
        outer = self.state
        elements = []
        for item in items.elements:
            value = self._eval(item.value)
            if clause.ifs and value.constant == "None":
                continue  # (``if t is not None``: or another test; either way no tensor is made of it)
            self.state = outer.copy()
            self.state.env[clause.target.value] = value
            for condition in clause.ifs:
                self._eval(condition.test)
            elements.append(self._eval(node.elt))
            outer.pending = self.state.pending  # a module used in it is used here
            self.state = outer
        # (Kept as a tuple: one position per item, whichever paths each has.)
        return container_of("tuple", elements) if elements else None

    def _lambda(self, node: cst.Lambda) -> Value:
        """A lambda's body runs later, with its parameters unknown: its findings are real, but what
        it uses is not used here (pending attachments stay pending)."""
        outer = self.state
        self.state = outer.copy()
        self.state.pending = {}
        params = node.params
        for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
            self.state.env.forget_attributes(param.name.value)
            self.state.env[param.name.value] = UNKNOWN
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.state.env[star.name.value] = UNKNOWN
        self._eval(node.body)
        self.state = outer
        return UNKNOWN

    def _name(self, node: cst.Name) -> Value:
        value = self.state.env.get(node.value)
        if value is not None:
            return value
        if node.value == "None":
            return neutral_constant("None")
        if node.value in ("True", "False"):
            return neutral_constant(node.value)  # a flag a later join may tell paths apart by
        if node.value in OPTIMIZER_CLASS_NAMES:
            return self._optimizer_class(node)
        return UNKNOWN

    def _optimizer_class(self, node: cst.Name | cst.Attribute) -> Value:
        """``torch.optim.Adagrad`` as a value (``optimizer_fn=torch.optim.Adagrad``): called later."""
        qualified = self.symbols.qualify(node)
        if qualified is None or not torch_api.is_optimizer_class(qualified):
            return UNKNOWN
        return neutral_constant(OPTIMIZER_CLASS_PREFIX + qualified)

    def _attribute(self, node: cst.Attribute, base: Value | None = None) -> Value:
        """``node``'s value; ``base``: the value of ``node.value`` where the caller already has it
        (evaluating it again would redo a whole method chain at every link)."""
        path = path_of(node)
        if path is not None and path in self.state.env:
            return self.state.env[path]
        attr = node.attr.value
        if attr in OPTIMIZER_CLASS_NAMES:
            return self._optimizer_class(node)
        if self.self_name is not None and isinstance(node.value, cst.Name) and node.value.value == self.self_name:
            return self._self_attribute(attr)
        if base is None:
            weights = parameters_of(node.value) if attr == "device" else None
            if weights is not None:
                # ``next(model.parameters()).device``: where the model's weights are.
                model = self._eval(weights)
                base = lift(model, lambda m: replace(m, module=False) if m.module is not False else UNKNOWN)
            else:
                base = self._eval(node.value)
        if attr in torch_api.NON_TENSOR_ATTRIBUTES:
            if attr == "device" and any(a.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) for a in alternatives(base)):
                owner = placement_of(base) if carries_tensor(base) and base.kind is not Kind.CONTAINER else None
                return Value(Kind.NEUTRAL, module=False, device=self.ctx.code_for(node), device_of=owner)
            return NEUTRAL
        return lift(base, lambda value: self._attribute_of(value, attr))

    def _attribute_of(self, base: Value, attr: str) -> Value:
        held = self._instance_attribute(base, attr) if base.class_name is not None else None
        if held is not None:
            return held
        if attr in torch_api.DEVICE_PRESERVING_ATTRIBUTES and base.module is not True and tensorish(base):
            return base
        if (
            attr in ("weight", "bias")
            and base.module is True
            and base.stateful
            and base.class_name is None
            and base.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT)
        ):
            # A layer's own parameters are where the layer is.
            return Value(base.kind, device=base.device, move=base.move, module=False, origin=base.origin)
        if base.batch or (base.module is None and base.kind in (Kind.HOST, Kind.ACCEL)):
            return item_of(base)  # ``batch.x`` of a batch object
        return UNKNOWN

    def _self_attribute(self, attr: str) -> Value:
        """``self.<attr>`` inside a module method: registered state lives with the module."""
        if not self.in_module_class or self.owner is None:
            return UNKNOWN
        info = self.ctx.class_info(self.owner)
        if info is None or attr in info.managed_by_hand:
            return UNKNOWN
        callee = info.init_calls.get(attr, "")
        if attr in info.parameters or attr in info.buffers:
            return Value(Kind.INPUT, module=False, origin=None)
        if callee[:1].isupper() and callee not in ("Parameter", "ModuleList", "ModuleDict", "Sequential"):
            return Value(Kind.INPUT, module=True, stateful=f"torch.nn.{callee}" not in torch_api.STATELESS_NN_MODULES)
        return UNKNOWN

    def _subscript(self, node: cst.Subscript) -> Value:
        base = self._eval(node.value)
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                index = Operand(element.slice.value, self._eval(element.slice.value))
                # A device tensor takes host indices; a host tensor refuses device ones (unless the
                # index is 0-dim, which PyTorch reads with `.item()`).
                for indexed, used in self._pairs(base, index.value):
                    if (
                        indexed.kind is Kind.HOST
                        and tensorish(indexed)
                        and used.kind is Kind.ACCEL
                        and tensorish(used)
                        and not self._maybe_zero_dim(used)
                    ):
                        event = IndexMismatch(node, Operand(node.value, indexed), Operand(index.expr, used), "indexing")
                        self._emit(event, index.expr)
                        break
                    if self._stale_table(indexed, used):
                        # A module's plain attribute indexed by a tensor made where the module's
                        # inputs are (``self.table[t]``, ``t`` drawn with ``device=x.device``).
                        self._emit_held(Operand(node.value, indexed), Operand(index.expr, used), "indexing")
                        break
        if base.kind is Kind.CONTAINER and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
            return base  # a slice of a list is a list of its elements
        if base.kind is Kind.CONTAINER and base.keys:
            index = patterns.subscript_index(node)
            name = index.value if isinstance(index, cst.Name) else None
            if name in self.literal_keys:
                # ``d[k]`` in ``for k in ["a", "b"]``: one of those entries.
                return union([item_at(base, key) or UNKNOWN for key in self.literal_keys[name]])
            held = item_at(base, patterns.subscript_key(node))
            if held is not None:
                return held
        key = patterns.subscript_key(node)
        if base.kind is Kind.MAYBE and key is not None and any(a.keys for a in base.alternatives):
            # ``state["row"]`` where ``state`` is a dict built along one path and unknown along
            # another: that entry, or unknown (never another entry of the dict).
            return union([(item_at(a, key) if a.keys else None) or UNKNOWN for a in base.alternatives])
        if any(isinstance(e.slice, cst.Slice) for e in node.slice) and base.kind is not Kind.CONTAINER:
            # ``x[a:b]``, ``x[:, 0]``: a slice of a tensor keeps its dimensions (it is no 0-dim value).
            return lift(base, lambda v: replace(v, scalar=False) if tensorish(v) else item_of(v))
        if base.kind is Kind.CONTAINER and base.container == "tuple" and len(node.slice) == 1:
            position = node.slice[0].slice
            if isinstance(position, cst.Index) and isinstance(position.value, cst.Integer):
                number = int(position.value.value, 0)
                if number < len(base.elements):
                    return base.elements[number]
        item = item_of(base)
        if any(_keeps_dimension(element.slice) for element in node.slice) and base.kind is not Kind.CONTAINER:
            # ``table[:n]``, ``x[..., None]``: a slice of a tensor is never 0-dim.
            item = lift(item, lambda v: replace(v, scalar=False) if tensorish(v) else v)
        return item

    def _stale_table(self, indexed: Value, index: Value) -> bool:
        """A host tensor a module keeps in a plain attribute, indexed by a tensor (never a number or
        a parameter that may be one) that is where the module's inputs are, or on a device."""
        return (
            indexed.held is not None
            and indexed.kind is Kind.HOST
            and tensorish(indexed)
            and not indexed.scalar
            and index.held is None
            and index.kind in (Kind.INPUT, Kind.ACCEL)
            and index.module is False
            and index.source in (None, "*")
            and isinstance(index.origin, cst.Call)
            and not self._maybe_zero_dim(index)
        )

    @staticmethod
    def _pairs(a: Value, b: Value) -> list[tuple[Value, Value]]:
        """The places two values may have together, path by path (their alternatives, paired)."""
        return [(x, y) for x in alternatives(a) for y in alternatives(b) if compatible(x, y)]

    def _binary(self, node: cst.CSTNode, left: Operand, right: Operand, operation: str) -> Value:
        self._meet(node, [left, right], operation, arithmetic=True, containers=False)
        results = [self._combined(a, b) for a, b in self._pairs(left.value, right.value) if not _clash(a, b)]
        return union(results) if results else UNKNOWN

    @staticmethod
    def _combined(a: Value, b: Value) -> Value:
        """The result of arithmetic on two values along one path."""
        if a.kind is Kind.CONTAINER and b.kind is Kind.CONTAINER and a.container == b.container:
            return container_of(a.container or "list", [*a.elements, *b.elements])  # ``xs + ys``
        if a.kind is Kind.NEUTRAL:
            return replace(b, origin=b.origin) if tensorish(b) else UNKNOWN
        if b.kind is Kind.NEUTRAL:
            return a if tensorish(a) else UNKNOWN
        if a.kind is b.kind and tensorish(a) and tensorish(b):
            return Value(
                a.kind,
                device=a.device if a.device == b.device else None,
                move=a.move,
                module=False,
                origin=a.origin,
                scalar=a.scalar and b.scalar,
                grad=a.grad or b.grad,
                source=_combined_source(a, b),
                guard=a.guard or b.guard,
                placed_by=chosen_by(a.placed_by, b.placed_by),
                # (Two plain attributes stay where they were made, together: a held result.)
                held=a.held if a.held and b.held else None,
            )
        for concrete, parameter in ((a, b), (b, a)):
            if parameter.kind is Kind.INPUT and parameter.source and concrete.kind in (Kind.HOST, Kind.ACCEL):
                # A parameter (in a summary) may be a number: along the paths that do not fail,
                # the result is where the tensor is.
                return replace(concrete, module=False, scalar=False, source="*")
            if parameter.kind is Kind.INPUT and concrete.kind is Kind.HOST and tensorish(a) and tensorish(b):
                if not concrete.scalar:
                    # A host tensor meeting the inputs (reported there): its fix makes it where they
                    # are, and so is the result (as in ``common_device``).
                    return replace(parameter, module=False, scalar=False)
        if tensorish(a) and tensorish(b) and (a.scalar or b.scalar) and a.kind is not b.kind:
            # A 0-dim CPU tensor combines with a tensor anywhere: the result is where the other one is.
            other = b if a.scalar and a.kind is Kind.HOST else a if b.scalar and b.kind is Kind.HOST else None
            if other is not None:
                return replace(other, module=False, scalar=False)
        for known, unseen in ((a, b), (b, a)):
            if _unseen_operand(unseen) and _placed_tensor(known):
                # With a number, or a tensor on its device (the only ones it accepts), a tensor of
                # one or more dimensions keeps its place: ``scale * torch.arange(n)``, ``y - x``.
                return replace(known, module=False, scalar=False, held=None)
        return UNKNOWN

    def _meet(
        self,
        node: cst.CSTNode,
        operands: Sequence[Operand],
        operation: str,
        *,
        arithmetic: bool,
        containers: bool = True,
        spread: bool = False,
    ) -> None:
        """Record where a host tensor meets an accelerator tensor or the function's inputs.

        Each operand may have several places (along different paths, or as the elements of a
        container): some path brings a host tensor together with a device one when any place of
        one operand is the host and any place of another is the accelerator.  With ``spread``
        (``torch.cat(parts)``), the elements of one container operand meet each other too."""
        # Alternatives of one operand never meet each other; the elements of a container do.  A
        # 0-dim host tensor combines with a tensor anywhere; a 0-dim device tensor does not.
        places = [
            ((index, position), Operand(operand.expr, leaf))
            for index, operand in enumerate(operands)
            for position, leaf in _positioned_leaves(operand.value, containers=containers)
            if tensorish(leaf) and not (arithmetic and leaf.scalar and leaf.kind is Kind.HOST)
        ]
        self._meet_held(places, operation)
        # A host place that holds only under a condition (``x.cuda() if use_cuda else x``) is the
        # device-choice rule's to judge (DEV306), not a plain mix.
        if self.summary_mode:
            self._record_parameter_meet(places)
        hosts = [
            (i, o)
            for i, o in places
            if o.value.kind is Kind.HOST
            and o.value.condition is None
            and not o.value.converted  # (a parameter's data: the callers tell where it is)
            and not self._known_not_empty(o)
            # An empty stand-in passed for an argument the callee ignores (joined into a sequence by
            # ``torch.cat``, it does meet the others).
            and not (placeholder(o.value) and not spread)
        ]
        if not hosts:
            return
        # A fresh host tensor before one a plain attribute held from an earlier call (that one is
        # ``_meet_held``'s finding, reported where the attribute is stored).
        hosts.sort(key=lambda place: place[1].value.held is not None)
        # The function's inputs first: a tensor made without `device=` where the inputs are is the more
        # telling finding (and has a fix), even where the calls in the file pass device tensors.
        for wanted in (Kind.INPUT, Kind.ACCEL):
            for index, host in hosts:
                partner = next(
                    (
                        o
                        for i, o in places
                        if i != index
                        and o.value.kind is wanted
                        and compatible(host.value, o.value)
                        and not (_one_value(host.expr, o.expr, self.symbols) and not (spread and _apart(i, index)))
                        and not (wanted is Kind.INPUT and _host_where_given(places, i, o, operands[i[0]].value))
                    ),
                    None,
                )
                if partner is None or (wanted is Kind.INPUT and self._given(host.value, partner.expr)):
                    continue
                if wanted is Kind.ACCEL:
                    self._emit(Mix(host, partner, operation), host.expr)
                else:
                    # One finding for each place a host tensor was made (see ``_made_apart``).
                    key = host.value.origin if isinstance(host.value.origin, cst.Call) else host.expr
                    self._emit(HostMeetsInput(host, partner, operation, self.function, self.building_module), key)
                return

    def _given(self, value: Value, partner: cst.BaseExpression) -> bool:
        """A host tensor a caller passed in, meeting its module's own state (``self.encoder(x)``,
        ``x + self.pos(x)``): where the module is, the caller's input is the finding (reported at
        the caller), not code of this method. (Meeting another input the caller passed, it is this
        code's finding.)"""
        if value.origin is None or id(value.origin) not in self.given_origins or self.self_name is None:
            return False
        # (What one of its layers computes is where the module is too: ``x + self.pos(x)``.)
        target = partner.func if isinstance(partner, cst.Call) else partner
        root = (path_of(target) or "").split(".")[0]
        return root == self.self_name

    def _known_not_empty(self, operand: Operand) -> bool:
        """An empty placeholder (``torch.tensor([])``) used where a test said it holds something
        (``if cache.numel() != 0:``): along that path it was filled elsewhere, not the placeholder."""
        origin = operand.value.origin
        if not self.state.not_empty or not isinstance(origin, cst.Call) or not patterns.holds_nothing(origin):
            return False
        return any(key in self.state.not_empty for key in self._emptiness_keys(operand.expr))

    def _emptiness_keys(self, expr: cst.BaseExpression) -> list[str]:
        """How a test of ``expr``'s emptiness is remembered: its code, and for an item of a container
        (``cache["keys"]``) the container's items (``cache[*]``, a cache filled together)."""
        keys = [_code_key(self.ctx.code_for(expr))]
        if isinstance(expr, cst.Subscript):
            keys.append(_code_key(self.ctx.code_for(expr.value)) + "[*]")
        return keys

    def _meet_held(self, places: Sequence[tuple[tuple[int, int], Operand]], operation: str) -> None:
        """A module's plain attribute, where an earlier call left it, meets what is where the module
        is now: its inputs or parameters, or a tensor on a device (see ``Value.held``)."""
        for index, stale in places:
            held = stale.value.held
            if held is None or stale.value.scalar:
                continue
            wanted = (Kind.INPUT,) if stale.value.kind is Kind.ACCEL else (Kind.INPUT, Kind.ACCEL)
            partner = next(
                (
                    o
                    for i, o in places
                    if i != index
                    and o.value.held is None
                    and o.value.kind in wanted
                    and compatible(stale.value, o.value)
                ),
                None,
            )
            if partner is not None:
                self._emit_held(stale, partner, operation)
                return

    def _emit_held(self, stale: Operand, partner: Operand | None, operation: str) -> None:
        # Reported where the attribute is assigned (see DEV102), whichever unit it meets in.
        owner, _, attribute = (stale.value.held or "").partition(".")
        self._emit(PlainAttributeMeets(owner, attribute, stale, partner, operation), stale.expr)

    # -- calls ------------------------------------------------------------------------


def _cpu_defaults(function: cst.FunctionDef) -> Iterator[str]:
    """The parameters whose default is the CPU as a device: ``None`` or a ``"cpu"`` string."""
    for param in (*function.params.params, *function.params.kwonly_params):
        default = param.default
        if default is None:
            continue
        if (isinstance(default, cst.Name) and default.value == "None") or (
            names_cpu(patterns.string_value(default))
        ):
            yield param.name.value


_NUMBER = r"(?:int|float|bool|complex)"
# ``int``, ``float | None``, ``Optional[int]``, ``tuple[int, int]``, ``Tuple[int, ...]``, ``list[float]``.
_NUMBERS = rf"(?:typing\.)?(?:tuple|Tuple|list|List|Sequence)\[{_NUMBER}(?:, ?(?:{_NUMBER}|\.\.\.))*\]"
_NUMBER_ANNOTATION = re.compile(rf"(?:Optional\[)?(?:{_NUMBER}|{_NUMBERS})\]?(?: ?\| ?None)?")


def _annotated_as_numbers(param: cst.Param) -> bool:
    """Annotated as a number, or a tuple or list of numbers (``"int"`` in quotes too): never a tensor."""
    if param.annotation is None:
        return False
    annotation = param.annotation.annotation
    text = (
        patterns.string_value(annotation)
        if isinstance(annotation, cst.SimpleString)
        else cst.Module([]).code_for_node(annotation)
    )
    return text is not None and bool(_NUMBER_ANNOTATION.fullmatch(text.replace(" ", "").replace(",", ", ")))


def _number_parameters(function: cst.FunctionDef) -> Iterator[str]:
    """The parameters annotated as numbers, or tuples or lists of numbers: never tensors."""
    for param in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params):
        if _annotated_as_numbers(param):
            yield param.name.value


def _literal_keys_iterated(statement: cst.For) -> tuple[str, tuple[str, ...]] | None:
    """``for k in ["a", "b"]:``: the name and the strings it takes."""
    if not isinstance(statement.target, cst.Name) or not isinstance(statement.iter, (cst.List, cst.Tuple)):
        return None
    keys = [patterns.string_value(e.value) for e in statement.iter.elements]
    if not keys or any(k is None or isinstance(e, cst.StarredElement) for k, e in zip(keys, statement.iter.elements)):
        return None
    return statement.target.value, tuple(k for k in keys if k is not None)


def _every_entry_stores(statement: cst.For, key: str, path: str, symbols: Symbols) -> frozenset[int]:
    """In ``for k in d:`` (``d.keys()``, ``for k, v in d.items()``), the stores ``d[k] = ...`` that
    run for every entry of ``d`` that is a tensor: in the loop's body itself, or only under ``if``
    tests (without ``else``) that the entry is a tensor (``isinstance(v, torch.Tensor)``,
    ``torch.is_tensor(d[k])``, ``hasattr(v, "to")``)."""
    target = statement.target
    value = target.elements[1].value if isinstance(target, (cst.Tuple, cst.List)) else None
    value_name = value.value if isinstance(value, cst.Name) else None

    def is_entry(expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            return expr.value == value_name
        index = patterns.subscript_index(expr)
        return (
            isinstance(expr, cst.Subscript)
            and path_of(expr.value) == path
            and isinstance(index, cst.Name)
            and index.value == key
        )

    def tests_tensor(test: cst.BaseExpression) -> bool:
        if not isinstance(test, cst.Call) or not test.args or not is_entry(test.args[0].value):
            return False
        if dotted_name(test.func) == "isinstance" and len(test.args) == 2:
            kinds = test.args[1].value
            types = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
            return any((symbols.qualify(t) or dotted_name(t)) in _TENSOR_TYPES for t in types)
        if symbols.qualify(test.func) == "torch.is_tensor":
            return len(test.args) == 1
        return (
            dotted_name(test.func) == "hasattr"
            and len(test.args) == 2
            and patterns.string_value(test.args[1].value) == "to"
        )

    found: set[int] = set()
    blocks = [block_of(statement.body)]
    while blocks:
        for line in blocks.pop():
            if isinstance(line, cst.SimpleStatementLine):
                for small in line.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1 and is_entry(small.targets[0].target):
                        found.add(id(small.targets[0].target))
            elif isinstance(line, cst.If) and line.orelse is None and tests_tensor(line.test):
                blocks.append(block_of(line.body))
    return frozenset(found)


def _with_every_tensor_entry(holder: Value, stored: Value) -> Value:
    """``holder`` (a batch, or a list or dict built here) once each of its tensor entries is ``stored``."""
    if holder.kind is Kind.MAYBE:
        return lift(holder, lambda v: _with_every_tensor_entry(v, stored))
    if holder.kind is Kind.CONTAINER:
        return replace(holder, elements=tuple(stored if tensorish(e) else e for e in holder.elements))
    if holder.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and holder.module is not True:
        # (a batch, or what unpacking one gave: iterated by its keys, it is a mapping)
        return lift(stored, lambda v: replace(v, batch=True, module=None, scalar=False) if tensorish(v) else v)
    return holder


def _keys_iterated(statement: cst.For) -> tuple[str, str] | None:
    """``for k in d:``, ``for k in d.keys():``, ``for k, v in d.items():``: the key's name and the
    path of ``d``."""
    target, iterable = statement.target, statement.iter
    method = patterns.method_name(iterable) if isinstance(iterable, cst.Call) else None
    if method in ("keys", "items"):
        base = patterns.receiver(iterable)  # type: ignore[arg-type]
        if base is None or (iterable.args if isinstance(iterable, cst.Call) else ()):
            return None
        iterable = base
    elif isinstance(iterable, cst.Call):
        return None
    if method == "items":
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
            return None
        target = target.elements[0].value
    path = path_of(iterable)
    return (target.value, path) if isinstance(target, cst.Name) and path is not None else None
