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
- ``UNKNOWN``: anything else.  Unknown never produces a finding.

Branches are joined (a value that differs between the arms becomes unknown,
except that moves in both arms still count as moved), loops are iterated to
a fixed point before their events are recorded, and the result is a list of
*events* (two devices meeting, a discarded move, ...) that rules turn into
findings.  Known PyTorch exceptions are built in: a host tensor that may be
0-dim mixes legally with device tensors, and indexing a device tensor with
host indices is legal.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar, Union

import libcst as cst

from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.symbols import dotted_name

if TYPE_CHECKING:
    from flake8_device.context import FileContext


class Kind(enum.Enum):
    UNKNOWN = "unknown"
    NEUTRAL = "neutral"
    HOST = "host"
    ACCEL = "accel"
    INPUT = "input"
    LOADER = "loader"


@dataclass(frozen=True)
class Value:
    kind: Kind = Kind.UNKNOWN
    # ACCEL: the device expression as written ("device", "cuda"); None when branches disagree.
    device: str | None = None
    # The move that placed it, as a suffix to append elsewhere (".to(device)", ".cuda()").
    move: str | None = None
    # The node that decided the placement (a factory call, a `.cpu()` call, a move).
    origin: cst.CSTNode | None = None
    # True: an nn.Module; False: a tensor; None: cannot tell.
    module: bool | None = None
    # Modules: owns parameters or buffers (a loss without weights does not).
    stateful: bool = True
    # May be a 0-dim tensor, which PyTorch lets meet device tensors in arithmetic.
    scalar: bool = False
    # May require grad (a model output outside `torch.no_grad()`).
    grad: bool = False
    # Came from iterating a data loader (the whole batch, maybe a dict or a custom object).
    batch: bool = False
    # A model wrapped in DataParallel scatters CPU inputs itself.
    scatters_inputs: bool = False
    # A batch transform object (kornia / torchvision v2 / a transform-named callable).
    transform: bool = False
    # A string constant ("cpu", "cuda") bound to a name: resolves `.to(device)`.
    constant: str | None = None
    # A loss or metric object: calling it makes its arguments meet.
    compares: bool = False


UNKNOWN = Value()
NEUTRAL = Value(Kind.NEUTRAL, module=False)


def join(a: Value, b: Value) -> Value:
    if a == b:
        return a
    if a.kind is b.kind and a.kind in (Kind.ACCEL, Kind.HOST, Kind.INPUT, Kind.LOADER, Kind.NEUTRAL):
        return Value(
            a.kind,
            device=a.device if a.device == b.device else None,
            move=a.move if a.move == b.move else None,
            origin=a.origin if a.origin is b.origin else None,
            module=a.module if a.module == b.module else None,
            stateful=a.stateful or b.stateful,
            scalar=a.scalar or b.scalar,
            grad=a.grad or b.grad,
            batch=a.batch and b.batch,
            scatters_inputs=a.scatters_inputs or b.scatters_inputs,
            transform=a.transform and b.transform,
            constant=a.constant if a.constant == b.constant else None,
            compares=a.compares and b.compares,
        )
    return UNKNOWN


# -- events ----------------------------------------------------------------------


@dataclass(frozen=True)
class Operand:
    expr: cst.BaseExpression
    value: Value


@dataclass(frozen=True)
class Mix:
    """A host value and an accelerator value meet in one operation."""

    host: Operand
    accel: Operand
    operation: str


@dataclass(frozen=True)
class HostMeetsInput:
    """A tensor made on the host meets the function's inputs (or the module's parameters)."""

    host: Operand
    partner: Operand
    operation: str
    function: cst.FunctionDef | None


@dataclass(frozen=True)
class DiscardedMove:
    statement: cst.Expr
    call: cst.Call
    target: cst.BaseExpression


@dataclass(frozen=True)
class InputNotMoved:
    call: cst.Call
    model: Operand
    argument: Operand


@dataclass(frozen=True)
class NumpyOnAccel:
    call: cst.Call
    tensor: Operand
    # The node to report at and the expression to insert `.cpu()` after.
    anchor: cst.CSTNode


@dataclass(frozen=True)
class AttachAfterMove:
    owner: str
    owner_value: Value
    attached: cst.BaseExpression
    target: str


@dataclass(frozen=True)
class TransformBeforeMove:
    transform_statement: cst.SimpleStatementLine
    move_statement: cst.SimpleStatementLine
    name: str
    adjacent: bool
    transform_call: cst.Call
    transform: Value


@dataclass(frozen=True)
class CollectiveOnHost:
    """A ``torch.distributed`` collective given a tensor that lives on the host."""

    call: cst.Call
    tensor: Operand
    collective: str
    function: cst.FunctionDef | None


@dataclass(frozen=True)
class SyncedLogOnHost:
    """``self.log(name, <host tensor>, sync_dist=True)`` in a Lightning module: reduced over the backend."""

    call: cst.Call
    tensor: Operand


@dataclass(frozen=True)
class WrappedUnmoved:
    """``DataParallel`` / ``DistributedDataParallel`` wrapping a module that is still on the host."""

    call: cst.Call
    module: Operand
    wrapper: str
    function: cst.FunctionDef | None
    # The simple statement holding the call (to see where the wrapper ends up).
    statement: cst.SimpleStatementLine | None


# A runtime Union (not ``X | Y``): the package supports Python 3.9.
Event = Union[
    Mix,
    HostMeetsInput,
    DiscardedMove,
    InputNotMoved,
    NumpyOnAccel,
    AttachAfterMove,
    TransformBeforeMove,
    CollectiveOnHost,
    SyncedLogOnHost,
    WrappedUnmoved,
]
E = TypeVar("E")

# -- knowledge used by the interpreter --------------------------------------------

