"""The abstract values of the device flow: where a value lives, and what kind of thing it is.

A value's place is one of:

- ``HOST``: certainly on the CPU (a factory without ``device=``, ``.cpu()``, ``.to("cpu")``, a
  batch from a data loader, a module never moved);
- ``ACCEL``: moved to a device expression that may name an accelerator (``.to(device)``,
  ``.cuda()``, ``device=dev``, the output of a moved model);
- ``INPUT``: wherever the function's tensor inputs (or the module's own parameters) live, which
  model code must follow;
- ``NEUTRAL``: not a tensor (numbers, shapes, strings);
- ``CONDITIONAL``: on the accelerator exactly when a device condition holds (``if args.cuda:
  x = x.cuda()``), on the CPU otherwise; only the rule about device choices reads it, every
  other rule sees it as unknown;
- ``MAYBE``: different places along different paths (a value moved in one arm of an ``if`` and
  not in the other): its ``alternatives`` are the places, each a value of its own.  A rule
  reports when some alternative meets a different place: that path brings them together;
- ``CONTAINER``: a list, tuple or dict built here, whose ``elements`` keep their places;
- ``UNKNOWN``: anything else.  Unknown never produces a finding.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import libcst as cst


class Kind(enum.Enum):
    UNKNOWN = "unknown"
    NEUTRAL = "neutral"
    HOST = "host"
    ACCEL = "accel"
    INPUT = "input"
    LOADER = "loader"
    CONDITIONAL = "conditional"
    MAYBE = "maybe"
    CONTAINER = "container"


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
    # An eager-state optimizer built in a summarised function, over parameters whose place the
    # function cannot tell (a parameter's, ``self``'s): its construction, settled at each call.
    pending: cst.Call | None = None
    # ``built_by`` loaded the state (``load_state_dict``, a restore helper) rather than built it.
    loaded: bool = False


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
    # An ``nn.Parameter`` (or ``nn.Buffer``): kept in an attribute of a module, it is registered
    # (None: along some of the paths joined here only).
    registers: bool | None = False
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
    # A ``torch.distributions`` object (its kind says where it samples: where its parameters are).
    distribution: bool = False
    # An optimizer, and where its state was built.
    optimizer: OptimizerState | None = None
    # An instance of this file's helper class (see :mod:`.helpers`) that keeps host tensor constants.
    instance_of: str | None = None
    # MAYBE: the places along different paths (none of them MAYBE).
    alternatives: tuple[Value, ...] = ()
    # CONTAINER: "list", "tuple" or "dict", and the values of its elements (for a tuple built
    # here, in order).
    container: str | None = None
    elements: tuple[Value, ...] = ()
    # A dict built with string keys (``{"mse": ..., "mel": ...}``): the key of each element, in order.
    keys: tuple[str, ...] = ()
    # Inside a function's summary: the parameter this value is (or follows, like ``x.float()``).
    source: str | None = None
    # An instance of a class of this file, and what its attributes held when it was made (or
    # after its methods ran): ``(name, value)`` pairs.
    class_name: str | None = None
    attributes: tuple[tuple[str, Value], ...] = ()
    # An alternative of a MAYBE value: the branch condition (as text) of the path it came from, so
    # that a later test of the same condition keeps only the alternatives of its own paths.
    guard: str | None = None
    # The alternatives of variables that chose this one, as ``(variable, which)`` pairs: placed by a
    # device variable that is "cpu" for some callers (``("device", "host")`` for ``x.to(device)``),
    # one of the values the file's calls pass a parameter (``("output", "#1")``), or placed where
    # one alternative of a tensor is (``device=x.device``).  Values chosen by different
    # alternatives of one variable never meet (see ``compatible``).
    placed_by: tuple[tuple[str, str], ...] = ()
    # Inside a function's summary: a host tensor that ``torch.tensor``/``torch.as_tensor`` made of the
    # parameter ``source`` (a list, a number, or a tensor, which stays where it is): where the
    # caller's argument is when that is a tensor, on the host otherwise (see ``substitute``).
    converted: bool = False
    # A tensor kept in a plain (unregistered) attribute of a module of this file, as ``Class.attr``,
    # read where it was left by the construction or an earlier call: it stays where it was made
    # when the module moves, so meeting the module's inputs there is a bug (DEV102).
    held: str | None = None
    # A ``torch.device`` read from a value (``device = x.device``): where that value is (its places
    # only, never a container or an instance), so that what is made or moved with ``device=device``
    # is where ``x`` is.
    device_of: Value | None = None


UNKNOWN = Value()
NEUTRAL = Value(Kind.NEUTRAL, module=False)


@functools.lru_cache(maxsize=4096)
def neutral_constant(text: str | None) -> Value:
    """A constant that is not a tensor (a device string, a flag, ``None``) as a value: one shared
    (frozen) value per text, since constants are evaluated at every mention."""
    return NEUTRAL if text is None else Value(Kind.NEUTRAL, module=False, constant=text)


# More alternatives than this are not tracked: the value becomes unknown.
MAX_ALTERNATIVES = 4
# The domain is finite (see :func:`bounded`): containers and instances nest at most this deep,
# a tuple or a keyed dict keeps at most this many elements, an instance this many attributes.
MAX_DEPTH = 4
MAX_WIDTH = 16
MAX_ATTRIBUTES = 32
# ... and a value holds at most this many values in all (alternatives, elements, attributes): a
# larger one is unknown.  (Joins and comparisons cost the size of their values.)
MAX_SIZE = 96
# An alternative remembers at most this many of the choices that made it (see ``placed_by``); the
# ones beyond are forgotten, which only lets it meet more.
MAX_CHOICES = 8
# Kinds an alternative may have (the others say nothing a rule could use).
_PLACES = (Kind.HOST, Kind.ACCEL, Kind.INPUT, Kind.LOADER, Kind.NEUTRAL, Kind.CONTAINER)


def bounded(value: Value, depth: int = MAX_DEPTH) -> Value:
    """``value`` within the domain's bounds: what lies deeper than ``depth`` levels of containers
    and instance attributes is unknown, a tuple or keyed dict wider than ``MAX_WIDTH`` keeps one
    joined element, an instance with more than ``MAX_ATTRIBUTES`` attributes none.  A value
    already within them is returned as it is (the same object), so bounding costs one walk of
    a value that is itself bounded.  Over ``MAX_SIZE`` values in all, it is unknown."""
    value = _bounded(value, depth)
    if (value.kind is Kind.MAYBE or value.kind is Kind.CONTAINER or value.attributes) and _size(value) > MAX_SIZE:
        return UNKNOWN
    return value


def _size(value: Value) -> int:
    """How many values ``value`` holds, itself included (counted up to just past ``MAX_SIZE``)."""
    count = 0
    stack = [value]
    while stack and count <= MAX_SIZE:
        current = stack.pop()
        count += 1
        stack.extend(current.alternatives)
        stack.extend(current.elements)
        stack.extend(held for _, held in current.attributes)
    return count


def _bounded(value: Value, depth: int) -> Value:
    if value.kind is Kind.MAYBE:
        kept = tuple(_bounded(a, depth) for a in value.alternatives)
        if all(k is a and a.kind is not Kind.MAYBE for k, a in zip(kept, value.alternatives)):
            return value
        return union(kept)
    if value.kind is Kind.CONTAINER or value.attributes:
        if depth <= 0:
            return UNKNOWN
        result = value
        if len(value.elements) > MAX_WIDTH:
            result = replace(result, elements=(union(value.elements),), keys=())
        elements = tuple(_bounded(e, depth - 1) for e in result.elements)
        if any(e is not o for e, o in zip(elements, result.elements)):
            result = replace(result, elements=elements)
        if len(value.attributes) > MAX_ATTRIBUTES:
            result = replace(result, attributes=())
        elif value.attributes:
            attributes = tuple((name, _bounded(held, depth - 1)) for name, held in value.attributes)
            if any(a[1] is not o[1] for a, o in zip(attributes, value.attributes)):
                result = replace(result, attributes=attributes)
        return result
    return value


def negate(condition: str) -> str:
    match = re.fullmatch(r"not \((.*)\)", condition)
    if match is not None and balanced(match.group(1)):
        return match.group(1)
    return f"not ({condition})"


def balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def placement_of(value: Value) -> Value:
    """Where ``value`` is, and nothing else: its kind, device, move, origin, condition and what
    placed it, for each of its places (see ``Value.device_of``)."""

    def place(leaf: Value) -> Value:
        return Value(
            leaf.kind,
            device=leaf.device,
            move=leaf.move,
            origin=leaf.origin,
            module=False,
            condition=leaf.condition,
            source=leaf.source,
            guard=leaf.guard,
            placed_by=leaf.placed_by,
        )

    if value.kind is Kind.MAYBE:
        return Value(Kind.MAYBE, alternatives=tuple(place(a) for a in value.alternatives))
    return place(value)


def alternatives(value: Value) -> tuple[Value, ...]:
    """The places ``value`` may have: its alternatives, or the value itself."""
    return value.alternatives if value.kind is Kind.MAYBE else (value,)


def constant_everywhere(value: Value) -> bool:
    """A constant (a device string, a flag, a number), or a choice of constants, along every path."""
    return all(a.kind is Kind.NEUTRAL and a.constant is not None for a in alternatives(value))


def leaves(value: Value, *, containers: bool = True) -> tuple[Value, ...]:
    """Every place a tensor inside ``value`` may have: alternatives, a container's elements (unless
    ``containers`` is false: arithmetic on lists does not reach their tensors), and the two places
    of a conditional placement (each with the condition it holds under)."""
    found: list[Value] = []
    stack = [value]
    while stack:
        current = stack.pop()
        if current.kind is Kind.CONDITIONAL and current.condition is not None:
            found.append(replace(current, kind=Kind.ACCEL))
            found.append(replace(current, kind=Kind.HOST, condition=negate(current.condition), device=None, move=None))
        elif current.kind is Kind.MAYBE:
            stack.extend(current.alternatives)
        elif current.kind is Kind.CONTAINER:
            if containers:
                stack.extend(current.elements)
        else:
            found.append(current)
    return tuple(found)


def guarded(value: Value, guard: str) -> Value:
    """``value`` as it is along the paths where ``guard`` holds (alternatives already guarded keep
    their own, nearer condition).  Each alternative also remembers the arm it came from among its
    choices (see ``placed_by``): what two variables were given in different arms of one ``if``
    never meets (``if mps: out = out.cpu(); target = target.cpu()``)."""
    test = "if " + min(guard, negate(guard))

    def mark(alternative: Value) -> Value:
        if alternative.kind is Kind.UNKNOWN:
            return alternative
        placed = alternative.placed_by
        if not any(variable == test for variable, _ in placed):
            placed = chosen_by(placed, ((test, guard),))
        elements = alternative.elements
        if alternative.kind is Kind.CONTAINER:
            # (``pair = (x.to(d), y.to(d))`` in one arm, ``(x, y)`` in the other: unpacked, each
            # element remembers its arm)
            elements = tuple(guarded(e, guard) for e in elements)
        return replace(alternative, guard=alternative.guard or guard, placed_by=placed, elements=elements)

    if value.kind is Kind.MAYBE:
        return replace(value, alternatives=tuple(mark(a) for a in value.alternatives))
    return mark(value)


def assuming(value: Value, condition: str) -> Value:
    """``value`` along the paths where ``condition`` holds: alternatives from the other paths dropped."""
    if value.kind is not Kind.MAYBE:
        return value
    opposite = negate(condition)
    kept = [a for a in value.alternatives if a.guard != opposite]
    return value if len(kept) == len(value.alternatives) else union(kept) if kept else value


def compatible(a: Value, b: Value) -> bool:
    """Whether two alternatives can hold on one path (not from the two arms of one test)."""
    if a.guard and b.guard and a.guard == negate(b.guard):
        return False
    if not a.placed_by or not b.placed_by:
        return True
    chosen = dict(a.placed_by)
    return all(chosen.get(variable, which) == which for variable, which in b.placed_by)


def chosen_by(*choices: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """The choices of a value computed from values that made ``choices`` (it holds on their paths)."""
    merged = {pair for pairs in choices for pair in pairs}
    if len(merged) > MAX_CHOICES:
        # (the ones named by node ids go first: which of them sort first differs between runs)
        merged = {pair for pair in merged if not pair[0][:1].isdigit()}
    return tuple(sorted(merged)[:MAX_CHOICES])


def choices_of(variable: str, value: Value) -> Value:
    """``value`` with each alternative remembering it is ``variable``'s choice number i: what each
    path computes from it follows one of them (a parameter given different values by different
    calls: ``scores[:-1] != scores[1:]`` never pairs two of them)."""
    if value.kind is not Kind.MAYBE:
        return value
    tagged = tuple(
        a if a.kind is Kind.UNKNOWN else replace(a, placed_by=chosen_by(a.placed_by, ((variable, f"#{i}"),)))
        for i, a in enumerate(value.alternatives)
    )
    return replace(value, alternatives=tagged)


def chosen_along(value: Value, variable: str, which: str) -> Value:
    """``value`` with every known place in it (container elements included) remembering it is
    ``variable``'s choice ``which`` (what one call of a function passes it)."""
    if value.kind is Kind.UNKNOWN:
        return value
    if value.kind is Kind.MAYBE:
        return replace(value, alternatives=tuple(chosen_along(a, variable, which) for a in value.alternatives))
    elements = tuple(chosen_along(e, variable, which) for e in value.elements)
    return replace(value, placed_by=chosen_by(value.placed_by, ((variable, which),)), elements=elements)


