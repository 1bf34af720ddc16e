"""The interpreter's state at a program point, and how states join where paths meet."""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass, field

import libcst as cst

from flake8_device.analysis.flow.events import AttachAfterMove
from flake8_device.analysis.flow.values import UNKNOWN, Kind, Value, assuming, guarded, join, negate


class Env(dict):  # type: ignore[type-arg]
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

    def copy(self) -> Env:
        return Env(self)

    def forget_attributes(self, path: str) -> None:
        """Drop what is known of ``path.<anything>``."""
        if not self.attributes:
            return
        prefix = path + "."
        for key in [k for k in self.attributes if k.startswith(prefix)]:
            self.attributes.discard(key)
            self.pop(key, None)


@dataclass
class State:
    env: Env = field(default_factory=Env)
    # Attachments to a moved module awaiting a later move (owner path -> events).
    pending: dict[str, tuple[AttachAfterMove, ...]] = field(default_factory=dict)
    # Names holding a batch transformed on the host in this loop body: name -> (statement, call).
    transformed: dict[str, tuple[cst.SimpleStatementLine, cst.Call, Value]] = field(default_factory=dict)
    terminated: bool = False
    # Names bound to a device condition (``use_cuda = not args.no_cuda and ...``) or to a device
    # chosen by one (``device = torch.device("cuda" if use_cuda else "cpu")``):
    # name -> (is a device, the condition under which it holds / is an accelerator).
    conditions: dict[str, tuple[bool, str]] = field(default_factory=dict)
    # Flags bound to a device test: name -> whether the flag being true means the CPU.
    polarity: dict[str, bool] = field(default_factory=dict)
    # This path runs on the CPU only (under a CPU guard, or with its device set to a CPU literal):
    # it makes no accelerator finding, and where paths join it gives way to the others.
    cpu_only: bool = False
    # Paths whose value has alternatives guarded by a branch condition (see ``assume``).
    guarded: set[str] = field(default_factory=set)
    # Flags bound to a type test (``is_array = isinstance(x, np.ndarray)``): flag -> (tested path,
    # whether the type is a tensor type).
    type_tests: dict[str, tuple[str, bool]] = field(default_factory=dict)
    # Expressions (their code, without spaces) a test said are not empty (``if x.numel() != 0:``).
    not_empty: frozenset[str] = frozenset()

    def assume(self, condition: str) -> None:
        """Along this path ``condition`` holds: drop the alternatives that came from its opposite."""
        for path in list(self.guarded):
            value = self.env.get(path)
            if value is None or value.kind is not Kind.MAYBE:
                self.guarded.discard(path)
                continue
            narrowed = assuming(value, condition)
            if narrowed is not value:
                self.env[path] = narrowed

    def copy(self) -> State:
        return State(
            self.env.copy(),
            dict(self.pending),
            dict(self.transformed),
            self.terminated,
            dict(self.conditions),
            dict(self.polarity),
            self.cpu_only,
            set(self.guarded),
            dict(self.type_tests),
            self.not_empty,
        )


