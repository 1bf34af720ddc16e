"""What a function in the file does to devices, applied at each of its calls.

A summary comes from interpreting the function once with its parameters standing for whatever
the caller passes (values whose ``source`` names the parameter).  It records what the function
returns (a new host tensor, a model it moved, one of its arguments as it came), which arguments
it moves in place (``def set_device(model, dev): model.to(dev)``) and, for a method, what it
leaves in ``self``'s attributes.  At a call, :func:`substitute` puts the caller's values where
the summary names a parameter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import libcst as cst

from flake8_device.analysis.flow.knowledge import names_cpu
from flake8_device.analysis.flow.values import ALWAYS, UNKNOWN, Kind, Value, alternatives, bounded, tensorish, union

# Calls followed through summaries, one inside the other.
MAX_SUMMARY_DEPTH = 3
# In ``Summary.meets``: ``(parameter, STATE)`` says the parameter's tensors meet the module's own
# parameters and buffers (a method of a module class feeding it to one of its layers); a
# parameter named ``*`` is any of them (computed from several).
STATE = "<state>"


@dataclass(frozen=True)
class Summary:
    # What the function returns along every path (UNKNOWN when it returns nothing we can follow).
    returns: Value = UNKNOWN
    # Parameters whose value the function changed in place (moved), by name: their value at exit.
    moves: dict[str, Value] = field(default_factory=dict)
    # Parameters (dicts) the function stores entries into by string key (``batch["ids"] = ...``,
    # ``batch.update({"ids": ...})``): a dict of what it stored there, by parameter name.
    entries: dict[str, Value] = field(default_factory=dict)
    # For a method: the attributes of ``self`` it sets, by attribute name, with their value at exit.
    attributes: dict[str, Value] = field(default_factory=dict)
    # For a method that moves its own instance (``self.to(device)`` in ``__init__``): where to.
    placed: Value | None = None
    # Parameters the function moves to a device itself (``x = x.to(self.device)``): a caller may
    # pass them from anywhere.
    moves_itself: frozenset[str] = frozenset()
    # Pairs of parameters whose tensors meet in the function (``query * rope``): a call where one
    # is on the CPU and the other on the device fails, and is where the finding belongs.
    meets: frozenset[tuple[str, str]] = frozenset()
    # After moving a parameter, the function reloads an optimizer's state (``opt.load_state_dict(
    # opt.state_dict())``), which puts it where the parameters now are.
    reloads_optimizers: bool = False
    # The function moves to a device what it cannot follow (``getattr(obj, key).to(device)`` over an
    # object's attributes): where the objects it was given hold their parts is not known after it.
    moves_unseen: bool = False
    # Parameters returned as they came along some path whose tests name no device
    # (``if isinstance(x, torch.Tensor): return x``): a ``device=`` the caller gives is ignored there.
    passes_through: frozenset[str] = frozenset()


EMPTY = Summary()


def inert_arguments(summary: Summary, binding: Mapping[str, cst.Arg]) -> frozenset[int] | None:
    """Of a call of a module's ``forward`` summarised as ``summary``: the arguments (by the identity
    of their expressions) whose parameters meet nothing there, neither the module's state nor
    another parameter (``if count.max() == 0``); None where one may meet all of them (``*``)."""
    met = {name for pair in summary.meets for name in pair if name != STATE}
    if "*" in met:
        return None
    return frozenset(id(arg.value) for name, arg in binding.items() if name not in met)


def without_parameters(value: Value) -> Value:
    """``value`` where what stands for a parameter is unknown (a summary read without its call)."""
    if value.kind is Kind.MAYBE:
        return replace(value, alternatives=tuple(without_parameters(a) for a in value.alternatives))
    if value.kind is Kind.CONTAINER:
        return replace(value, elements=tuple(without_parameters(e) for e in value.elements))
    if value.attributes:
        value = replace(value, attributes=tuple((a, without_parameters(v)) for a, v in value.attributes))
    if value.device_of is not None:
        value = replace(value, device_of=without_parameters(value.device_of))
    return UNKNOWN if value.source is not None else value


def substitute(value: Value, arguments: dict[str, Value], texts: dict[str, str], here: Value | None = None) -> Value:
    """``value`` from a summary with the caller's arguments put in, within the domain's bounds
    (an argument put inside a container of the summary nests deeper than either)."""
    return bounded(_substitute(value, arguments, texts, here))


def _substitute(value: Value, arguments: dict[str, Value], texts: dict[str, str], here: Value | None = None) -> Value:
    """``value`` from a summary, with the caller's ``arguments`` where it names a parameter.

    ``texts`` holds the caller's code for each argument, so that a device written as a parameter
    (``x.to(device)`` inside the function) reads as the caller wrote it.  ``here``: for a module's
    method, where that module is (its own state, and what it computes from it, is there)."""
    if value.kind is Kind.MAYBE:
        # (A union, never a MAYBE of MAYBEs: an alternative may become an argument's alternatives.)
        return union([_substitute(a, arguments, texts, here) for a in value.alternatives])
    if value.kind is Kind.CONTAINER:
        return replace(value, elements=tuple(_substitute(e, arguments, texts, here) for e in value.elements))
    if value.attributes:
        # An instance made inside the function keeps what it was given.
        value = replace(value, attributes=tuple((a, _substitute(v, arguments, texts)) for a, v in value.attributes))
    if value.device_of is not None:
        # ``return next(model.parameters()).device``: the device of the caller's model.
        value = replace(value, device_of=_substitute(value.device_of, arguments, texts, here))
    if value.source not in (None, "*") and value.distribution:
        # A distribution built from a parameter: where the caller's argument is (a number: the host).
        given = arguments.get(value.source or "", UNKNOWN)
        if given.kind is Kind.NEUTRAL:
            return replace(value, kind=Kind.HOST, source=None)
        if given.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and given.module is not True:
            return replace(given, distribution=True, origin=value.origin, module=None, scalar=False)
        return UNKNOWN
    if value.source == "*":
        value = replace(value, source=None)  # from several parameters: where they are (``here``)
    elif value.source is not None:
        argument = arguments.get(value.source)
        if argument is None:
            return UNKNOWN
        if value.converted:
            return union([_converted(value, a) for a in alternatives(argument)])
        if value.kind is Kind.INPUT:
            # What the function does to a parameter keeps it where it was (``x.float()``).
            return (
                argument
                if value.module is None or argument.module == value.module
                else replace(argument, module=value.module)
            )
        return replace(value, source=None)
    if value.kind is Kind.INPUT:
        if here is not None and here.kind is not Kind.UNKNOWN:
            return replace(here, module=value.module, origin=value.origin, class_name=None, attributes=())
        return UNKNOWN  # where several of the function's inputs are: not followed to the caller
    if value.kind is Kind.ACCEL:
        # A device written as a parameter name reads as the caller's argument; the condition that
        # chose it, and the move to copy elsewhere, belong to the function's own code.
        device = texts.get(value.device or "", value.device)
        local = value.device is not None and value.device != device
        placed = replace(
            value,
            device=device,
            move=None if local or value.condition not in (ALWAYS,) else value.move,
            condition=value.condition if value.condition == ALWAYS else None,
        )
        given = arguments.get(value.device or "")
        if given is not None and given.kind is Kind.NEUTRAL and given.device_of is not None:
            # ``device = x.device`` at the call: made where the caller's ``x`` is, path by path.
            return union([_placed_like(placed, a) for a in alternatives(given.device_of)])
        if given is not None and any(a.constant is not None for a in alternatives(given)):
            # The caller's device, choice by choice: ``"cpu"`` from one call is the host there.
            return union([_on_given_device(placed, a) for a in alternatives(given)])
        return placed
    if value.kind is Kind.CONDITIONAL:
        return UNKNOWN  # chosen by a condition of the function's own
    return value


def _on_given_device(placed: Value, given: Value) -> Value:
    """A tensor made on a device parameter, for one alternative of what the caller gives there."""
    if given.kind is not Kind.NEUTRAL or given.constant is None:
        return UNKNOWN  # (beside the choices seen, one not known is not guessed)
    if names_cpu(given.constant):
        return _on_host(placed, given.placed_by)
    return replace(placed, placed_by=tuple(sorted({*placed.placed_by, *given.placed_by})))


def _on_host(placed: Value, placed_by: tuple[tuple[str, str], ...]) -> Value:
    """A tensor made on a device parameter, along the paths (``placed_by``) where that is the CPU."""
    return Value(Kind.HOST, module=placed.module, origin=placed.origin, grad=placed.grad, placed_by=placed_by)


def _placed_like(placed: Value, where: Value) -> Value:
    """A tensor made on a device parameter, for one place of the tensor whose device the caller gives."""
    if where.kind is Kind.HOST:
        return _on_host(placed, where.placed_by)
    if where.kind in (Kind.ACCEL, Kind.INPUT):
        return replace(where, module=placed.module, origin=placed.origin, grad=placed.grad, scalar=False, batch=False)
    return UNKNOWN


def _converted(value: Value, argument: Value) -> Value:
    """``torch.tensor(p)`` in a summary, for one place of the caller's argument: a tensor stays where
    it is, a list or a number is made on the host (a list is never 0-dim), anything else is unknown."""
    if tensorish(argument):
        return replace(argument, module=False, origin=value.origin)
    if argument.kind in (Kind.CONTAINER, Kind.NEUTRAL):
        listed = argument.kind is Kind.CONTAINER
        return replace(value, source=None, converted=False, scalar=value.scalar and not listed)
    return UNKNOWN


@dataclass(frozen=True)
class LocalResult:
    """What calling a method of this file's code gives, and which arguments it moves itself."""

    value: Value
    # ``id()`` of the argument expressions the method moves to its device itself.
    accepts: frozenset[int]
    # ``id()`` of the argument expressions a module's ``forward`` never lets meet the module's own
    # state (a dict of targets it reads, a flag): where they are is not the call's concern.
    inert: frozenset[int] = frozenset()
