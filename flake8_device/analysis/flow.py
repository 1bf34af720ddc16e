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

import enum
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar, Union

import libcst as cst

from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.helpers import HelperClasses
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
    CONDITIONAL = "conditional"


# Conditions (``Value.condition``): the canonical text of a device condition, or one of these.
ALWAYS = ""  # a literal accelerator: ``.cuda()``, ``.to("cuda")``, ``device="cuda:1"``
NEVER = "<never>"  # a module constructed here and never moved


@dataclass(frozen=True)
class OptimizerState:
    """An optimizer over the parameters of the module at ``owner`` (a state path)."""

    owner: str
    # The call that built its state while ``owner`` was on the host: an eager-state optimizer's
    # construction, or ``load_state_dict``.  None while it has no state yet.
    built_by: cst.Call | None = None
    line: cst.SimpleStatementLine | None = None


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
    # ACCEL and CONDITIONAL: the condition under which it is on the accelerator (ALWAYS for a
    # literal accelerator); None when unknown (``.to(device)`` with ``device`` from elsewhere).
    condition: str | None = None
    # A ``torch.Generator`` (its kind says where it draws: HOST or ACCEL).
    generator: bool = False
    # An optimizer, and where its state was built.
    optimizer: OptimizerState | None = None
    # An instance of this file's helper class (see :mod:`.helpers`) that keeps host tensor constants.
    instance_of: str | None = None


UNKNOWN = Value()
NEUTRAL = Value(Kind.NEUTRAL, module=False)


def join(a: Value, b: Value) -> Value:
    if a == b:
        return a
    if a.generator != b.generator or a.instance_of != b.instance_of:
        return UNKNOWN
    if a.kind is Kind.CONDITIONAL and (b.kind is not Kind.CONDITIONAL or a.condition != b.condition):
        return UNKNOWN
    if a.kind is b.kind and a.kind in (
        Kind.ACCEL,
        Kind.HOST,
        Kind.INPUT,
        Kind.LOADER,
        Kind.NEUTRAL,
        Kind.CONDITIONAL,
    ):
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
            condition=a.condition if a.condition == b.condition else None,
            generator=a.generator,
            optimizer=_join_optimizers(a.optimizer, b.optimizer),
            instance_of=a.instance_of,
        )
    return UNKNOWN


def _join_optimizers(a: OptimizerState | None, b: OptimizerState | None) -> OptimizerState | None:
    """State built on one path is a bug on that path (``if resume: opt.load_state_dict(...)``)."""
    if a == b:
        return a
    if a is None or b is None or a.owner != b.owner:
        return None
    return a if a.built_by is not None else b


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
    # What is attached (a module, or a tensor), and where (``model.head``, or ``model`` in ``setattr``).
    value: Value = field(default_factory=Value)
    target_node: cst.BaseExpression | None = None


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


@dataclass(frozen=True)
class OptimizerStateBeforeMove:
    """An optimizer's state was built (or loaded) on the host, then its module was moved."""

    optimizer: OptimizerState
    move_call: cst.Call
    move_line: cst.SimpleStatementLine | None
    # The two statements are next to each other in one block (so they can be swapped).
    adjacent: bool


@dataclass(frozen=True)
class UnmovedLossOrMetric:
    """A loss or metric holding tensors on the host is given tensors on the accelerator."""

    construction: cst.Call
    holder: Operand
    argument: Operand
    call: cst.Call


@dataclass(frozen=True)
class GeneratorMismatch:
    """A random generator on one device drives an operation on the other."""

    call: cst.Call
    generator: Operand
    # Where the operation draws: HOST or ACCEL (with the device expression when known).
    target: Value
    # What decided the target, for messages: "`device=device`", "it follows `probs`", "no `device=`".
    target_text: str


@dataclass(frozen=True)
class IndexMismatch:
    """An index (or mask) and the tensor it indexes are on different devices."""

    node: cst.CSTNode
    indexed: Operand
    index: Operand
    operation: str


@dataclass(frozen=True)
class DeviceChoiceMismatch:
    """A model and its input are placed on the accelerator under different conditions."""

    call: cst.Call
    model: Operand
    argument: Operand


@dataclass(frozen=True)
class HelperConstantsMeetAccel:
    """A helper object's host tensor constants meet a tensor on the accelerator in its method."""

    call: cst.Call
    helper: Operand
    argument: Operand
    class_name: str
    method: str
    constants: tuple[str, ...]


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
    OptimizerStateBeforeMove,
    UnmovedLossOrMetric,
    GeneratorMismatch,
    IndexMismatch,
    DeviceChoiceMismatch,
    HelperConstantsMeetAccel,
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