def map_leaves(value: Value, function: Callable[[Value], Value]) -> Value:
    """``function`` applied to every place inside ``value`` (alternatives and container elements)."""
    if value.kind is Kind.MAYBE:
        return union([map_leaves(a, function) for a in value.alternatives])
    if value.kind is Kind.CONTAINER:
        return replace(value, elements=tuple(map_leaves(e, function) for e in value.elements))
    return function(value)


def lift(value: Value, function: Callable[[Value], Value]) -> Value:
    """``function`` applied along every path: to each alternative of a MAYBE value."""
    if value.kind is Kind.MAYBE:
        return union([function(alternative) for alternative in value.alternatives])
    return function(value)


def union(values: Sequence[Value]) -> Value:
    """The value that may be any of ``values`` (alternatives of one kind are joined)."""
    flat = [alternative for value in values for alternative in alternatives(value)]
    # Generators, helper instances, optimizers: one fact each, never mixed with one another (a
    # ``generator=None`` default or an unknown value may stand beside one).
    if len({(v.generator, v.distribution, v.instance_of, v.optimizer is None) for v in flat if not _plain(v)}) > 1:
        return UNKNOWN
    merged: list[Value] = []
    for alternative in flat:
        for index, known in enumerate(merged):
            if (
                known.kind is alternative.kind
                and known.container == alternative.container
                and not _made_apart(known, alternative)
                and not _chosen_apart(known, alternative)
                and known.held == alternative.held
            ):
                merged[index] = _join_same_kind(known, alternative)
                break
        else:
            merged.append(alternative)
            if len(merged) > MAX_ALTERNATIVES:
                return UNKNOWN  # (what the end would say: no need to merge the rest)
    if len(merged) == 1:
        return merged[0]
    # Constants count too: a device variable that is "cpu" (or None) along one path and "cuda" along another.
    informative = [
        v for v in merged if v.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT, Kind.CONTAINER) or v.constant is not None
    ]
    if not informative or len(merged) > MAX_ALTERNATIVES or any(v.kind is Kind.CONDITIONAL for v in merged):
        return UNKNOWN
    modules = {v.module for v in merged if v.kind is not Kind.UNKNOWN}
    return Value(
        Kind.MAYBE,
        alternatives=tuple(merged),
        module=modules.pop() if len(modules) == 1 else None,
        stateful=any(v.stateful for v in merged),
        scalar=any(v.scalar for v in merged),
        grad=any(v.grad for v in merged),
        compares=any(v.compares for v in merged),
    )