_LOADER_NAME = re.compile(r"(?:^|_)(?:data_?)?loader$|^dl$|_dl$", re.I)
_LOSS_NAME = re.compile(r"(?:^|_)(?:criterion|loss_fn|loss_func|lossfn|loss_function|loss_fcn)$|(?:^|_)criterion", re.I)
_METRIC_NAME = re.compile(r"metric", re.I)
_TRANSFORM_NAME = re.compile(r"(?:device|gpu|cuda|batch)_?(?:transforms?|augs?|augmentations?)$", re.I)
_DEVICE_NAME = re.compile(r"(?:^|_|\.)(?:device|dev|devices|rank|local_rank|gpu|gpu_id|gpus|cuda)$", re.I)
_DTYPE_NAME = re.compile(r"dtype$", re.I)
# A single tensor (``List[Tensor]`` is not one).
_TENSOR_ANNOTATION = re.compile(r"(?:torch\.)?Tensor|Optional\[(?:torch\.)?Tensor\]|(?:torch\.)?Tensor \| None")
# Objects whose ``.device`` is a configured device, not a tensor's.
_CONFIG_OWNER = re.compile(
    r"(?:^|\.)(?:args|cfg|config|conf|opt|opts|options|hparams|hp|params|accelerator|trainer|fabric|"
    r"settings|training_args|runner|engine|state)$"
)
_TRANSFORM_MODULES = ("kornia.augmentation", "torchvision.transforms.v2", "kornia.enhance", "kornia.color")
_MODULE_FACTORIES = re.compile(
    r"^(?:timm\.create_model|torchvision\.models\.\w+|torch\.hub\.load|.*\.from_pretrained|"
    r"transformers\.AutoModel\w*\.from_pretrained)$"
)
_PASS_THROUGH_CALLS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter"})
# Argument names whose presence means the module itself places its weights.
_PLACEMENT_KEYWORDS = ("device", "device_map")
_ACCELERATOR_WORDS = ("cuda", "mps", "xpu", "npu", "hpu", "xla", "mlu", "meta")
# Attributes only tensors have (modules also have `.to`, `.cuda`, `.float`, `.half`: not evidence).
_TENSOR_EVIDENCE = frozenset(
    {
        "size",
        "device",
        "view",
        "permute",
        "unsqueeze",
        "squeeze",
        "contiguous",
        "masked_fill",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
        "new_tensor",
        "dim",
        "numel",
        "type_as",
        "expand",
        "expand_as",
        "bmm",
        "matmul",
        "is_cuda",
        "detach",
        "softmax",
        "log_softmax",
        "chunk",
        "flatten",
        "masked_select",
    }
)
_MODULE_TENSOR_EVIDENCE = _TENSOR_EVIDENCE | {"shape", "ndim", "dtype"}
_ATTACH_METHODS = frozenset({"add_module", "register_module", "register_parameter", "register_buffer"})
_LIST_ATTACH_METHODS = frozenset({"append", "insert"})
# Tensor methods whose tensor arguments may live on another device (``dst.copy_(src)``).
_CROSS_DEVICE_METHODS = frozenset({"copy_", "to", "type_as", "set_"})
_NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad"})


def _last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _path(node: cst.BaseExpression) -> str | None:
    """The state key of an assignable expression: ``x``, ``self.mask``."""
    return dotted_name(node)


@dataclass
class _State:
    env: dict[str, Value] = field(default_factory=dict)
    # Attachments to a moved module awaiting a later move (owner path -> events).
    pending: dict[str, tuple[AttachAfterMove, ...]] = field(default_factory=dict)
    # Names holding a batch transformed on the host in this loop body: name -> (statement, call).
    transformed: dict[str, tuple[cst.SimpleStatementLine, cst.Call, Value]] = field(default_factory=dict)
    terminated: bool = False

    def copy(self) -> _State:
        return _State(dict(self.env), dict(self.pending), dict(self.transformed), self.terminated)


def _join_states(states: Sequence[_State]) -> _State:
    live = [s for s in states if not s.terminated]
    if not live:
        merged = states[0].copy()
        merged.terminated = True
        return merged
    first = live[0]
    env: dict[str, Value] = {}
    for key in first.env:
        values = [s.env.get(key) for s in live]
        if all(v is not None for v in values):
            value = values[0]
            assert value is not None
            for other in values[1:]:
                assert other is not None
                value = join(value, other)
            env[key] = value
    pending: dict[str, tuple[AttachAfterMove, ...]] = {}
    for state in live:
        for key, events in state.pending.items():
            pending[key] = tuple(dict.fromkeys(pending.get(key, ()) + events))
    transformed = {k: v for k, v in first.transformed.items() if all(s.transformed.get(k) == v for s in live)}
    return _State(env, pending, transformed)


