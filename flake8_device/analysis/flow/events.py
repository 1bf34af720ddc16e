"""What the interpreter reports: events that rules turn into findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, Union

import libcst as cst

from flake8_device.analysis.flow.values import OptimizerState, Value


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
    """A tensor made on the host meets the function's inputs (or the module's parameters).
    ``building``: in a method only a module's ``__init__`` runs, before anything can move it."""

    host: Operand
    partner: Operand
    operation: str
    function: cst.FunctionDef | None
    building: bool = False


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
    # The owner is on the device along every path (not only where one branch moved it).
    definite: bool = True
    # Made by a method of the owner's class called after the move (``model.reset_classifier(n)``
    # assigning ``self.head``): that method, and the attribute it assigns.
    made_in: str | None = None
    attribute: str | None = None


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
class ParamGroupTensorsLoadedOnHost:
    """``optimizer.load_state_dict(<state mapped to the CPU>)`` into an optimizer class that keeps
    tensors in its param groups, which ``load_state_dict`` does not move to the parameters."""

    call: cst.Call
    optimizer: Operand
    class_name: str
    keys: tuple[str, ...]


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
    # The target is the default device a setting of the file's chose (``torch.set_default_device``):
    # the generator itself is what to change.
    by_default: bool = False


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


@dataclass(frozen=True)
class DeviceIgnored:
    """A function of the file given ``device=`` returns a host tensor it was given as it was."""

    call: cst.Call
    argument: Operand
    device: cst.BaseExpression
    function: str


@dataclass(frozen=True)
class PlainAttributeMeets:
    """A tensor a module keeps in a plain attribute (``Value.held``), read where an earlier call
    left it, meets the module's inputs, its parameters or a device tensor, or is returned by its
    ``forward`` (``partner`` None): after ``module.to(device)`` it is not where they are."""

    owner: str
    attribute: str
    held: Operand
    partner: Operand | None
    operation: str


@dataclass(frozen=True)
class AttributeStore:
    """``self.<attr> = value`` in a method of a class of the file (recorded for DEV102's report)."""

    target: cst.BaseExpression
    value: Value
    method: cst.FunctionDef


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
    ParamGroupTensorsLoadedOnHost,
    UnmovedLossOrMetric,
    GeneratorMismatch,
    IndexMismatch,
    DeviceChoiceMismatch,
    HelperConstantsMeetAccel,
    DeviceIgnored,
    PlainAttributeMeets,
]
E = TypeVar("E")