def _plain(value: Value) -> bool:
    """Unknown, not a tensor or a container, and none of the objects with facts of their own."""
    return (
        value.kind in (Kind.UNKNOWN, Kind.NEUTRAL, Kind.CONTAINER)
        and not value.generator
        and not value.distribution
        and value.instance_of is None
        and value.optimizer is None
    )


def join(a: Value, b: Value) -> Value:
    if a == b:
        return a
    if a.generator != b.generator or a.distribution != b.distribution or a.instance_of != b.instance_of:
        return union((a, b)) if _plain(a) or _plain(b) else UNKNOWN
    if Kind.CONDITIONAL in (a.kind, b.kind) and (a.kind is not b.kind or a.condition != b.condition):
        return UNKNOWN
    if a.kind is b.kind and a.container == b.container and a.held == b.held and not _made_apart(a, b):
        return _join_same_kind(a, b)
    return union((a, b))


def _chosen_apart(a: Value, b: Value) -> bool:
    """Two constants that different choices give (``device="cpu"`` from one call, the default
    ``"cuda"`` from another) stay apart: joined, they would say neither."""
    return a.constant != b.constant and bool(a.placed_by) and bool(b.placed_by) and a.placed_by != b.placed_by


def _made_apart(a: Value, b: Value) -> bool:
    """Host tensors made by two different calls stay apart: a finding names where each was made."""
    return (
        a.kind is Kind.HOST
        and a.origin is not None
        and b.origin is not None
        and a.origin is not b.origin
        and a.module is not True
        and b.module is not True
    )