class FlowAnalysis:
    """Runs the interpreter over every scope of a file once; rules read the events."""

    MAX_LOOP_DEPTH = 3

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.events: list[Event] = []
        # What each scope (the module, or a function) knew at its end: for tests and debugging.
        self.final_env: dict[cst.CSTNode, dict[str, Value]] = {}
        self._seen: set[tuple[type, int]] = set()
        self._run()

    def events_of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    def add(self, event: Event, key_node: cst.CSTNode) -> None:
        key = (type(event), id(key_node))
        if key not in self._seen:
            self._seen.add(key)
            self.events.append(event)

    def _run(self) -> None:
        # Only the code flow rules selected is interpreted (other rules' units are parsed too).
        module = self.ctx.module
        if self.ctx.flow_covers(()):
            self.final_env[module] = _Interpreter(self, None, None).run(module.body)
        for function, owner, path in _functions(module.body, None, ()):
            if self.ctx.flow_covers(path):
                self.final_env[function] = _Interpreter(self, function, owner, path).run_function()


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
            yield from _functions(_block(statement.body), None, inner)
        elif isinstance(statement, cst.ClassDef):
            yield from _functions(_block(statement.body), statement, (*path, statement.name.value))
        elif isinstance(statement, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
            for block in _compound_blocks(statement):
                yield from _functions(block, owner, path)


def _block(body: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(body, cst.IndentedBlock):
        return body.body
    return [cst.SimpleStatementLine(body=body.body)] if isinstance(body, cst.SimpleStatementSuite) else []


def _compound_blocks(statement: cst.BaseCompoundStatement) -> Iterator[Sequence[cst.BaseStatement]]:
    yield _block(statement.body)
    orelse = getattr(statement, "orelse", None)
    while orelse is not None:
        yield _block(orelse.body)
        orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
    for handler in getattr(statement, "handlers", ()):
        yield _block(handler.body)
    final = getattr(statement, "finalbody", None)
    if final is not None:
        yield _block(final.body)


class _Interpreter:
    def __init__(
        self,
        analysis: FlowAnalysis,
        function: cst.FunctionDef | None,
        owner: cst.ClassDef | None,
        path: tuple[str, ...] = (),
    ) -> None:
        self.analysis = analysis
        self.ctx = analysis.ctx
        self.symbols = analysis.ctx.symbols
        self.function = function
        self.owner = owner
        self.path = path
        self.state = _State()
        self.record = True
        self.no_grad = 0
        self.loop_depth = 0
        self.self_name: str | None = None
        # The simple statement being interpreted (None inside compound-statement headers).
        self.statement: cst.SimpleStatementLine | None = None
        self.in_module_class = owner is not None and self.symbols.is_local_module_class(owner.name.value)
        self.in_lightning_module = owner is not None and self.symbols.is_lightning_module_class(owner.name.value)
        self.uses_auto_placement = any(
            t.startswith(("accelerate", "lightning.fabric", "lightning_fabric")) for t in self.symbols.imports.values()
        )

    # -- entry points ---------------------------------------------------------
    def run(self, body: Sequence[cst.BaseStatement]) -> dict[str, Value]:
        self._block(body)
        self._flush_pending()
        return self.state.env

    def run_function(self) -> dict[str, Value]:
        function = self.function
        assert function is not None
        params = [*function.params.posonly_params, *function.params.params]
        is_method = self.owner is not None and not _is_static(function) and bool(params)
        if is_method:
            self.self_name = params[0].name.value
        attributes = _MODULE_TENSOR_EVIDENCE if self.in_module_class else _TENSOR_EVIDENCE
        functions = self.ctx.functions
        evidence = functions.evidence(self.path, attributes) if functions is not None else None
        inputs = tensor_inputs(
            function,
            self.ctx,
            skip_first=is_method,
            in_module=self.in_module_class,
            device_aware=not self.in_module_class,
            evidence=evidence,
        )
        for name in inputs:
            self.state.env[name] = Value(Kind.INPUT, module=False)
        return self.run(_block(function.body))

    def _emit(self, event: Event, key_node: cst.CSTNode) -> None:
        if self.record:
            self.analysis.add(event, key_node)

    # -- statements -------------------------------------------------------------
    def _block(self, body: Sequence[cst.BaseStatement]) -> None:
        for statement in body:
            if self.state.terminated:
                return
            self._statement(statement)

    def _statement(self, statement: cst.BaseStatement) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            self.statement = statement
            for small in statement.body:
                self._small(small, statement)
        elif isinstance(statement, cst.If):
            self._eval(statement.test)
            before = self.state
            branches = []
            self.state = before.copy()
            self._block(_block(statement.body))
            branches.append(self.state)
            self.state = before.copy()
            if statement.orelse is not None:
                if isinstance(statement.orelse, cst.If):
                    self._statement(statement.orelse)
                else:
                    self._block(_block(statement.orelse.body))
            branches.append(self.state)
            self.state = _join_states(branches)
        elif isinstance(statement, (cst.For, cst.While)):
            self._loop(statement)
        elif isinstance(statement, cst.With):
            self._with(statement)
        elif isinstance(statement, cst.Try):
            self._try(statement)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            self.state.env[statement.name.value] = UNKNOWN
        # Other compound statements (match, async variants) are skipped: their
        # bindings are unknown to us, so we forget what we knew of anything they may bind.
        else:
            self.state.env = {}

    def _small(self, small: cst.BaseSmallStatement, line: cst.SimpleStatementLine) -> None:
        if isinstance(small, cst.Assign):
            value = self._eval(small.value)
            for target in small.targets:
                self._assign(target.target, small.value, value, line)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                value = self._eval(small.value)
                self._assign(small.target, small.value, value, line)
        elif isinstance(small, cst.AugAssign):
            left = self._eval(small.target)
            right = self._eval(small.value)
            result = self._binary(
                small, Operand(small.target, left), Operand(small.value, right), "augmented assignment"
            )
            path = _path(small.target)
            if path is not None:
                self.state.env[path] = result
        elif isinstance(small, cst.Expr):
            self._expression_statement(small)
        elif isinstance(small, cst.Return):
            if small.value is not None:
                self._use(small.value)
                self._eval(small.value)
            self.state.terminated = True
        elif isinstance(small, (cst.Raise, cst.Continue, cst.Break)):
            self.state.terminated = True
        elif isinstance(small, cst.Del):
            for path in _targets(small.target):
                self.state.env.pop(path, None)
        elif isinstance(small, (cst.Global, cst.Nonlocal)):
            for name in small.names:
                self.state.env.pop(name.name.value, None)

    def _expression_statement(self, statement: cst.Expr) -> None:
        expression = statement.value
        if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute):
            method = expression.func.attr.value
            base = expression.func.value
            if method in ("to", "cuda", "cpu") or method in self.ctx.config.move_functions:
                target_value = self._eval(base)
                moved = self._move(expression, target_value)
                path = _path(base)
                if target_value.module is False:
                    self._emit(DiscardedMove(statement, expression, base), expression)
                    return
                if moved is not None and path is not None and target_value.module is not False:
                    # A module (or something we cannot tell from one) moves in place.
                    self.state.env[path] = replace(
                        moved, module=True if target_value.module is None else target_value.module
                    )
                    self._moved(path)
                return
        self._eval(expression)

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
            else:
                for element in elements:
                    self._assign(element, value_node, _element_of(value), line)  # type: ignore[arg-type]
            return
        if isinstance(target, cst.StarredElement):
            return
        path = _path(target)
        self._check_attach(target, value_node, value)
        self._check_transform_then_move(target, value_node, value, line)
        if path is None:
            if isinstance(target, cst.Subscript):
                self._eval(target.value)
            return
        # Rebinding a name forgets what we knew of its attributes.
        prefix = path + "."
        for key in [k for k in self.state.env if k.startswith(prefix)]:
            del self.state.env[key]
        self.state.env[path] = value
        if value.kind is Kind.ACCEL and isinstance(value_node, cst.Call):
            base = patterns.receiver(value_node)
            if base is not None and _path(base) == path:
                self._moved(path)  # ``m = m.to(device)``

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
        if self.loop_depth <= FlowAnalysis.MAX_LOOP_DEPTH:
            # Iterate to a fixed point silently, then once more recording events.
            self.record = False
            for _ in range(2):
                self.state = entry.copy()
                self._loop_body(statement)
                entry = _join_states([before, self._continue_state(self.state)])
            self.record = record
        self.state = entry.copy()
        self.state.transformed = {}
        self._loop_body(statement)
        after_body = self._continue_state(self.state)
        self.loop_depth -= 1
        self.state = _join_states([before, after_body])
        self.state.transformed = {}
        if statement.orelse is not None:
            self._block(_block(statement.orelse.body))

    @staticmethod
    def _continue_state(state: _State) -> _State:
        # `continue`/`break` end the body, not the function: the loop goes on.
        copy = state.copy()
        copy.terminated = False
        return copy

    def _loop_body(self, statement: cst.For | cst.While) -> None:
        if isinstance(statement, cst.For):
            self._bind_loop_target(statement.target, statement.iter)
        self._block(_block(statement.body))

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
            if sources and (callee in _PASS_THROUGH_CALLS or qualified in _PASS_THROUGH_CALLS):
                self._bind_loop_target(target, sources[0])
                return
        element = self._iteration_value(iterable)
        self._bind_values(target, element)

    def _bind_values(self, target: cst.BaseExpression, element: Value) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for item in target.elements:
                self._bind_values(item.value, _element_of(element))
            return
        path = _path(target)
        if path is not None:
            self.state.env[path] = element

    def _iteration_value(self, node: cst.BaseExpression) -> Value:
        """What one step of iterating ``node`` gives: a host batch for a data loader."""
        value = self._value_of(node)
        if value.kind is Kind.LOADER:
            return Value(Kind.HOST, module=None, batch=True, origin=node)
        name = _last_name(node)
        path = _path(node)
        known = path is not None and path in self.state.env
        if name and _LOADER_NAME.search(name) and not known and not self.uses_auto_placement:
            return Value(Kind.HOST, module=None, batch=True, origin=node)
        return UNKNOWN

    def _with(self, statement: cst.With) -> None:
        quiet = False
        for item in statement.items:
            if isinstance(item.item, cst.Call) and self.symbols.qualify(item.item.func) in _NO_GRAD:
                quiet = True
            else:
                self._eval(item.item)
            if item.asname is not None:
                for path in _targets(item.asname.name):
                    self.state.env[path] = UNKNOWN
        self.no_grad += quiet
        self._block(_block(statement.body))
        self.no_grad -= quiet

    def _try(self, statement: cst.Try) -> None:
        before = self.state.copy()
        self._block(_block(statement.body))
        outcomes = [self.state]
        for handler in statement.handlers:
            self.state = _join_states([before, outcomes[0]])
            self.state.terminated = False
            if handler.name is not None:
                for path in _targets(handler.name.name):
                    self.state.env[path] = UNKNOWN
            self._block(_block(handler.body))
            outcomes.append(self.state)
        if statement.orelse is not None:
            self.state = outcomes[0]
            self._block(_block(statement.orelse.body))
            outcomes[0] = self.state
        self.state = _join_states(outcomes)
        if statement.finalbody is not None:
            terminated = self.state.terminated
            self.state.terminated = False
            self._block(_block(statement.finalbody.body))
            self.state.terminated = self.state.terminated or terminated

    # -- expressions ----------------------------------------------------------------
    def _value_of(self, node: cst.BaseExpression) -> Value:
        """The value of an expression already evaluated (no events): names and attributes only."""
        path = _path(node)
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
        if isinstance(node, cst.Name):
            return self._name(node)
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.BinaryOperation):
            left = self._eval(node.left)
            right = self._eval(node.right)
            return self._binary(node, Operand(node.left, left), Operand(node.right, right), _operator(node))
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
            return replace(NEUTRAL, constant=patterns.string_value(node))
        if isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):
            return NEUTRAL
        if isinstance(node, cst.IfExp):
            self._eval(node.test)
            return join(self._eval(node.body), self._eval(node.orelse))
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            for element in node.elements:
                self._eval(element.value)
            return UNKNOWN
        if isinstance(node, cst.Dict):
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    self._eval(element.key)
                self._eval(element.value)
            return UNKNOWN
        if isinstance(node, cst.NamedExpr):
            value = self._eval(node.value)
            path = _path(node.target)
            if path is not None:
                self.state.env[path] = value
            return value
        if isinstance(node, cst.Await):
            self._eval(node.expression)
            return UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            self._eval(node.left)
            self._eval(node.right)
            return UNKNOWN
        if isinstance(node, cst.StarredElement):
            return self._eval(node.value)
        # Lambdas and comprehensions have their own scopes: not followed.
        return UNKNOWN

    def _name(self, node: cst.Name) -> Value:
        value = self.state.env.get(node.value)
        if value is not None:
            return value
        if node.value in ("True", "False", "None"):
            return NEUTRAL
        return UNKNOWN

    def _attribute(self, node: cst.Attribute) -> Value:
        path = _path(node)
        if path is not None and path in self.state.env:
            return self.state.env[path]
        attr = node.attr.value
        if self.self_name is not None and isinstance(node.value, cst.Name) and node.value.value == self.self_name:
            return self._self_attribute(attr)
        base = self._eval(node.value)
        if attr in torch_api.NON_TENSOR_ATTRIBUTES:
            if attr == "device" and base.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT):
                return Value(Kind.NEUTRAL, module=False, device=self.ctx.code_for(node))
            return NEUTRAL
        if attr in torch_api.DEVICE_PRESERVING_ATTRIBUTES and base.module is False:
            return base
        if base.batch or (base.module is None and base.kind in (Kind.HOST, Kind.ACCEL)):
            return _item_of(base)  # ``batch.x`` of a batch object
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
            return Value(Kind.INPUT, module=True)
        return UNKNOWN

    def _subscript(self, node: cst.Subscript) -> Value:
        base = self._eval(node.value)
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                self._eval(element.slice.value)
        return _item_of(base)

    def _binary(self, node: cst.CSTNode, left: Operand, right: Operand, operation: str) -> Value:
        self._meet(node, [left, right], operation, arithmetic=True)
        a, b = left.value, right.value
        if a.kind is Kind.NEUTRAL:
            return replace(b, origin=b.origin) if _tensorish(b) else UNKNOWN
        if b.kind is Kind.NEUTRAL:
            return a if _tensorish(a) else UNKNOWN
        if a.kind is b.kind and _tensorish(a) and _tensorish(b):
            return Value(
                a.kind,
                device=a.device if a.device == b.device else None,
                move=a.move,
                module=False,
                origin=a.origin,
                scalar=a.scalar and b.scalar,
                grad=a.grad or b.grad,
            )
        return UNKNOWN

    def _meet(self, node: cst.CSTNode, operands: Sequence[Operand], operation: str, *, arithmetic: bool) -> None:
        """Record where a host tensor meets an accelerator tensor or the function's inputs."""
        tensors = [o for o in operands if _tensorish(o.value)]
        hosts = [o for o in tensors if o.value.kind is Kind.HOST and not (arithmetic and o.value.scalar)]
        if not hosts:
            return
        accel = next((o for o in tensors if o.value.kind is Kind.ACCEL and not (arithmetic and o.value.scalar)), None)
        host = hosts[0]
        if accel is not None:
            self._emit(Mix(host, accel, operation), host.expr)
            return
        partner = next((o for o in tensors if o.value.kind is Kind.INPUT), None)
        if partner is not None:
            self._emit(HostMeetsInput(host, partner, operation, self.function), host.expr)

    # -- calls ------------------------------------------------------------------------
    def _call(self, node: cst.Call) -> Value:
        func = node.func
        qualified = self.symbols.qualify(func)
        if isinstance(func, cst.Attribute) and qualified is None:
            receiver_value = self._eval(func.value)
            return self._method_call(node, func.value, func.attr.value, receiver_value)
        callee = self._eval(func) if qualified is None else UNKNOWN
        arguments = [Operand(a.value, self._eval(a.value)) for a in node.args]
        name = _last_name(func) or ""
        if qualified in torch_api.DIST_COLLECTIVES and name == qualified.rsplit(".", 1)[-1]:
            self._check_collective(node, qualified, arguments)  # (written under its own name, not an alias)
        if name in self.ctx.config.move_functions:
            return self._helper_move(node, arguments)
        if qualified in ("numpy.asarray", "numpy.array") and arguments:
            first = arguments[0]
            if first.value.kind is Kind.ACCEL and _tensorish(first.value):
                self._emit(NumpyOnAccel(node, first, node.func), node)
            return NEUTRAL
        if qualified is not None:
            known = self._torch_call(node, qualified, arguments)
            if known is not None:
                return known
        if isinstance(func, cst.Name):
            if name == "setattr" and len(node.args) >= 3:
                self._attach_call(node.args[0].value, node.args[2].value, arguments[2].value)
                return NEUTRAL
            if self.symbols.is_local_module_class(name):
                return self._new_module(node, stateful=True)
        for argument in arguments:
            if argument.value.module is not False and argument.value.kind in (Kind.ACCEL, Kind.HOST):
                self._use(argument.expr)
        return self._call_value(node, callee, arguments, name)

    def _call_value(self, node: cst.Call, callee: Value, arguments: list[Operand], name: str) -> Value:
        """Calling a value: a model, a loss, a metric, a transform, or something unknown."""
        if _path(node.func) is not None:
            self._use(node.func)
        tensors = [a for a in arguments if _tensorish(a.value)]
        if callee.compares or _LOSS_NAME.search(name) or _METRIC_NAME.search(name):
            self._meet(node, tensors, f"`{self.ctx.code_for(node.func)}(...)`", arithmetic=True)
            return _common_device(tensors)
        if callee.module is False or callee.kind not in (Kind.HOST, Kind.ACCEL, Kind.INPUT):
            return UNKNOWN
        if callee.kind is Kind.ACCEL and not callee.scatters_inputs:
            for argument in arguments:
                value = argument.value
                if value.kind is Kind.HOST and not value.scalar and value.module is not True:
                    self._emit(InputNotMoved(node, Operand(node.func, callee), argument), argument.expr)
            return Value(
                Kind.ACCEL,
                device=callee.device,
                move=callee.move,
                module=False,
                origin=callee.origin,
                grad=self.no_grad == 0,
            )
        if callee.kind is Kind.HOST and callee.module is True and callee.stateful:
            self._meet(
                node,
                [Operand(node.func, replace(callee, module=False)), *tensors],
                f"`{self.ctx.code_for(node.func)}(...)`",
                arithmetic=False,
            )
            return UNKNOWN
        if callee.kind is Kind.INPUT and callee.module is True:
            for argument in tensors:
                if argument.value.kind is Kind.HOST and not argument.value.scalar:
                    self._emit(
                        HostMeetsInput(
                            argument,
                            Operand(node.func, callee),
                            f"`{self.ctx.code_for(node.func)}(...)`",
                            self.function,
                        ),
                        argument.expr,
                    )
            return Value(Kind.INPUT, module=False)
        return UNKNOWN

    def _method_call(self, node: cst.Call, base: cst.BaseExpression, method: str, receiver: Value) -> Value:
        arguments = [Operand(a.value, self._eval(a.value)) for a in node.args]
        if method in ("log", "log_dict") and self.in_lightning_module and _path(base) == self.self_name:
            self._check_synced_log(node, method)
        if method in ("to", "cuda", "cpu"):
            moved = self._move(node, receiver)
            return moved if moved is not None else UNKNOWN
        if method in self.ctx.config.move_functions:
            return self._helper_move(node, arguments)
        if method in _ATTACH_METHODS and len(node.args) >= 2:
            self._attach_call(base, node.args[1].value, arguments[1].value, method)
            return NEUTRAL
        if method in _LIST_ATTACH_METHODS and node.args:
            root = _root_path(base)
            if root is not None and isinstance(base, cst.Attribute):
                self._attach_call(base, node.args[-1].value, arguments[-1].value, method)
            return NEUTRAL
        if method == "numpy" and receiver.kind is Kind.ACCEL and _tensorish(receiver):
            self._emit(NumpyOnAccel(node, Operand(base, receiver), node.func.attr), node)  # type: ignore[attr-defined]
            return NEUTRAL
        if method == "update" and (receiver.compares or _METRIC_NAME.search(_last_name(base) or "")):
            tensors = [a for a in arguments if _tensorish(a.value)]
            self._meet(node, tensors, f"`{self.ctx.code_for(node.func)}(...)`", arithmetic=True)
            return NEUTRAL
        if _tensorish(receiver):
            if method in torch_api.NON_TENSOR_METHODS:
                return NEUTRAL
            if method in torch_api.NEW_METHODS:
                return replace(receiver, origin=node, scalar=False, grad=False, batch=False)
            if method in torch_api.DEVICE_PRESERVING_METHODS:
                tensors = [Operand(base, receiver), *[a for a in arguments if _tensorish(a.value)]]
                if method not in _CROSS_DEVICE_METHODS:
                    self._meet(node, tensors, f"`.{method}()`", arithmetic=True)
                reduces = method in (
                    "sum",
                    "mean",
                    "max",
                    "min",
                    "prod",
                    "norm",
                    "std",
                    "var",
                    "all",
                    "any",
                    "amax",
                    "amin",
                )
                return replace(
                    receiver,
                    scalar=receiver.scalar or reduces,
                    grad=receiver.grad and method not in ("detach",),
                    batch=False,
                )
        if receiver.kind is Kind.HOST and receiver.batch:
            return UNKNOWN
        if receiver.module is True and method in (
            "eval",
            "train",
            "requires_grad_",
            "float",
            "half",
            "double",
            "bfloat16",
        ):
            return receiver  # modules return themselves
        # ``self.emb(pos)``, ``self.criterion(out, y)``: calling a module held in an attribute.
        callee = self._attribute(node.func) if isinstance(node.func, cst.Attribute) else UNKNOWN
        if callee.module is True or callee.compares or _LOSS_NAME.search(method) or _METRIC_NAME.search(method):
            return self._call_value(node, callee, arguments, method)
        return UNKNOWN

    def _torch_call(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> Value | None:
        if qualified in torch_api.TENSOR_FACTORIES:
            device = patterns.keyword(node, "device")
            if device is not None:
                return self._device_value(device.value, node, module=False) or UNKNOWN
            return Value(Kind.HOST, module=False, origin=node, scalar=patterns.maybe_zero_dim_factory(node, qualified))
        if qualified in torch_api.LIKE_FACTORIES:
            device = patterns.keyword(node, "device")
            if device is not None:
                return self._device_value(device.value, node, module=False) or UNKNOWN
            if arguments:
                return replace(arguments[0].value, origin=node, scalar=False, grad=False, batch=False)
            return UNKNOWN
        if qualified in torch_api.PARAMETER_CLASSES:
            return replace(arguments[0].value, grad=True) if arguments else UNKNOWN
        if qualified == "torch.utils.data.DataLoader" or qualified.endswith(".DataLoader"):
            return Value(Kind.LOADER, module=False)
        if qualified in ("torch.device",):
            return NEUTRAL
        if qualified.startswith(_TRANSFORM_MODULES) and qualified.rsplit(".", 1)[-1][:1].isupper():
            return Value(Kind.HOST, module=True, stateful=False, transform=True, origin=node)
        if qualified in torch_api.INPUT_SCATTERING_WRAPPERS:
            inner = arguments[0].value if arguments else UNKNOWN
            if inner.kind is Kind.HOST and inner.module is True and not node.args[0].star:
                self._emit(WrappedUnmoved(node, arguments[0], qualified, self.function, self.statement), node)
            return replace(inner, scatters_inputs=True) if inner.module is not False else UNKNOWN
        if torch_api.is_nn_module_class(qualified):
            is_loss = qualified.endswith("Loss")
            weighted = any(patterns.keyword(node, k) is not None for k in ("weight", "pos_weight"))
            stateful = (qualified in torch_api.STATEFUL_NN_MODULES) or (is_loss and weighted) or not is_loss
            return self._new_module(node, stateful=stateful, compares=is_loss)
        if _MODULE_FACTORIES.match(qualified):
            return self._new_module(node, stateful=True)
        if qualified.startswith("torchmetrics.") and qualified.rsplit(".", 1)[-1][:1].isupper():
            return Value(Kind.HOST, module=True, stateful=False, compares=True, origin=node)
        if qualified.startswith(("torch.", "torchmetrics.functional.")) and not qualified.startswith(
            ("torch.cuda.", "torch.distributed.", "torch.backends.", "torch._")
        ):
            tensors = [a for a in arguments if _tensorish(a.value)]
            listed = [
                Operand(e.value, self._value_of(e.value))
                for a in node.args
                if isinstance(a.value, (cst.List, cst.Tuple))
                for e in a.value.elements
            ]
            tensors += [o for o in listed if _tensorish(o.value)]
            strict = qualified in torch_api.SAME_DEVICE_EVEN_FOR_SCALARS
            self._meet(node, tensors, f"`{self.ctx.code_for(node.func)}`", arithmetic=not strict)
            if qualified in torch_api.TENSOR_TRANSFORMS:
                return _common_device(tensors)
            return UNKNOWN
        return None

    def _check_collective(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> None:
        positions, keywords = torch_api.DIST_COLLECTIVES[qualified]
        positional = [o for a, o in zip(node.args, arguments) if a.keyword is None and not a.star]
        chosen = [positional[i] for i in positions if i < len(positional)]
        chosen += [o for a, o in zip(node.args, arguments) if a.keyword is not None and a.keyword.value in keywords]
        for operand in chosen:
            value = operand.value
            # ``module is None`` too: ``x.cpu()`` of an unknown value is a tensor here (no module is reduced).
            if value.kind is Kind.HOST and value.module is not True and not value.batch:
                self._emit(CollectiveOnHost(node, operand, qualified, self.function), operand.expr)

    def _check_synced_log(self, node: cst.Call, method: str) -> None:
        """Lightning reduces a logged tensor where it is; a host tensor cannot be reduced over NCCL."""
        sync = patterns.keyword(node, "sync_dist")
        if sync is None or not (isinstance(sync.value, cst.Name) and sync.value.value == "True"):
            return
        index, keyword = (1, "value") if method == "log" else (0, "dictionary")
        given = patterns.keyword(node, keyword) or patterns.positional(node, index)
        if given is None:
            return
        logged = [given.value]
        if method == "log_dict" and isinstance(given.value, cst.Dict):
            logged = [e.value for e in given.value.elements if isinstance(e, cst.DictElement)]
        for expr in logged:
            value = self._value_of(expr)
            if value.kind is Kind.HOST and value.module is not True and not value.batch:
                self._emit(SyncedLogOnHost(node, Operand(expr, value)), expr)

    def _new_module(self, node: cst.Call, *, stateful: bool, compares: bool = False) -> Value:
        placed = next(
            (patterns.keyword(node, k) for k in _PLACEMENT_KEYWORDS if patterns.keyword(node, k) is not None), None
        )
        if placed is not None:
            device = self._device_value(placed.value, node, module=True)
            return device if device is not None else Value(Kind.UNKNOWN, module=True)
        return Value(Kind.HOST, module=True, stateful=stateful, origin=node, compares=compares)

    # -- moves ----------------------------------------------------------------------------
    def _move(self, node: cst.Call, receiver: Value) -> Value | None:
        """The value of ``x.to(...)`` / ``x.cuda()`` / ``x.cpu()``; None when the target is unknown."""
        method = patterns.method_name(node)
        module = receiver.module
        base = dict(
            module=module,
            stateful=receiver.stateful,
            grad=receiver.grad,
            scatters_inputs=receiver.scatters_inputs,
            compares=receiver.compares,
            transform=receiver.transform,
        )
        if method == "cpu":
            return Value(Kind.HOST, origin=node, **base)  # type: ignore[arg-type]
        if method == "cuda":
            move = self._move_suffix(node)
            return Value(Kind.ACCEL, device="cuda", move=move, origin=node, **base)  # type: ignore[arg-type]
        device = patterns.keyword(node, "device")
        target = device.value if device is not None else None
        if target is None:
            first = patterns.positional(node, 0)
            if first is None:
                return replace(receiver, origin=receiver.origin) if patterns.keyword(node, "dtype") else None
            target = first.value
        if self._is_dtype(target):
            return receiver
        placed = self._device_value(target, node, module=module)
        if placed is None:
            return None
        return replace(
            placed,
            stateful=receiver.stateful,
            grad=receiver.grad,
            scatters_inputs=receiver.scatters_inputs,
            compares=receiver.compares,
            transform=receiver.transform,
        )

    def _helper_move(self, node: cst.Call, arguments: list[Operand]) -> Value:
        device = patterns.keyword(node, "device")
        target = device.value if device is not None else (arguments[1].expr if len(arguments) > 1 else None)
        if target is None:
            return UNKNOWN
        placed = self._device_value(target, node, module=None)
        if placed is None:
            return UNKNOWN
        return replace(placed, module=None)

    def _move_suffix(self, node: cst.Call) -> str | None:
        whole = self.ctx.module.code_for_node(node)
        base = patterns.receiver(node)
        if base is None:
            return None
        head = self.ctx.module.code_for_node(base)
        if whole.startswith(head) and whole[len(head) :].lstrip().startswith("."):
            return whole[len(head) :].strip()
        return None

    def _is_dtype(self, node: cst.BaseExpression) -> bool:
        qualified = self.symbols.qualify(node)
        if qualified in torch_api.DTYPE_NAMES:
            return True
        name = dotted_name(node)
        return bool(name and _DTYPE_NAME.search(name))

    def _device_value(self, node: cst.BaseExpression, origin: cst.Call, *, module: bool | None) -> Value | None:
        """Where ``device=<node>`` puts a value; None when it cannot be told."""
        suffix = (
            self._move_suffix(origin)
            if patterns.method_name(origin) in ("to", "cuda")
            else f".to({self.ctx.code_for(node)})"
        )
        text = self.ctx.code_for(node)
        literal = patterns.string_value(node)
        if literal is None and isinstance(node, (cst.Name, cst.Attribute)):
            bound = self.state.env.get(_path(node) or "")
            if bound is not None and bound.constant is not None:
                literal = bound.constant
        if isinstance(node, cst.Call) and self.symbols.qualify(node.func) == "torch.device":
            first = patterns.positional(node, 0)
            if first is not None:
                literal = patterns.string_value(first.value)
                if literal is None:
                    return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
        if literal is not None:
            kind = literal.split(":")[0]
            if kind == "cpu":
                return Value(Kind.HOST, origin=origin, module=module)
            if kind in _ACCELERATOR_WORDS:
                return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
            return None
        if isinstance(node, cst.Integer):
            return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
        if isinstance(node, cst.Attribute) and node.attr.value == "device":
            owner = node.value
            owner_name = dotted_name(owner)
            if self.self_name is not None and owner_name == self.self_name and self.in_module_class:
                # The module's own device (Lightning's `self.device`): where its inputs live.
                return Value(Kind.INPUT, origin=origin, module=module)
            same = self._value_of(owner)
            if _tensorish(same):
                return self._same_device(same, origin, module)
            if owner_name is not None and (_CONFIG_OWNER.search(owner_name) or owner_name == self.self_name):
                return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
            return None
        if isinstance(node, (cst.Name, cst.Attribute)):
            same = self._value_of(node)
            if _tensorish(same):
                return self._same_device(same, origin, module)  # ``x.to(other_tensor)``
        name = dotted_name(node)
        if name is not None and _DEVICE_NAME.search(name):
            return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
        return None

    @staticmethod
    def _same_device(same: Value, origin: cst.Call, module: bool | None) -> Value:
        return replace(
            same,
            origin=same.origin if same.kind is Kind.HOST else origin,
            module=module,
            scalar=False,
            grad=False,
            batch=False,
        )

    def _moved(self, path: str) -> None:
        """A move of ``path`` settles attachments made to it (or to its attributes) before."""
        for owner in list(self.state.pending):
            kept = tuple(e for e in self.state.pending[owner] if not (owner == path or e.target == path))
            if kept:
                self.state.pending[owner] = kept
            else:
                del self.state.pending[owner]

    # -- attachments after a move (DEV101) ----------------------------------------------------
    def _check_attach(
        self, target: cst.BaseAssignTargetExpression, value_node: cst.BaseExpression, value: Value
    ) -> None:
        if not isinstance(target, (cst.Attribute, cst.Subscript)):
            return
        self._attach_call(target, value_node, value)

    def _attach_call(
        self, owner_expr: cst.BaseExpression, value_node: cst.BaseExpression, value: Value, method: str = ""
    ) -> None:
        root = _root_path(owner_expr)
        if root is None:
            return
        owner_value = self.state.env.get(root)
        if owner_value is None or owner_value.kind is not Kind.ACCEL or owner_value.module is False:
            return
        if value.kind is not Kind.HOST or value.batch:
            return
        if value.module is None:
            return
        target = self.ctx.code_for(owner_expr)
        event = AttachAfterMove(root, owner_value, value_node, target)
        if self.record:
            self.state.pending[root] = self.state.pending.get(root, ()) + (event,)

    def _use(self, node: cst.BaseExpression) -> None:
        """A module used (called, passed on, returned) settles its pending attachments as bugs."""
        path = _path(node)
        if path is None:
            return
        root = path.split(".")[0]
        for owner in (path, root):
            for event in self.state.pending.pop(owner, ()):
                self._emit(event, event.attached)

    def _flush_pending(self) -> None:
        for events in self.state.pending.values():
            for event in events:
                self._emit(event, event.attached)
        self.state.pending = {}

    # -- batch transforms before the move (DEV206) ------------------------------------------------
    def _check_transform_then_move(
        self,
        target: cst.BaseAssignTargetExpression,
        value_node: cst.BaseExpression,
        value: Value,
        line: cst.SimpleStatementLine,
    ) -> None:
        if self.loop_depth == 0:
            return
        path = _path(target)
        if path is None:
            return
        transformed = self.state.transformed
        if isinstance(value_node, cst.Call):
            if patterns.method_name(value_node) in ("to", "cuda") and value.kind is Kind.ACCEL:
                base = patterns.receiver(value_node)
                earlier = transformed.get(path)
                if earlier is not None and base is not None and _path(base) == path:
                    statement, call, transform = earlier
                    adjacent = self._adjacent(statement, line)
                    self._emit(TransformBeforeMove(statement, line, path, adjacent, call, transform), call)
                transformed.pop(path, None)
                return
            callee = self._value_of(value_node.func)
            name = _last_name(value_node.func) or ""
            first = patterns.positional(value_node, 0)
            is_transform = (
                callee.transform
                or bool(_TRANSFORM_NAME.search(name))
                or (callee.kind is Kind.HOST and callee.module is True and callee.stateful)
            )
            if is_transform and first is not None:
                source = (
                    self._value_of(first.value) if _path(first.value) != path else self.state.env.get(path, UNKNOWN)
                )
                if source.kind is Kind.HOST and source.module is not True and _path(first.value) == path:
                    transformed[path] = (line, value_node, callee)
                    return
        transformed.pop(path, None)

    def _adjacent(self, first: cst.SimpleStatementLine, second: cst.SimpleStatementLine) -> bool:
        body = self._enclosing_body(first)
        if body is None:
            return False
        statements = list(body)
        return any(a is first and b is second for a, b in zip(statements, statements[1:]))

    def _enclosing_body(self, statement: cst.BaseStatement) -> Sequence[cst.BaseStatement] | None:
        stack: list[Sequence[cst.BaseStatement]] = [self.ctx.module.body]
        while stack:
            body = stack.pop()
            for item in body:
                if item is statement:
                    return body
                if isinstance(item, cst.BaseCompoundStatement):
                    stack.extend(_compound_blocks(item))
        return None


def _is_static(function: cst.FunctionDef) -> bool:
    return any(dotted_name(d.decorator) == "staticmethod" for d in function.decorators)


def _root_path(node: cst.BaseExpression) -> str | None:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _targets(node: cst.BaseExpression) -> Iterator[str]:
    if isinstance(node, (cst.Tuple, cst.List)):
        for element in node.elements:
            yield from _targets(element.value)
        return
    path = _path(node)
    if path is not None:
        yield path


def _tensorish(value: Value) -> bool:
    """Could be a tensor: not a module, not a whole batch, and placed somewhere we know."""
    return value.module is not True and not value.batch and value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT)


def _item_of(value: Value) -> Value:
    """``value[k]``: an item of a batch (moved or not) is a tensor; a tensor's slice may be 0-dim."""
    if value.kind in (Kind.HOST, Kind.ACCEL) and (value.batch or value.module is None):
        return Value(value.kind, device=value.device, move=value.move, module=False, origin=value.origin)
    if _tensorish(value):
        return replace(value, scalar=True)
    return UNKNOWN


def _element_of(value: Value) -> Value:
    """What unpacking a value gives: a batch's items are tensors; a tensor's rows too."""
    if value.kind is Kind.HOST and value.batch:
        return Value(Kind.HOST, module=False, origin=value.origin)
    if value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and value.module is False:
        return value
    return UNKNOWN


def _common_device(operands: Sequence[Operand]) -> Value:
    values = [o.value for o in operands]
    if not values:
        return UNKNOWN
    first = values[0]
    if all(v.kind is first.kind for v in values) and first.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT):
        return Value(
            first.kind,
            device=first.device,
            move=first.move,
            module=False,
            origin=first.origin,
            grad=any(v.grad for v in values),
            scalar=all(v.scalar for v in values),
        )
    return UNKNOWN


