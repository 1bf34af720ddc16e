"""The abstract values of the device flow: where a value lives, and what kind of thing it is."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from flake8_device.analysis.flow.events import Operand


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


def tensorish(value: Value) -> bool:
    """Could be a tensor: not a module, not a whole batch, and placed somewhere we know."""
    return (
        value.module is not True
        and not value.batch
        and value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT)
        and not value.generator
        and value.optimizer is None
    )


def movable_pair(accel: Value, host: Value) -> bool:
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


def placement_condition(value: Value, *, module: bool) -> str | None:
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


def item_of(value: Value) -> Value:
    """``value[k]``: an item of a batch (moved or not) is a tensor; a tensor's slice may be 0-dim."""
    if value.kind in (Kind.HOST, Kind.ACCEL) and (value.batch or value.module is None):
        return Value(value.kind, device=value.device, move=value.move, module=False, origin=value.origin)
    if tensorish(value):
        return replace(value, scalar=True)
    return UNKNOWN


def element_of(value: Value) -> Value:
    """What unpacking a value gives: a batch's items are tensors; a tensor's rows too."""
    if value.kind is Kind.HOST and value.batch:
        return Value(Kind.HOST, module=False, origin=value.origin)
    if value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and value.module is False:
        return value
    return UNKNOWN


def common_device(operands: Sequence[Operand]) -> Value:
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