def _join_same_kind(a: Value, b: Value) -> Value:
    if a == b:
        return a
    if a.class_name is not None and a.class_name == b.class_name and (a.attributes or b.attributes):
        # One instance, its attributes changed along one path: join them attribute by attribute.
        mine, theirs = dict(a.attributes), dict(b.attributes)
        merged = {
            k: join(mine[k], theirs[k]) if k in mine and k in theirs else UNKNOWN for k in mine.keys() | theirs.keys()
        }
        place = _join_same_kind(replace(a, attributes=()), replace(b, attributes=()))
        return replace(place, class_name=a.class_name, attributes=tuple(sorted(merged.items())))
    if a.kind is Kind.MAYBE:
        return union((a, b))
    if a.kind is Kind.CONTAINER:
        return _join_containers(a, b)
    if a.kind is b.kind and a.kind in (
        Kind.ACCEL,
        Kind.HOST,
        Kind.INPUT,
        Kind.LOADER,
        Kind.NEUTRAL,
        Kind.CONDITIONAL,
        Kind.UNKNOWN,  # instances of the file's classes (their class and attributes)
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
            registers=a.registers if a.registers == b.registers else None,
            converted=a.converted and b.converted,
            batch=a.batch and b.batch,
            scatters_inputs=a.scatters_inputs or b.scatters_inputs,
            transform=a.transform and b.transform,
            constant=a.constant if a.constant == b.constant else None,
            compares=a.compares and b.compares,
            condition=a.condition if a.condition == b.condition else None,
            generator=a.generator,
            distribution=a.distribution,
            optimizer=_join_optimizers(a.optimizer, b.optimizer),
            instance_of=a.instance_of,
            source=a.source if a.source == b.source else None,
            class_name=a.class_name if a.class_name == b.class_name else None,
            attributes=a.attributes if a.attributes == b.attributes else (),
            guard=a.guard if a.guard == b.guard else None,
            placed_by=tuple(sorted(set(a.placed_by) & set(b.placed_by))),
            held=a.held if a.held == b.held else None,
        )
    return UNKNOWN