class _Env(dict):  # type: ignore[type-arg]
    """What is known of each path (``x``, ``self.head``), and which paths are attributes.

    Rebinding ``m`` forgets ``m.head`` and the like; keeping the attribute paths apart
    makes that independent of how many plain names a long module binds (scanning every
    key made a 100k-line script quadratic).
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.attributes: set[str] = {key for key in self if "." in key}

    def __setitem__(self, key: str, value: Value) -> None:
        if "." in key:
            self.attributes.add(key)
        super().__setitem__(key, value)

    def copy(self) -> _Env:
        return _Env(self)

    def forget_attributes(self, path: str) -> None:
        """Drop what is known of ``path.<anything>``."""
        if not self.attributes:
            return
        prefix = path + "."
        for key in [k for k in self.attributes if k.startswith(prefix)]:
            self.attributes.discard(key)
            self.pop(key, None)


@dataclass
class _State:
    env: _Env = field(default_factory=_Env)
    # Attachments to a moved module awaiting a later move (owner path -> events).
    pending: dict[str, tuple[AttachAfterMove, ...]] = field(default_factory=dict)
    # Names holding a batch transformed on the host in this loop body: name -> (statement, call).
    transformed: dict[str, tuple[cst.SimpleStatementLine, cst.Call, Value]] = field(default_factory=dict)
    terminated: bool = False
    # Names bound to a device condition (``use_cuda = not args.no_cuda and ...``) or to a device
    # chosen by one (``device = torch.device("cuda" if use_cuda else "cpu")``):
    # name -> (is a device, the condition under which it holds / is an accelerator).
    conditions: dict[str, tuple[bool, str]] = field(default_factory=dict)

    def copy(self) -> _State:
        return _State(
            self.env.copy(), dict(self.pending), dict(self.transformed), self.terminated, dict(self.conditions)
        )


def _join_states(states: Sequence[_State]) -> _State:
    live = [s for s in states if not s.terminated]
    if not live:
        merged = states[0].copy()
        merged.terminated = True
        return merged
    first = live[0]
    env = _Env()
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
    conditions = {k: v for k, v in first.conditions.items() if all(s.conditions.get(k) == v for s in live)}
    return _State(env, pending, transformed, conditions=conditions)


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
        elif isinstance(statement, (cst.If, cst.Try, cst.With, cst.For, cst.While, cst.Match)):
            for block in _compound_blocks(statement):
                yield from _functions(block, owner, path)


def _block(body: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(body, cst.IndentedBlock):
        return body.body
    return [cst.SimpleStatementLine(body=body.body)] if isinstance(body, cst.SimpleStatementSuite) else []


def _compound_blocks(statement: cst.BaseCompoundStatement) -> Iterator[Sequence[cst.BaseStatement]]:
    if isinstance(statement, cst.Match):
        for case in statement.cases:
            yield _block(case.body)
        return
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
            self._join_placements_under(statement, branches[0], branches[1], before)
        elif isinstance(statement, (cst.For, cst.While)):
            self._loop(statement)
        elif isinstance(statement, cst.With):
            self._with(statement)
        elif isinstance(statement, cst.Try):
            self._try(statement)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            self.state.env[statement.name.value] = UNKNOWN
        elif isinstance(statement, cst.Match):
            self._match(statement)
        # Other compound statements (none in Python 3.12) are skipped: their bindings are
        # unknown to us, so we forget what we knew of anything they may bind.
        else:
            self.state.env = _Env()

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
                    self._check_optimizers(path, moved, expression)
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
                self._subscript(target)  # ``host[device_index] = value`` fails like a read
            return
        # Rebinding a name forgets what we knew of its attributes.
        self.state.env.forget_attributes(path)
        self.state.env[path] = value
        self._bind_condition(path, value_node, value)
        if value.kind is Kind.ACCEL and isinstance(value_node, cst.Call):
            base = patterns.receiver(value_node)
            if base is not None and _path(base) == path:
                self._moved(path)  # ``m = m.to(device)``
                self._check_optimizers(path, value, value_node)

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

    def _match(self, statement: cst.Match) -> None:
        """Each case binds its captures (unknown values), then runs; no case may match at all."""
        self._eval(statement.subject)
        before = self.state
        branches = []
        exhaustive = False
        for case in statement.cases:
            self.state = before.copy()
            for path in _captures(case.pattern):
                self.state.env.forget_attributes(path)
                self.state.env[path] = UNKNOWN
            if case.guard is not None:
                self._eval(case.guard)
            self._block(_block(case.body))
            branches.append(self.state)
            pattern = case.pattern
            exhaustive = exhaustive or (
                case.guard is None and isinstance(pattern, cst.MatchAs) and pattern.pattern is None
            )
        if not exhaustive:
            branches.append(before.copy())
        self.state = _join_states(branches)

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
            when_true, when_false = self._eval(node.body), self._eval(node.orelse)
            conditional = self._conditional_placement(node, when_true, when_false, self.state.conditions)
            return conditional if conditional is not None else join(when_true, when_false)
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
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self._comprehension(node)
        if isinstance(node, cst.Lambda):
            return self._lambda(node)
        return UNKNOWN

    def _comprehension(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> Value:
        """A comprehension runs where it is written, with its targets bound in a scope of its own."""
        outer = self.state
        self.state = outer.copy()
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            self._eval(clause.iter)
            for path in _targets(clause.target):
                self.state.env.forget_attributes(path)
            self._bind_loop_target(clause.target, clause.iter)
            for condition in clause.ifs:
                self._eval(condition.test)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self._eval(node.key)
            self._eval(node.value)
        else:
            self._eval(node.elt)
        outer.pending = self.state.pending  # a module used in it is used here
        self.state = outer
        return UNKNOWN

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
                index = Operand(element.slice.value, self._eval(element.slice.value))
                # A device tensor takes host indices; a host tensor refuses device ones (unless the
                # index is 0-dim, which PyTorch reads with `.item()`).
                if (
                    base.kind is Kind.HOST
                    and _tensorish(base)
                    and index.value.kind is Kind.ACCEL
                    and _tensorish(index.value)
                    and not self._maybe_zero_dim(index.value)
                ):
                    self._emit(IndexMismatch(node, Operand(node.value, base), index, "indexing"), index.expr)
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
        if callee.instance_of is not None:
            self._check_helper(node, callee, "__call__", arguments)
            return UNKNOWN
        tensors = [a for a in arguments if _tensorish(a.value)]
        if callee.compares or _LOSS_NAME.search(name) or _METRIC_NAME.search(name):
            self._check_unmoved_state(node, callee, tensors)
            self._meet(node, tensors, f"`{self.ctx.code_for(node.func)}(...)`", arithmetic=True)
            return _common_device(tensors)
        if callee.module is True:
            self._check_device_choice(node, callee, arguments)
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
                condition=callee.condition,
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
        if receiver.instance_of is not None:
            self._check_helper(node, receiver, method, arguments)
            return UNKNOWN
        if receiver.generator:
            # ``torch.Generator(device=d).manual_seed(0)`` is the same generator.
            return receiver if method in ("manual_seed", "set_state") else NEUTRAL
        if receiver.optimizer is not None:
            if method == "load_state_dict":
                self._optimizer_state_loaded(node, base, receiver)
            return NEUTRAL
        if method == "update" and (receiver.compares or _METRIC_NAME.search(_last_name(base) or "")):
            tensors = [a for a in arguments if _tensorish(a.value)]
            self._check_unmoved_state(node, receiver, tensors)
            self._meet(node, tensors, f"`{self.ctx.code_for(node.func)}(...)`", arithmetic=True)
            return NEUTRAL
        if method in torch_api.RANDOM_METHODS and _tensorish(receiver):
            self._check_generator(node, arguments, receiver, f"it fills `{self.ctx.describe(base)}`")
        index_operand = None
        index_spec = torch_api.INDEX_METHODS.get(method)
        if index_spec is not None and _tensorish(receiver):
            index_operand = _argument(node, arguments, index_spec[0], index_spec[1])
            if index_operand is not None:
                self._check_index_operation(node, Operand(base, receiver), index_operand, f"`.{method}()`")
        if _tensorish(receiver):
            if method in torch_api.NON_TENSOR_METHODS:
                return NEUTRAL
            if method in torch_api.NEW_METHODS:
                return replace(receiver, origin=node, scalar=False, grad=False, batch=False)
            if method in torch_api.DEVICE_PRESERVING_METHODS:
                others = [a for a in arguments if _tensorish(a.value) and a is not index_operand]
                tensors = [Operand(base, receiver), *others]
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
                ) or (method in ("argmax", "argmin") and not node.args)
                return replace(
                    receiver,
                    scalar=receiver.scalar or reduces,
                    grad=receiver.grad and method not in ("detach",),
                    batch=False,
                )
        if (
            receiver.kind is Kind.CONDITIONAL
            and receiver.module is not True
            and method in torch_api.DEVICE_PRESERVING_METHODS
        ):
            return replace(receiver, origin=node)  # ``x.float()`` stays where ``x`` is
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
        if (
            callee.module is True
            or callee.compares
            or callee.instance_of is not None
            or _LOSS_NAME.search(method)
            or _METRIC_NAME.search(method)
        ):
            return self._call_value(node, callee, arguments, method)
        return UNKNOWN

    def _torch_call(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> Value | None:
        if patterns.keyword(node, "generator") is not None:
            target = self._random_target(node, qualified, arguments)
            if target is not None:
                self._check_generator(node, arguments, *target)
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
        if qualified in ("torch.autograd.Variable", "torch.autograd.variable.Variable"):
            return arguments[0].value if arguments else UNKNOWN  # a no-op wrapper since PyTorch 0.4
        if qualified in torch_api.GENERATOR_CLASSES:
            device = patterns.keyword(node, "device") or patterns.positional(node, 0)
            if device is None:
                return Value(Kind.HOST, module=False, origin=node, generator=True)
            placed = self._device_value(device.value, node, module=False)
            return replace(placed, generator=True) if placed is not None else UNKNOWN
        if torch_api.is_optimizer_class(qualified):
            return self._new_optimizer(node, qualified, arguments)
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
            weights = [w for w in (_argument(node, arguments, None, k) for k in ("weight", "pos_weight")) if w]
            if is_loss and weights:
                return self._weighted_loss(node, weights)
            stateful = (qualified in torch_api.STATEFUL_NN_MODULES) or not is_loss
            return self._new_module(node, stateful=stateful, compares=is_loss)
        if _MODULE_FACTORIES.match(qualified):
            return self._new_module(node, stateful=True)
        if qualified.startswith("torchmetrics.") and qualified.rsplit(".", 1)[-1][:1].isupper():
            # Metrics with tensor state (summed in place by `update`) must be moved like modules.
            tensor_state = torch_api.is_tensor_state_metric(qualified) and not any(
                patterns.keyword(node, k) is not None for k in torch_api.LIST_STATE_METRIC_KEYWORDS
            )
            return Value(Kind.HOST, module=True, stateful=tensor_state, compares=True, origin=node)
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
            index_spec = torch_api.INDEX_FUNCTIONS.get(qualified)
            if index_spec is not None:
                indexed = _argument(node, arguments, index_spec[0], "input")
                index = _argument(node, arguments, index_spec[1], index_spec[2])
                if indexed is not None and index is not None:
                    self._check_index_operation(node, indexed, index, f"`{self.ctx.code_for(node.func)}`")
                    tensors = [t for t in tensors if t is not index]
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

    # -- optimizers (DEV301) ---------------------------------------------------------------
    def _new_optimizer(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> Value:
        params = _argument(node, arguments, 0, "params")
        owner = self._parameters_owner(params.expr) if params is not None else None
        if owner is None:
            return UNKNOWN
        built_by = node if qualified in torch_api.EAGER_STATE_OPTIMIZERS and self._owner_on_host(owner) else None
        # Kind HOST with an `optimizer`: never a tensor (see `_tensorish`), never a module.
        return Value(Kind.HOST, module=None, origin=node, optimizer=OptimizerState(owner, built_by, self.statement))

    def _parameters_owner(self, node: cst.BaseExpression) -> str | None:
        """``model`` for ``model.parameters()``, ``filter(f, model.parameters())`` and param groups."""
        if isinstance(node, cst.Call):
            if patterns.method_name(node) in ("parameters", "named_parameters"):
                base = patterns.receiver(node)
                return _path(base) if base is not None and not node.args else None
            if dotted_name(node.func) in ("filter", "list", "tuple") and node.args and not node.args[-1].star:
                return self._parameters_owner(node.args[-1].value)
            return None
        if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements:
            return None
        owners: list[str | None] = []
        for element in node.elements:
            value = element.value
            if isinstance(value, cst.Dict):
                found = [
                    self._parameters_owner(e.value)
                    for e in value.elements
                    if isinstance(e, cst.DictElement) and patterns.string_value(e.key) == "params"
                ]
                owners.append(found[0] if len(found) == 1 else None)
            else:
                owners.append(self._parameters_owner(value))
        if any(o is None for o in owners):
            return None
        parts = [o.split(".") for o in owners if o is not None]
        common: list[str] = []
        for segments in zip(*parts):
            if len(set(segments)) != 1:
                break
            common.append(segments[0])
        return ".".join(common) or None

    def _tracked_prefix(self, path: str) -> str | None:
        """The longest prefix of ``path`` the state knows (``model`` for ``model.backbone``)."""
        parts = path.split(".")
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            if prefix in self.state.env:
                return prefix
        return None

    def _owner_on_host(self, owner: str) -> bool:
        prefix = self._tracked_prefix(owner)
        value = self.state.env.get(prefix) if prefix is not None else None
        return value is not None and value.kind is Kind.HOST and value.module is True

    def _optimizer_state_loaded(self, node: cst.Call, base: cst.BaseExpression, receiver: Value) -> None:
        """``load_state_dict`` puts the state on the device the parameters are on right now."""
        path = _path(base)
        optimizer = receiver.optimizer
        if path is None or optimizer is None:
            return
        if self._owner_on_host(optimizer.owner):
            loaded = replace(optimizer, built_by=node, line=self.statement)
        else:
            loaded = replace(optimizer, built_by=None, line=None)
        self.state.env[path] = replace(receiver, optimizer=loaded)

    def _check_optimizers(self, path: str, moved: Value, move_call: cst.Call) -> None:
        """A module moved to the accelerator leaves behind the host state its optimizers already built."""
        if moved.kind is not Kind.ACCEL:
            return
        for value in list(self.state.env.values()):
            optimizer = value.optimizer
            if optimizer is None or optimizer.built_by is None or not _related_paths(optimizer.owner, path):
                continue
            adjacent = (
                optimizer.line is not None
                and self.statement is not None
                and self._adjacent(optimizer.line, self.statement)
            )
            self._emit(OptimizerStateBeforeMove(optimizer, move_call, self.statement, adjacent), optimizer.built_by)

    # -- losses and metrics holding host state (DEV302) -------------------------------------
    def _weighted_loss(self, node: cst.Call, weights: list[Operand]) -> Value:
        """A loss with class weights keeps them (as a buffer) wherever the weights are."""
        values = [
            # A class-weight vector is never 0-dim (only `pos_weight` may be a single number).
            replace(w.value, scalar=False) if _keyword_of(node, w) == "weight" else w.value
            for w in weights
            if w.value.kind is not Kind.NEUTRAL
        ]
        if not values:
            return Value(Kind.HOST, module=True, stateful=False, compares=True, origin=node)
        accel = next((v for v in values if v.kind is Kind.ACCEL and _tensorish(v)), None)
        if accel is not None:
            return Value(
                Kind.ACCEL,
                device=accel.device,
                move=accel.move,
                origin=node,
                module=True,
                compares=True,
                condition=accel.condition,
            )
        if all(v.kind is Kind.HOST and _tensorish(v) for v in values):
            holds_tensors = any(not v.scalar for v in values)
            return Value(Kind.HOST, module=True, stateful=holds_tensors, compares=True, origin=node)
        return Value(Kind.UNKNOWN, module=True, compares=True)

    def _check_unmoved_state(self, node: cst.Call, holder: Value, tensors: list[Operand]) -> None:
        if not (
            holder.kind is Kind.HOST
            and holder.module is True
            and holder.stateful
            and holder.compares
            and isinstance(holder.origin, cst.Call)
        ):
            return
        argument = next((t for t in tensors if t.value.kind is Kind.ACCEL and not t.value.scalar), None)
        if argument is not None:
            holder_expr = patterns.receiver(node) if patterns.method_name(node) == "update" else node.func
            assert holder_expr is not None
            self._emit(UnmovedLossOrMetric(holder.origin, Operand(holder_expr, holder), argument, node), holder.origin)

    # -- random generators (DEV303) -----------------------------------------------------------
    def _random_target(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> tuple[Value, str] | None:
        """Where a random call given ``generator=`` draws, and what decided it; None when unknown."""
        if qualified in torch_api.HOST_GENERATOR_CONSUMERS:
            if not self.analysis.default_device_is_cpu:
                return None
            return Value(Kind.HOST, module=False), "its indices are drawn there"
        factory = qualified in torch_api.TENSOR_FACTORIES
        following = qualified in torch_api.RANDOM_FOLLOWING_INPUT or qualified in torch_api.LIKE_FACTORIES
        if not (factory or following):
            return None
        device = patterns.keyword(node, "device")
        if device is not None:
            placed = self._device_value(device.value, node, module=False)
            return (placed, f"`device={self.ctx.describe(device.value)}`") if placed is not None else None
        if following:
            first = _argument(node, arguments, 0, "input", "tensor", "mean")
            if first is not None and _tensorish(first.value):
                return first.value, f"it follows `{self.ctx.describe(first.expr)}`"
        if factory and self.analysis.default_device_is_cpu:
            return Value(Kind.HOST, module=False), "no `device=`"
        return None

    def _check_generator(self, node: cst.Call, arguments: list[Operand], target: Value, target_text: str) -> None:
        generator = _argument(node, arguments, None, "generator")
        if generator is None or not generator.value.generator:
            return
        if {generator.value.kind, target.kind} == {Kind.HOST, Kind.ACCEL}:
            self._emit(GeneratorMismatch(node, generator, target, target_text), generator.expr)

    # -- indices and masks (DEV305) ------------------------------------------------------------
    def _check_index_operation(self, node: cst.Call, indexed: Operand, index: Operand, operation: str) -> None:
        """``gather``/``index_select``-style index arguments must be on the indexed tensor's device."""
        a, b = indexed.value, index.value
        if not (_tensorish(a) and _tensorish(b)) or {a.kind, b.kind} != {Kind.HOST, Kind.ACCEL}:
            return
        if b.kind is Kind.HOST and self._maybe_zero_dim(b):
            return
        self._emit(IndexMismatch(node, indexed, index, operation), index.expr)

    def _maybe_zero_dim(self, value: Value) -> bool:
        if value.scalar:
            return True
        origin = value.origin
        if isinstance(origin, cst.Call) and patterns.method_name(origin) in ("to", "cuda", "cpu"):
            origin = patterns.receiver(origin)
        if isinstance(origin, cst.Call):
            qualified = self.symbols.qualify(origin.func)
            return qualified in torch_api.TENSOR_FACTORIES and patterns.maybe_zero_dim_factory(origin, qualified)
        return False

    # -- device choices (DEV306) -----------------------------------------------------------------
    def _check_device_choice(self, node: cst.Call, callee: Value, arguments: list[Operand]) -> None:
        model_condition = _placement_condition(callee, module=True)
        if model_condition is None:
            return
        for argument in arguments:
            condition = _placement_condition(argument.value, module=False)
            if condition is None or condition == model_condition:
                continue
            if {condition, model_condition} <= {ALWAYS, NEVER}:
                continue  # no device choice involved: the other DEV2xx rules cover these
            if model_condition == NEVER and argument.value.kind is Kind.ACCEL:
                continue  # a model never moved meets a moved input: DEV201 reports it
            self._emit(DeviceChoiceMismatch(node, Operand(node.func, callee), argument), argument.expr)
            return

    def _bind_condition(self, path: str, value_node: cst.BaseExpression, value: Value) -> None:
        """Remember names bound to device conditions (``use_cuda = ...``) and device choices."""
        conditions = self.state.conditions
        # Cheap shape checks first: this runs for every assignment.
        if isinstance(value_node, (cst.Integer, cst.Float)) or (
            isinstance(value_node, cst.Call) and _last_name(value_node.func) not in ("device", "is_available")
        ):
            conditions.pop(path, None)
            return
        choice = self._device_choice(value_node)
        if choice is not None:
            conditions[path] = (True, choice)
            return
        if value.kind in (Kind.UNKNOWN, Kind.NEUTRAL) and value.module is not True and _condition_shaped(value_node):
            text = self._canonical(value_node, conditions)
            if _DEVICE_CONDITION.search(text):
                conditions[path] = (False, text)
                return
        conditions.pop(path, None)

    def _canonical(self, node: cst.BaseExpression, conditions: dict[str, tuple[bool, str]]) -> str:
        """A condition as comparable text, with names bound to conditions replaced by them."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return _negate(self._canonical(node.expression, conditions))
        if isinstance(node, cst.BooleanOperation):
            operator = "and" if isinstance(node.operator, cst.And) else "or"
            left = self._canonical(node.left, conditions)
            right = self._canonical(node.right, conditions)
            return f"({left}) {operator} ({right})"
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            compared = self._device_comparison(node, conditions)
            if compared is not None:
                return compared
        path = _path(node)
        if path is not None:
            entry = conditions.get(path)
            return entry[1] if entry is not None and not entry[0] else path
        return " ".join(self.ctx.code_for(node).split())

    def _device_comparison(self, node: cst.Comparison, conditions: dict[str, tuple[bool, str]]) -> str | None:
        """``device.type == "cuda"``, ``str(device) != "cpu"``: the condition of ``device``'s choice."""
        target = node.comparisons[0]
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return None
        sides = (node.left, target.comparator)
        literal = next((patterns.string_value(s) for s in sides if patterns.string_value(s) is not None), None)
        other = next((s for s in sides if patterns.string_value(s) is None), None)
        if literal is None or other is None:
            return None
        if isinstance(other, cst.Attribute) and other.attr.value == "type":
            other = other.value
        elif isinstance(other, cst.Call) and dotted_name(other.func) == "str" and len(other.args) == 1:
            other = other.args[0].value
        path = _path(other)
        entry = conditions.get(path or "")
        if entry is None or not entry[0]:
            return None
        kind = literal.split(":")[0]
        if kind not in ("cpu", *_ACCELERATOR_WORDS):
            return None
        accelerator_when_equal = kind != "cpu"
        equal = isinstance(target.operator, cst.Equal)
        return entry[1] if accelerator_when_equal == equal else _negate(entry[1])

    def _condition_text(
        self,
        test: cst.BaseExpression,
        after_if: cst.BaseParenthesizableWhitespace,
        conditions: dict[str, tuple[bool, str]],
    ) -> str | None:
        """The canonical text of a test that chooses a device, or None.

        The test must name a device on the line of its ``if`` (``if args.cuda:``, ``"cuda" if
        use_gpu else "cpu"``): that is what the DEV306 marker looks for, so the marker stays a
        necessary condition.  Names are then resolved (``use_cuda`` -> ``not args.no_cuda and ...``).
        """
        if isinstance(after_if, cst.ParenthesizedWhitespace):
            return None  # `if` and its test on different lines
        first_line = self.ctx.module.code_for_node(test).split("\n", 1)[0]
        if not _DEVICE_CONDITION.search(first_line):
            return None
        return self._canonical(test, conditions)

    def _device_choice(self, node: cst.BaseExpression) -> str | None:
        """The condition under which a device expression is an accelerator (ALWAYS for a literal one)."""
        literal = patterns.string_value(node)
        if literal is not None:
            return ALWAYS if literal.split(":")[0] in _ACCELERATOR_WORDS else None
        if isinstance(node, cst.Integer):
            return ALWAYS
        if isinstance(node, cst.Call) and self.symbols.qualify(node.func) == "torch.device":
            first = patterns.positional(node, 0)
            return self._device_choice(first.value) if first is not None else None
        if isinstance(node, cst.IfExp):
            test = self._condition_text(node.test, node.whitespace_after_if, self.state.conditions)
            if test is None:
                return None
            if self._is_accelerator_expression(node.body) and self._is_cpu_expression(node.orelse):
                return test
            if self._is_cpu_expression(node.body) and self._is_accelerator_expression(node.orelse):
                return _negate(test)
            return None
        entry = self.state.conditions.get(_path(node) or "")
        return entry[1] if entry is not None and entry[0] else None

    def _is_accelerator_expression(self, node: cst.BaseExpression) -> bool:
        if self._device_choice(node) == ALWAYS:
            return True
        # `device if args.cuda else "cpu"`: a device variable from elsewhere is the accelerator.
        name = dotted_name(node)
        bound = self.state.env.get(name or "")
        return (
            name is not None
            and bool(_DEVICE_NAME.search(name))
            and (name not in self.state.conditions)
            and (bound is None or bound.constant is None)
        )

    def _is_cpu_expression(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call) and self.symbols.qualify(node.func) == "torch.device":
            first = patterns.positional(node, 0)
            node = first.value if first is not None else node
        literal = patterns.string_value(node)
        return literal is not None and literal.split(":")[0] == "cpu"

    def _conditional_placement(
        self,
        node: cst.If | cst.IfExp,
        when_true: Value,
        when_false: Value,
        conditions: dict[str, tuple[bool, str]],
    ) -> Value | None:
        """``x.cuda() if use_cuda else x``: on the accelerator exactly when the test holds."""
        candidates = ((when_true, when_false, False), (when_false, when_true, True))
        for accel, host, negated in candidates:
            if not _movable_pair(accel, host):
                continue
            after_if = node.whitespace_before_test if isinstance(node, cst.If) else node.whitespace_after_if
            condition = self._condition_text(node.test, after_if, conditions)
            if condition is None:
                return None
            return Value(
                Kind.CONDITIONAL,
                condition=_negate(condition) if negated else condition,
                module=accel.module,
                device=accel.device,
                move=accel.move,
                origin=accel.origin,
                stateful=accel.stateful,
            )
        return None

    def _join_placements_under(self, statement: cst.If, body: _State, orelse: _State, before: _State) -> None:
        """After ``if use_cuda: x = x.cuda()``, ``x`` is on the accelerator exactly when ``use_cuda``."""
        if body.terminated or orelse.terminated:
            return
        for key, joined in list(self.state.env.items()):
            if joined.kind is not Kind.UNKNOWN:
                continue
            when_true, when_false = body.env.get(key), orelse.env.get(key)
            if when_true is None or when_false is None:
                continue
            placed = self._conditional_placement(statement, when_true, when_false, before.conditions)
            if placed is not None:
                self.state.env[key] = placed

    # -- helper objects with host constants (DEV307) ----------------------------------------------
    def _helper_instance(self, node: cst.BaseExpression) -> Value | None:
        """``norm = Normalize(...)``: an instance of a helper class keeping host constants.

        Only a constructor assigned as it is (the DEV307 marker, ``= Normalize(``, must hold)."""
        if not isinstance(node, cst.Call) or node.lpar or not isinstance(node.func, cst.Name):
            return None
        name = node.func.value
        if not name[:1].isupper() or self.analysis.helpers.get(name) is None:
            return None
        for argument in node.args:
            self._eval(argument.value)
        return Value(Kind.UNKNOWN, instance_of=name, origin=node)

    def _check_helper(self, node: cst.Call, holder: Value, method: str, arguments: list[Operand]) -> None:
        helper = self.analysis.helpers.get(holder.instance_of or "")
        info = helper.methods.get(method) if helper is not None else None
        if helper is None or info is None or any(a.star for a in node.args):
            return
        positional = [o for o, a in zip(arguments, node.args) if a.keyword is None]
        keywords = {a.keyword.value: o for o, a in zip(arguments, node.args) if a.keyword is not None}
        for index, parameter in enumerate(info.parameters):
            operand = positional[index] if index < len(positional) else keywords.get(parameter)
            if operand is None or parameter not in info.meetings:
                continue
            value = operand.value
            if value.kind is Kind.ACCEL and _tensorish(value) and not self._maybe_zero_dim(value):
                constants = info.meetings[parameter]
                holder_expr = patterns.receiver(node) if method != "__call__" else node.func
                assert holder_expr is not None
                event = HelperConstantsMeetAccel(
                    node, Operand(holder_expr, holder), operand, helper.name, method, constants
                )
                self._emit(event, operand.expr)
                return

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
            # Moving keeps the shape: a 0-dim tensor stays one.
            scalar=receiver.scalar and module is not True,
        )
        if method == "cpu":
            return Value(Kind.HOST, origin=node, **base)  # type: ignore[arg-type]
        if method == "cuda":
            move = self._move_suffix(node)
            accel = Value(Kind.ACCEL, device="cuda", move=move, origin=node, **base)  # type: ignore[arg-type]
            return replace(accel, condition=ALWAYS)
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
            scalar=receiver.scalar and module is not True,
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
        """Where ``device=<node>`` puts a value; None when it cannot be told.

        On the accelerator, the value also records the condition the device was chosen by
        (``torch.device("cuda" if use_cuda else "cpu")``), when it is known.
        """
        placed = self._device_value_as_written(node, origin, module=module)
        choice = self._device_choice(node)
        if choice is None:
            return placed
        if placed is None:
            suffix = (
                self._move_suffix(origin)
                if patterns.method_name(origin) in ("to", "cuda")
                else f".to({self.ctx.code_for(node)})"
            )
            return Value(
                Kind.ACCEL, device=self.ctx.code_for(node), move=suffix, origin=origin, module=module, condition=choice
            )
        return replace(placed, condition=choice) if placed.kind is Kind.ACCEL else placed

    def _device_value_as_written(
        self, node: cst.BaseExpression, origin: cst.Call, *, module: bool | None
    ) -> Value | None:
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
        event = AttachAfterMove(root, owner_value, value_node, target, value, owner_expr)
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