def _operator(node: cst.BinaryOperation) -> str:
    symbols = {
        cst.Add: "+",
        cst.Subtract: "-",
        cst.Multiply: "*",
        cst.Divide: "/",
        cst.FloorDivide: "//",
        cst.Modulo: "%",
        cst.Power: "**",
        cst.MatrixMultiply: "@",
        cst.BitAnd: "&",
        cst.BitOr: "|",
        cst.BitXor: "^",
        cst.LeftShift: "<<",
        cst.RightShift: ">>",
    }
    return f"`{symbols.get(type(node.operator), '?')}`"


def tensor_inputs(
    function: cst.FunctionDef,
    ctx: FileContext,
    *,
    skip_first: bool,
    in_module: bool = False,
    device_aware: bool = False,
    evidence: tuple[set[str], bool] | None = None,
) -> list[str]:
    """Parameters that are tensors: annotated so, or used like one (``x.size(1)``, ``x.device``;
    in a module's methods also ``x.shape``, since NumPy arrays rarely reach ``forward``).

    With ``device_aware``, a function that never mentions a device has none: outside a
    module, such a function may well be meant for host tensors only (and say so only in
    its docstring), so its inputs are not assumed to be anywhere.
    """
    params = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    if skip_first:
        params = params[1:]
    # From the function's source text when known (cheap), else from its tree.
    used_like_tensors, mentions_device = evidence or _tensor_evidence(
        function, _MODULE_TENSOR_EVIDENCE if in_module else _TENSOR_EVIDENCE
    )
    if device_aware and not mentions_device:
        return []
    found = []
    for param in params:
        annotation = ctx.code_for(param.annotation.annotation) if param.annotation else ""
        if _TENSOR_ANNOTATION.fullmatch(annotation) or (not annotation and param.name.value in used_like_tensors):
            found.append(param.name.value)
    return found


def _tensor_evidence(function: cst.FunctionDef, attributes: frozenset[str]) -> tuple[set[str], bool]:
    """Parameters used like tensors in the body (``x.size(1)``, ``x.device``, ``x.view(...)``),
    and whether the body mentions a device at all (``x.device``, ``device=``, a ``device`` name)."""
    from flake8_device.walk import children

    found: set[str] = set()
    mentions_device = False
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.attr.value in attributes:
                found.add(node.value.value)
            mentions_device = mentions_device or node.attr.value == "device"
        elif isinstance(node, cst.Name):
            mentions_device = mentions_device or "device" in node.value
        stack.extend(children(node))
    return found, mentions_device