def _join_containers(a: Value, b: Value) -> Value:
    """Two containers of one type: tuples of one length (or dicts of the same keys) element by
    element, else all elements joined."""
    if a.container != b.container:
        return union((a, b))
    if a.keys and b.keys:
        # Key by key; a key set along one path only holds what that path stored (along the other,
        # reading it raises ``KeyError``).
        mine, theirs = dict(zip(a.keys, a.elements)), dict(zip(b.keys, b.elements))
        keys = (*a.keys, *(k for k in b.keys if k not in mine))
        elements = tuple(
            join(mine[k], theirs[k]) if k in mine and k in theirs else mine.get(k, theirs.get(k))  # type: ignore[misc]
            for k in keys
        )
        return Value(Kind.CONTAINER, container=a.container, elements=elements, module=None, keys=tuple(keys))
    if a.container == "tuple" and len(a.elements) == len(b.elements):
        elements = tuple(join(x, y) for x, y in zip(a.elements, b.elements))
    else:
        elements = (union((*a.elements, *b.elements)),) if a.elements or b.elements else ()
    return Value(Kind.CONTAINER, container=a.container, elements=elements, module=None)


def container_of(kind: str, elements: Sequence[Value]) -> Value:
    """A list, tuple or dict built here; a list keeps its few different elements (all of them are
    in it: ``[x, y]`` pairs ``x`` with ``y``), a dict or a longer list one joined element (it grows)."""
    if kind == "tuple":
        return bounded(Value(Kind.CONTAINER, container=kind, elements=tuple(elements), module=None))
    distinct = tuple(dict.fromkeys(elements))
    if kind == "list" and len(distinct) <= MAX_ALTERNATIVES and all(e.kind is not Kind.MAYBE for e in distinct):
        return bounded(Value(Kind.CONTAINER, container=kind, elements=distinct, module=None))
    joined = (union(elements),) if elements else ()
    return bounded(Value(Kind.CONTAINER, container=kind, elements=joined, module=None))