def join_states(
    states: Sequence[State], guards: Sequence[str] | None = None, outside: Container[str] | None = None
) -> State:
    """The state after paths meet; ``guards``: each state's branch condition, which the values that
    differ between the branches remember (see ``State.assume``).

    ``outside``: when given, the names that may hold a value the state does not track (parameters,
    imports, globals); any other plain name bound along some paths only is unbound along the others,
    where using it raises ``NameError``: after the join it holds what the paths that bound it left
    (``if use_reg: reg = Reg()`` ... ``if use_reg: loss += reg(x)``)."""
    live = [s for s in states if not s.terminated]
    if not live:
        merged = states[0].copy()
        merged.terminated = True
        return merged
    # Paths that run on the CPU only make no accelerator finding: after the join, what matters is
    # where the other paths leave each value.
    live = [s for s in live if not s.cpu_only] or live
    first = live[0]
    env = Env()
    guarded: set[str] = set().union(*(s.guarded for s in live))
    branch_guards = {id(s): g for s, g in zip(states, guards or ())}
    flags = None
    if guards is None and len(live) > 1:
        # No branch test (a loop's entry and its back edge): a flag set differently along the paths
        # (``first = True`` ... ``first = False``) is the test that tells them apart.
        flags = _flag_guards(live)
        if flags is not None:
            branch_guards = {id(s): g for s, g in zip(live, flags[1])}
    by_guard = bool(branch_guards)
    keys = dict.fromkeys(first.env)
    for state in live[1:]:
        keys.update(dict.fromkeys(state.env))
    for key in keys:
        found = [s.env.get(key) for s in live]
        same = found[0]
        if same is not None and all(v is same for v in found):
            # Untouched along every path (each branch starts from a copy of one environment).
            env[key] = same
            if same.kind is Kind.MAYBE and any(a.guard for a in same.alternatives):
                guarded.add(key)
            continue
        live_for_key = live
        if outside is not None and "." not in key and key not in outside and any(v is None for v in found):
            # A plain name bound along some paths only: using it elsewhere raises NameError, so it
            # holds what the paths that bound it left.
            live_for_key = [s for v, s in zip(found, live) if v is not None]
            values = [v for v in found if v is not None]
        else:
            # Bound along some paths only: unknown along the others (``if cond: self.cache = ...``).
            values = [v if v is not None else UNKNOWN for v in found]
        if by_guard and len(live_for_key) > 1 and any(v != values[0] for v in values[1:]):
            values = [guarded_value(v, branch_guards.get(id(s))) for v, s in zip(values, live_for_key)]
        if flags is not None and key == flags[0]:
            # The flag itself keeps both values, each with its own test, for that test to narrow.
            value = Value(Kind.MAYBE, alternatives=tuple(dict.fromkeys(v for v in values if v is not None)))
        else:
            value = values[0]
            for other in values[1:]:
                value = join(value, other)
        if value.kind is Kind.UNKNOWN and value.class_name is None and key not in first.env:
            continue
        env[key] = value
        if value.kind is Kind.MAYBE and any(a.guard for a in value.alternatives):
            guarded.add(key)
    pending: dict[str, tuple[AttachAfterMove, ...]] = {}
    for state in live:
        for key, events in state.pending.items():
            pending[key] = tuple(dict.fromkeys(pending.get(key, ()) + events))
    transformed = {k: v for k, v in first.transformed.items() if all(s.transformed.get(k) == v for s in live)}
    conditions = {k: v for k, v in first.conditions.items() if all(s.conditions.get(k) == v for s in live)}
    polarity = {k: v for k, v in first.polarity.items() if all(s.polarity.get(k) == v for s in live)}
    cpu_only = all(s.cpu_only for s in live)
    guarded &= set(env)
    type_tests = {k: v for k, v in first.type_tests.items() if all(s.type_tests.get(k) == v for s in live)}
    not_empty = frozenset.intersection(*(s.not_empty for s in live))
    return State(
        env,
        pending,
        transformed,
        conditions=conditions,
        polarity=polarity,
        cpu_only=cpu_only,
        guarded=guarded,
        type_tests=type_tests,
        not_empty=not_empty,
    )


_FLAGS = ("True", "False")


def _flag_guards(states: Sequence[State]) -> tuple[str, list[str]] | None:
    """A plain name that holds ``True`` along some of the paths and ``False`` along the others (the
    first such name, in the order the first path bound them), and each state's condition."""
    for key, value in states[0].env.items():
        if value.kind is not Kind.NEUTRAL or value.constant not in _FLAGS or "." in key:
            continue
        found = [state.env.get(key) for state in states[1:]]
        if all(v is not None and v.kind is Kind.NEUTRAL and v.constant in _FLAGS for v in found):
            constants = [value.constant, *(v.constant for v in found)]  # type: ignore[union-attr]
            if len(set(constants)) > 1:
                return key, [key if constant == "True" else negate(key) for constant in constants]
    return None


def guarded_value(value: Value | None, guard: str | None) -> Value | None:
    return value if value is None or guard is None else guarded(value, guard)