def _captures(pattern: cst.CSTNode) -> Iterator[str]:
    """The names a ``match`` pattern binds."""
    from flake8_device.walk import children

    stack = [pattern]
    while stack:
        node = stack.pop()
        name = None
        if isinstance(node, (cst.MatchAs, cst.MatchStar)):
            name = node.name
        elif isinstance(node, cst.MatchMapping):
            name = node.rest
        if isinstance(name, cst.Name):
            yield name.value
        stack.extend(children(node))


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
    return (
        value.module is not True
        and not value.batch
        and value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT)
        and not value.generator
        and value.optimizer is None
    )


def _argument(node: cst.Call, arguments: Sequence[Operand], position: int | None, *keywords: str) -> Operand | None:
    """The operand passed at ``position`` (before any ``*args``) or as one of ``keywords``."""
    if position is not None:
        index = 0
        for operand, arg in zip(arguments, node.args):
            if arg.star:
                break
            if arg.keyword is None:
                if index == position:
                    return operand
                index += 1
    for operand, arg in zip(arguments, node.args):
        if arg.keyword is not None and arg.keyword.value in keywords:
            return operand
    return None


def _keyword_of(node: cst.Call, operand: Operand) -> str | None:
    return next((a.keyword.value for a in node.args if a.value is operand.expr and a.keyword is not None), None)