def keyed_dict(keys: Sequence[str], values: Sequence[Value]) -> Value:
    """A dict built with string keys: each key keeps its own value."""
    if len(set(keys)) != len(keys) or len(keys) != len(values):
        return container_of("dict", values)
    return bounded(Value(Kind.CONTAINER, container="dict", elements=tuple(values), module=None, keys=tuple(keys)))


def item_at(container: Value, key: str | None) -> Value | None:
    """``d["k"]`` of a dict built with string keys; None for another key or container.  A key the
    dict was not given here is unknown (code elsewhere added it), never another key's value."""
    if key is None or not container.keys:
        return None
    if key not in container.keys:
        return UNKNOWN
    return container.elements[container.keys.index(key)]


def with_item(container: Value, key: str | None, value: Value) -> Value:
    """The list or dict after ``container[key] = value``."""
    if container.keys and key is not None:
        if key in container.keys:
            index = container.keys.index(key)
            elements = (*container.elements[:index], value, *container.elements[index + 1 :])
            return bounded(replace(container, elements=elements))
        return bounded(replace(container, elements=(*container.elements, value), keys=(*container.keys, key)))
    return container_of(container.container or "list", [*container.elements, value])


def element_values(value: Value) -> Value:
    """What iterating or indexing a container gives: any of its elements."""
    if value.kind is Kind.CONTAINER:
        return union(value.elements) if value.elements else UNKNOWN
    return UNKNOWN


def _join_optimizers(a: OptimizerState | None, b: OptimizerState | None) -> OptimizerState | None:
    """State built on one path is a bug on that path (``if resume: opt.load_state_dict(...)``)."""
    if a == b:
        return a
    if a is None or b is None or a.owner != b.owner:
        return None
    return a if a.built_by is not None else b


def tensorish(value: Value) -> bool:
    """Could be a tensor: not a module, not a whole batch, and placed somewhere we know."""
    return (
        value.module is not True
        and not value.batch
        and value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT)
        and not value.generator
        and not value.distribution
        and value.optimizer is None
    )


def carries_tensor(value: Value) -> bool:
    """A tensor along some path, or a container holding one."""
    return any(tensorish(leaf) for leaf in leaves(value))


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
    if value.module is True or value.batch or value.generator or value.distribution or value.optimizer is not None:
        return None
    if value.kind in (Kind.ACCEL, Kind.CONDITIONAL):
        return value.condition
    return None


def item_of(value: Value) -> Value:
    """``value[k]``: an item of a batch (moved or not) is a tensor; a tensor's slice may be 0-dim;
    a container's element."""
    if value.kind is Kind.MAYBE:
        return lift(value, item_of)
    if value.kind is Kind.CONTAINER:
        return element_values(value)
    if value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and (value.batch or value.module is None):
        return Value(
            value.kind,
            device=value.device,
            move=value.move,
            module=False,
            origin=value.origin,
            held=value.held,
            guard=value.guard,
            placed_by=value.placed_by,
        )
    if tensorish(value):
        return replace(value, scalar=True)
    return UNKNOWN


def element_of(value: Value) -> Value:
    """What unpacking a value gives: a batch's items are tensors; a tensor's rows too; a container's
    elements."""
    if value.kind is Kind.MAYBE:
        return lift(value, element_of)
    if value.kind is Kind.CONTAINER:
        return element_values(value)
    if value.kind is Kind.HOST and value.batch:
        return Value(Kind.HOST, module=False, origin=value.origin, guard=value.guard, placed_by=value.placed_by)
    if value.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and value.module is False:
        return replace(value, scalar=value.kind is not Kind.INPUT)  # a row of a 1-D tensor is 0-dim
    if value.kind is Kind.INPUT and value.module is None:
        return value  # a module's input, a tensor or a container of them
    return UNKNOWN


class Valued(Protocol):
    """An operand (see ``events.Operand``): what common_device reads of it."""

    @property
    def value(self) -> Value: ...


def common_device(operands: Sequence[Valued]) -> Value:
    """Where the result of an operation on ``operands`` lives, along the paths where it succeeds."""
    combinations: list[tuple[Value, ...]] = [()]
    for operand in operands:
        # (only alternatives that can hold on one path: not from the two arms of one test)
        combinations = [
            (*c, a) for c in combinations for a in alternatives(operand.value) if all(compatible(a, b) for b in c)
        ][: MAX_ALTERNATIVES**2]
    results = []
    for values in combinations:
        if not values:
            continue
        kinds = {v.kind for v in values if not v.scalar} or {v.kind for v in values}
        if kinds == {Kind.HOST, Kind.ACCEL}:
            continue  # fails along this path
        if kinds == {Kind.INPUT, Kind.ACCEL}:
            kinds = {Kind.ACCEL}  # where the inputs are must be there too, or this path fails
        elif kinds == {Kind.INPUT, Kind.HOST}:
            # A host tensor meeting the inputs: reported there (DEV202), and its fix makes it where
            # they are, so the result is where the inputs are (not a proof that they are on the host).
            kinds = {Kind.INPUT}
        first = next(v for v in values if v.kind in kinds)
        same_source = first.source not in (None, "*") and all(v.source == first.source for v in values)
        if len(kinds) != 1 or first.kind not in (Kind.HOST, Kind.ACCEL, Kind.INPUT):
            results.append(UNKNOWN)
            continue
        results.append(
            Value(
                first.kind,
                device=first.device,
                move=first.move,
                module=False,
                origin=first.origin,
                grad=any(v.grad for v in values),
                scalar=all(v.scalar for v in values),
                guard=next((v.guard for v in values if v.guard), None),
                placed_by=chosen_by(*(v.placed_by for v in values)),
                # Computed from the caller's values (in a summary): several parameters are "*".
                source=first.source if same_source else "*" if any(v.source for v in values) else None,
                converted=same_source and all(v.converted for v in values),
                # Where plain attributes are (where they were made), along the paths where the others
                # are there too.
                held=first.held if all(v.held for v in values if v.kind is first.kind) else None,
            )
        )
    return union(results) if results else UNKNOWN