def _related_paths(a: str, b: str) -> bool:
    """One path is the other or inside it (``model`` and ``model.backbone``)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


# A condition that chooses a device names one (``args.cuda``, ``use_gpu``, ``device.type == "cpu"``);
# other conditions are not device choices.  ("device" alone is not enough: it is in every `.to(device)`,
# and the DEV306 marker built from these words would select nearly every unit.)
# Spelled out in three cases rather than with `re.I`, which makes `re` several times slower.
DEVICE_CONDITION_WORDS = "|".join(
    spelling
    for word in ("cuda", "gpu", "cpu", "mps", "xpu", "npu", "accel")
    for spelling in (word, word.upper(), word.capitalize())
)
_DEVICE_CONDITION = re.compile(DEVICE_CONDITION_WORDS)


def _condition_shaped(node: cst.BaseExpression) -> bool:
    """A flag: ``a and b``, ``not a``, ``args.cuda``, ``torch.cuda.is_available()``, ``x == "cuda"``."""
    if isinstance(node, (cst.BooleanOperation, cst.Name, cst.Attribute)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    if isinstance(node, cst.Comparison):
        # Comparing with a string (`args.device == "cuda"`); tensor comparisons are not flags.
        return any(patterns.is_string(c.comparator) for c in node.comparisons) or patterns.is_string(node.left)
    return isinstance(node, cst.Call) and (dotted_name(node.func) or "").endswith("is_available")


def _negate(condition: str) -> str:
    match = re.fullmatch(r"not \((.*)\)", condition)
    if match is not None and _balanced(match.group(1)):
        return match.group(1)
    return f"not ({condition})"


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _movable_pair(accel: Value, host: Value) -> bool:
    """The same thing moved in one arm and left on the host in the other."""
    return (
        accel.kind is Kind.ACCEL
        and accel.condition in (ALWAYS, None)
        and host.kind is Kind.HOST
        and not host.batch
        and accel.module == host.module
        and not (accel.generator or host.generator)
        and accel.optimizer is None
        and host.optimizer is None
    )


def _placement_condition(value: Value, *, module: bool) -> str | None:
    """When a model (or an input) is on the accelerator: a condition, ALWAYS, NEVER, or None if unknown."""
    if module:
        if value.module is not True:
            return None
        if value.kind in (Kind.ACCEL, Kind.CONDITIONAL):
            return value.condition
        if value.kind is Kind.HOST and value.stateful and isinstance(value.origin, cst.Call):
            return NEVER
        return None
    if value.module is True or value.batch or value.generator or value.optimizer is not None:
        return None
    if value.kind in (Kind.ACCEL, Kind.CONDITIONAL):
        return value.condition
    return None


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
