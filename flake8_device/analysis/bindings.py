"""Definite bindings and reaching definitions, read from the ``ast`` of the whole file.

A fix that inserts a name (``map_location=device``, ``device=h.device``,
``.to(device)`` copied from another line) is only safe where that name is
certainly bound when the edited code runs, and still holds what it held where
the fix copied it from.  This module answers both questions for any point of a
file, the way Python resolves names:

- every scope (the module, a function, a class body, a lambda, a comprehension)
  has its own local names: those it assigns anywhere (``device = ...`` further
  down makes ``device`` local everywhere in that function);
- a local name's *reaching definitions* at a point are the bindings (an
  assignment, a parameter, an import, a ``for`` target, ...) that some path
  from the scope's entry brings there without an intervening rebinding; the
  pseudo-definition :data:`UNBOUND` reaches every point some path reaches
  before any binding (``del x`` and the end of ``except ... as x`` unbind too);
- a name free in a function is looked up when the function runs: in the
  enclosing function (bound when the nested ``def`` runs), else at module
  level, where it must be bound wherever module-level code may call the
  function (every module-level statement that names it, directly or through
  other functions and classes of the file, and the end of the module, from
  where an importer may call it).

Branches join, loops are iterated to a fixed point, ``try`` handlers start
from any state their body passes through, ``match`` cases bind their captures,
and walrus targets bind in the enclosing function.  Attributes of a method's
first parameter (``self.device``) are tracked like names, so that "set in
``__init__`` before this point" can be asked too.

Everything here is computed lazily, per scope, only for files where some fix
asks.
"""

from __future__ import annotations

import ast
import builtins
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Union

from flake8_device.analysis.symbols import ast_dotted_name

BUILTIN_NAMES = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__builtins__"}

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
ScopeNode = Union[ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.expr]
# A point of the file: 1-based line and 0-based column in characters (as LibCST counts).
Point = tuple[int, int]


@dataclass(frozen=True)
class Definition:
    """A binding of a name: where it is and what kind it is (``assign``, ``param``, ``import``...)."""

    line: int
    column: int
    kind: str
    # The bound value where the binding is an assignment (``x = <value>``), for type evidence.
    value: ast.expr | None = field(default=None, compare=False, hash=False)

    @property
    def unbinds(self) -> bool:
        return self.kind in ("unbound", "deleted")


UNBOUND = Definition(0, 0, "unbound")
State = dict[str, frozenset[Definition]]


@dataclass(frozen=True)
class Binding:
    """What a name is at a point: whether it is certainly bound, and the definitions that reach it."""

    bound: bool
    definitions: frozenset[Definition] = frozenset()
    # Why it is not certainly bound, for fix reasons ("`device` is assigned later in `train`").
    reason: str | None = None
    # Where the name was resolved: the scope node (None for builtins and unknown names).
    scope: ast.AST | None = None


def _join(states: Iterable[State | None]) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    merged: State = dict(live[0])
    for state in live[1:]:
        for name, definitions in state.items():
            merged[name] = merged.get(name, frozenset()) | definitions
    return merged


def _contains(node: ast.AST, point: tuple[int, int]) -> bool:
    """Is the byte-column ``point`` inside ``node``'s span?"""
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]
    return start <= point < end


def _span(node: ast.AST) -> tuple[int, int, int, int]:
    return (
        node.lineno,  # type: ignore[attr-defined]
        node.col_offset,  # type: ignore[attr-defined]
        node.end_lineno or node.lineno,  # type: ignore[attr-defined]
        node.end_col_offset or 0,  # type: ignore[attr-defined]
    )


def _body_span_contains(body: Sequence[ast.AST], point: tuple[int, int]) -> bool:
    if not body:
        return False
    first, last = body[0], body[-1]
    start = (getattr(first, "lineno", 0), getattr(first, "col_offset", 0))
    end = (getattr(last, "end_lineno", 0) or 0, getattr(last, "end_col_offset", 0) or 0)
    return start <= point < end


def target_names(target: ast.expr) -> Iterator[ast.Name]:
    """The names an assignment target binds (``a, (b, *c) = ...``)."""
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from target_names(element)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def _pattern_captures(pattern: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """The names a ``match`` pattern binds."""
    for node in ast.walk(pattern):
        name = None
        if isinstance(node, (ast.MatchAs, ast.MatchStar)):
            name = node.name
        elif isinstance(node, ast.MatchMapping):
            name = node.rest
        if name is not None:
            yield name, node


def _irrefutable(case: ast.AST) -> bool:
    pattern = getattr(case, "pattern", None)
    return isinstance(pattern, ast.MatchAs) and pattern.pattern is None and getattr(case, "guard", None) is None


def own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """Every node evaluated in ``scope`` itself: nested functions, classes, lambdas and
    comprehensions contribute only what runs where they are written (decorators, defaults,
    bases, a comprehension's first iterable) and their walrus targets (which bind here)."""
    if isinstance(scope, ast.Lambda):
        stack: list[ast.AST] = [scope.body]
    elif isinstance(scope, _COMPREHENSIONS):
        stack = [scope.elt] if not isinstance(scope, ast.DictComp) else [scope.key, scope.value]
        for position, generator in enumerate(scope.generators):
            stack.append(generator.target)
            stack.extend(generator.ifs)
            if position:
                stack.append(generator.iter)
    elif isinstance(scope, (ast.Module, ast.ClassDef, *_FUNCTIONS)):
        stack = list(scope.body)  # type: ignore[attr-defined]
    else:
        stack = []
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_evaluated_here(node))


def _evaluated_here(node: ast.AST) -> list[ast.AST]:
    """The children of ``node`` evaluated in the scope ``node`` is in."""
    if isinstance(node, _FUNCTIONS):
        arguments = node.args
        return [
            *node.decorator_list,
            *arguments.defaults,
            *(d for d in arguments.kw_defaults if d is not None),
            *_annotations(arguments),
            *([node.returns] if node.returns is not None else []),
        ]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    if isinstance(node, ast.Lambda):
        arguments = node.args
        return [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    if isinstance(node, _COMPREHENSIONS):
        # The first iterable runs here; walrus targets inside bind here too.
        return [node.generators[0].iter, *(n for n in _comprehension_walruses(node))]
    return list(ast.iter_child_nodes(node))


def _comprehension_walruses(node: ast.AST) -> Iterator[ast.NamedExpr]:
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        if isinstance(child, ast.NamedExpr):
            yield child
        if not isinstance(child, (ast.Lambda, *_FUNCTIONS, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(child))


def _annotations(arguments: ast.arguments) -> list[ast.expr]:
    found = []
    for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]:
        if arg is not None and arg.annotation is not None:
            found.append(arg.annotation)
    return found


def parameter_names(arguments: ast.arguments) -> list[ast.arg]:
    params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    if arguments.vararg is not None:
        params.append(arguments.vararg)
    if arguments.kwarg is not None:
        params.append(arguments.kwarg)
    return params


class ScopeFacts:
    """One scope: its local names, and the definitions reaching each of its statements."""

    def __init__(self, node: ScopeNode, parent: ScopeFacts | None, self_name: str | None = None) -> None:
        self.node = node
        self.parent = parent
        # A method's first parameter: its attributes (``self.device``) are tracked as paths.
        self.self_name = self_name
        self._children: list[ScopeFacts] | None = None
        self._spans: tuple[list[tuple[int, int]], list[tuple[int, int]], list[ScopeFacts]] | None = None
        self._names: tuple[set[str], set[str], set[str]] | None = None
        # Names bound by a walrus in this scope's own code (most scopes have none: nothing to look for).
        self.walrus_targets: set[str] = set()
        self._reaching: dict[str, Reaching] = {}
        self._statements: list[ast.AST] | None = None

    @property
    def name(self) -> str:
        return getattr(self.node, "name", type(self.node).__name__.lower())

    @property
    def is_function(self) -> bool:
        return isinstance(self.node, (*_FUNCTIONS, ast.Lambda))

    # -- the scopes inside, and the local names (both computed on first use) ------------------------
    @property
    def children(self) -> list[ScopeFacts]:
        """The scopes written directly in this one (functions, classes, lambdas, comprehensions)."""
        if self._children is None:
            self._children = []
            for sub in own_nodes(self.node):
                if not isinstance(sub, (*_FUNCTIONS, ast.ClassDef, ast.Lambda, *_COMPREHENSIONS)):
                    continue
                self_name = None
                if isinstance(sub, _FUNCTIONS) and isinstance(self.node, ast.ClassDef):
                    params = [*sub.args.posonlyargs, *sub.args.args]
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in sub.decorator_list)
                    self_name = params[0].arg if params and not static else None
                self._children.append(ScopeFacts(sub, self, self_name))
        return self._children

    def child_around(self, where: tuple[int, int]) -> ScopeFacts | None:
        """The innermost-starting child scope whose node spans ``where``, found by bisection (a child
        may lie inside a sibling's span, as a default's comprehension lies in its ``def``)."""
        if self._spans is None:
            ordered = sorted(self.children, key=lambda c: _span(c.node)[:2])
            furthest: list[tuple[int, int]] = []
            for child in ordered:
                end = _span(child.node)[2:]
                furthest.append(max(furthest[-1], end) if furthest else end)
            self._spans = ([_span(c.node)[:2] for c in ordered], furthest, ordered)
        starts, furthest, ordered = self._spans
        position = bisect_right(starts, where) - 1
        while position >= 0 and furthest[position] > where:
            child = ordered[position]
            if _contains(child.node, where):
                return child
            position -= 1
        return None

    @property
    def locals(self) -> set[str]:
        return self._local_names()[0]

    @property
    def declared_global(self) -> set[str]:
        return self._local_names()[1]

    @property
    def declared_nonlocal(self) -> set[str]:
        return self._local_names()[2]

    def _local_names(self) -> tuple[set[str], set[str], set[str]]:
        if self._names is not None:
            return self._names
        node = self.node
        bound: set[str] = set()
        declared_global: set[str] = set()
        declared_nonlocal: set[str] = set()
        if isinstance(node, (*_FUNCTIONS, ast.Lambda)):
            bound.update(a.arg for a in parameter_names(node.args))
        if isinstance(node, _COMPREHENSIONS):
            for generator in node.generators:
                bound.update(n.id for n in target_names(generator.target))
        for sub in own_nodes(node):
            if isinstance(sub, ast.Global):
                declared_global.update(sub.names)
            elif isinstance(sub, ast.Nonlocal):
                declared_nonlocal.update(sub.names)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                bound.add(sub.id)
            elif isinstance(sub, (*_FUNCTIONS, ast.ClassDef)):
                bound.add(sub.name)
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                bound.update(alias.asname or alias.name.split(".")[0] for alias in sub.names if alias.name != "*")
            elif isinstance(sub, ast.ExceptHandler) and sub.name:
                bound.add(sub.name)
            elif isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                bound.add(sub.target.id)
                self.walrus_targets.add(sub.target.id)
            elif type(sub).__name__ in ("MatchAs", "MatchStar", "MatchMapping"):
                captured = getattr(sub, "rest", None) if type(sub).__name__ == "MatchMapping" else sub.name
                if captured:
                    bound.add(captured)
        if isinstance(node, _COMPREHENSIONS):
            # Walrus targets in a comprehension bind in the enclosing function, not here.
            bound.difference_update(
                n.target.id for n in _comprehension_walruses(node) if isinstance(n.target, ast.Name)
            )
        bound -= declared_global | declared_nonlocal
        self._names = (bound, declared_global, declared_nonlocal)
        return self._names

    def is_local(self, name: str) -> bool:
        return name in self.locals

    # -- reaching definitions, per name (a query asks about one or two names) ------------------------
    def reaching(self, name: str) -> Reaching:
        """The definitions of ``name`` (a local, or a tracked ``self.<attr>`` path) reaching each statement."""
        found = self._reaching.get(name)
        if found is None:
            found = self._reaching[name] = Reaching(self, name)
        return found

    def state_at(self, point: tuple[int, int], name: str) -> frozenset[Definition] | None:
        """The definitions of ``name`` reaching ``point`` (a byte-column position in this scope's own code)."""
        return self.reaching(name).at(point)

    def end(self, name: str) -> frozenset[Definition] | None:
        """The definitions of ``name`` at the end of the scope (None when no path gets there)."""
        return self.reaching(name).end_state()

    def statements(self) -> list[ast.AST]:
        """The statements (and ``except`` clauses) of this scope's own code."""
        if self._statements is None:
            self._statements = [n for n in own_nodes(self.node) if isinstance(n, (ast.stmt, ast.ExceptHandler))]
        return self._statements


class Reaching:
    """Reaching definitions of one name in one scope: the definitions (bindings, or :data:`UNBOUND`)
    that some path brings to each statement.  Tracking one name at a time keeps the cost linear in
    the scope's size (a module binding thousands of functions is read once per name asked about)."""

    def __init__(self, facts: ScopeFacts, name: str) -> None:
        self.facts = facts
        self.node = facts.node
        self.self_name = facts.self_name
        self.name = name
        self._before: dict[int, State] = {}
        self._recorded: list[ast.AST] = []
        self._end: State | None = None
        self._analysed = False
        self._loops: list[tuple[list[State], list[State]]] = []
        self._collectors: list[list[State]] = []
        facts.locals  # noqa: B018 - collects the walrus targets too
        # Whether a walrus may bind the name (most scopes have none: nothing to look for).
        self._walrus = name in facts.walrus_targets

    def _entry(self) -> State:
        node = self.node
        state: State = {self.name: frozenset({UNBOUND})}
        if isinstance(node, (*_FUNCTIONS, ast.Lambda)):
            for arg in parameter_names(node.args):
                if arg.arg == self.name:
                    state[arg.arg] = frozenset({Definition(arg.lineno, arg.col_offset, "param")})
        if isinstance(node, _COMPREHENSIONS):
            for generator in node.generators:
                for target in target_names(generator.target):
                    if target.id == self.name:
                        state[target.id] = frozenset({Definition(target.lineno, target.col_offset, "for")})
        return state

    def _analyse(self) -> None:
        if self._analysed:
            return
        self._analysed = True
        node = self.node
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            self._end = self._entry()
            return
        self._end = self._block(node.body, self._entry())  # type: ignore[attr-defined]

    def end_state(self) -> frozenset[Definition] | None:
        self._analyse()
        return self._end.get(self.name) if self._end is not None else None

    def _record(self, node: ast.AST, state: State) -> None:
        key = id(node)
        previous = self._before.get(key)
        if previous is None:
            self._recorded.append(node)
            self._before[key] = dict(state)
        else:
            self._before[key] = _join([previous, state]) or {}
        for collector in self._collectors:
            collector.append(state)

    def _block(self, body: Sequence[ast.stmt], state: State | None) -> State | None:
        for statement in body:
            if state is None:
                return None
            state = self._statement(statement, state)
        return state

    def _bind(self, state: State, name: str, definition: Definition, *, weak: bool = False) -> State:
        if name not in state:
            return state  # not local here (a global or nonlocal name)
        new = dict(state)
        new[name] = (state[name] | {definition}) if weak else frozenset({definition})
        return new

    def _bind_target(self, state: State, target: ast.expr, kind: str, value: ast.expr | None) -> State:
        if isinstance(target, ast.Name):
            return self._bind(state, target.id, Definition(target.lineno, target.col_offset, kind, value))
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                state = self._bind_target(state, element, kind, None)
            return state
        if isinstance(target, ast.Starred):
            return self._bind_target(state, target.value, kind, None)
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == self.self_name
        ):
            path = f"{self.self_name}.{target.attr}"
            return self._bind(state, path, Definition(target.lineno, target.col_offset, kind, value))
        return state

    def _walruses(self, state: State, *expressions: ast.AST | None) -> State:
        """Walrus targets bind as their expression is evaluated (maybe not at all, under ``and``/``if``)."""
        if not self._walrus:
            return state
        for expression in expressions:
            if expression is None:
                continue
            for sub, weak in _walrus_nodes(expression):
                if isinstance(sub.target, ast.Name):
                    definition = Definition(sub.target.lineno, sub.target.col_offset, "walrus", sub.value)
                    state = self._bind(state, sub.target.id, definition, weak=weak)
        return state

    def _statement(self, statement: ast.stmt, state: State) -> State | None:
        self._record(statement, state)
        if isinstance(statement, ast.Assign):
            state = self._walruses(state, statement.value)
            for target in statement.targets:
                state = self._bind_target(state, target, "assign", statement.value)
            return state
        if isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
            if statement.value is None:
                return state
            state = self._walruses(state, statement.value)
            kind = "augmented" if isinstance(statement, ast.AugAssign) else "assign"
            return self._bind_target(state, statement.target, kind, statement.value)
        if isinstance(statement, (ast.Return, ast.Raise)):
            return None
        if isinstance(statement, (ast.Break, ast.Continue)):
            if self._loops:
                breaks, continues = self._loops[-1]
                (breaks if isinstance(statement, ast.Break) else continues).append(state)
            return None
        if isinstance(statement, ast.Delete):
            for target in statement.targets:
                for name in target_names(target):
                    state = self._bind(state, name.id, Definition(name.lineno, name.col_offset, "deleted"))
            return state
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if alias.name != "*":
                    local = alias.asname or alias.name.split(".")[0]
                    state = self._bind(state, local, Definition(statement.lineno, statement.col_offset, "import"))
            return state
        if isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
            if self._walrus:
                state = self._walruses(state, *_evaluated_here(statement))
            return self._bind(state, statement.name, Definition(statement.lineno, statement.col_offset, "def"))
        if isinstance(statement, ast.If):
            state = self._walruses(state, statement.test)
            return _join([self._block(statement.body, state), self._block(statement.orelse, state)])
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            return self._loop(statement, state)
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                state = self._walruses(state, item.context_expr)
                if item.optional_vars is not None:
                    state = self._bind_target(state, item.optional_vars, "with", None)
            return self._block(statement.body, state)
        if type(statement).__name__ in ("Try", "TryStar"):
            return self._try(statement, state)
        if type(statement).__name__ == "Match":
            return self._match(statement, state)
        return self._walruses(state, *ast.iter_child_nodes(statement))

    def _loop(self, statement: ast.For | ast.AsyncFor | ast.While, entry: State) -> State | None:
        if isinstance(statement, ast.While):
            entry = self._walruses(entry, statement.test)
        else:
            entry = self._walruses(entry, statement.iter)
        head: State = entry
        exits: list[State | None] = []
        breaks: list[State] = []
        for _ in range(20):  # definitions are finite, so the head state stops growing
            breaks, continues = [], []
            self._loops.append((breaks, continues))
            if isinstance(statement, ast.While):
                self._record(statement, head)
                body_entry: State = head
            else:
                body_entry = self._bind_target(head, statement.target, "for", None)
            end = self._block(statement.body, body_entry)
            self._loops.pop()
            new_head = _join([head, end, *continues]) or head
            if new_head == head:
                break
            head = new_head
        infinite = isinstance(statement, ast.While) and _always_true(statement.test)
        if not infinite:
            exits.append(self._block(statement.orelse, head))
        return _join([*exits, *breaks])

    def _try(self, statement: ast.AST, entry: State) -> State | None:
        seen: list[State] = [entry]
        self._collectors.append(seen)
        body_end = self._block(statement.body, entry)  # type: ignore[attr-defined]
        self._collectors.pop()
        if body_end is not None:
            seen.append(body_end)
        handler_entry = _join(seen) or entry
        outcomes: list[State | None] = [self._block(statement.orelse, body_end)]  # type: ignore[attr-defined]
        for handler in statement.handlers:  # type: ignore[attr-defined]
            self._record(handler, handler_entry)
            state = handler_entry
            if handler.name:
                state = self._bind(state, handler.name, Definition(handler.lineno, handler.col_offset, "except"))
            state_after = self._block(handler.body, state)
            if state_after is not None and handler.name:
                state_after = self._bind(
                    state_after, handler.name, Definition(handler.lineno, handler.col_offset, "deleted")
                )
            outcomes.append(state_after)
        after = _join(outcomes)
        final = statement.finalbody  # type: ignore[attr-defined]
        if final:
            return self._block(final, after) if after is not None else (self._block(final, handler_entry) and None)
        return after

    def _match(self, statement: ast.AST, entry: State) -> State | None:
        entry = self._walruses(entry, statement.subject)  # type: ignore[attr-defined]
        outcomes: list[State | None] = []
        exhaustive = False
        for case in statement.cases:  # type: ignore[attr-defined]
            state = entry
            for name, node in _pattern_captures(case.pattern):
                definition = Definition(
                    getattr(node, "lineno", case.pattern.lineno), getattr(node, "col_offset", 0), "match"
                )
                state = self._bind(state, name, definition)
            state = self._walruses(state, case.guard)
            outcomes.append(self._block(case.body, state))
            exhaustive = exhaustive or _irrefutable(case)
        if not exhaustive:
            outcomes.append(entry)
        return _join(outcomes)

    def at(self, point: tuple[int, int]) -> frozenset[Definition] | None:
        """The definitions reaching ``point`` (a byte-column position inside the scope's own code)."""
        self._analyse()
        if isinstance(self.node, (ast.Lambda, *_COMPREHENSIONS)):
            return self.end_state()
        best: ast.AST | None = None
        best_span: tuple[int, int, int, int] | None = None
        for node in self._recorded:
            if _contains(node, point):
                span = _span(node)
                if best_span is None or span[:2] >= best_span[:2]:
                    best, best_span = node, span
        if best is None:
            return None
        state = self._before[id(best)]
        # A walrus earlier on the same statement (``if (n := f(x)) and ...``) may have run.
        if isinstance(best, ast.stmt) and not isinstance(best, (ast.For, ast.AsyncFor, ast.While)):
            for sub, _ in _walrus_nodes(best):
                target = sub.target
                if isinstance(target, ast.Name) and (sub.end_lineno or 0, sub.end_col_offset or 0) <= point:
                    state = self._bind(
                        state, target.id, Definition(target.lineno, target.col_offset, "walrus"), weak=True
                    )
        return state.get(self.name)


def _always_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


def _walrus_nodes(expression: ast.AST) -> Iterator[tuple[ast.NamedExpr, bool]]:
    """Walrus expressions evaluated with ``expression`` (not inside lambdas or nested statements), and
    whether each may be skipped (under ``and``/``or``, a conditional, or a comprehension)."""
    stack: list[tuple[ast.AST, bool]] = [(expression, False)]
    while stack:
        node, weak = stack.pop()
        if isinstance(node, ast.NamedExpr):
            yield node, weak
        if isinstance(node, (ast.Lambda, *_FUNCTIONS, ast.ClassDef, ast.stmt)) and node is not expression:
            continue
        children_weak = weak or isinstance(node, (ast.BoolOp, ast.IfExp, *_COMPREHENSIONS))
        for child in ast.iter_child_nodes(node):
            if isinstance(node, ast.stmt) and isinstance(child, ast.stmt):
                continue  # a compound statement's body is another statement
            stack.append((child, children_weak))


class FileBindings:
    """Name resolution for one file, from its ``ast`` (the whole file, whatever LibCST parsed)."""

    def __init__(self, tree: ast.Module, text: str) -> None:
        self.tree = tree
        self._lines = text.splitlines(keepends=True) if text else []
        self.module = ScopeFacts(tree, None)

    def _inner_contains(self, scope: ScopeFacts, point: tuple[int, int]) -> bool:
        node = scope.node
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            return _body_span_contains(node.body, point)
        if isinstance(node, ast.Lambda):
            return _contains(node.body, point)
        if isinstance(node, _COMPREHENSIONS):
            return _contains(node, point) and not _contains(node.generators[0].iter, point)
        return True

    def scope_at(self, point: Point) -> ScopeFacts:
        """The innermost scope whose own code holds ``point``."""
        where = self._bytes(point)
        scope = self.module
        while True:
            child = scope.child_around(where)
            if child is None:
                return scope
            if not self._inner_contains(child, where):
                # In a child's span but not its own code (a default, a decorator): a sibling inside it?
                inner = next((c for c in scope.children if c is not child and self._inner_contains(c, where)), None)
                if inner is None:
                    return scope
                child = inner
            scope = child

    def point_of(self, node: ast.AST) -> Point:
        """Where an ``ast`` node starts, in characters (as :meth:`binding` takes points)."""
        line, column = node.lineno, node.col_offset  # type: ignore[attr-defined]
        if 0 < line <= len(self._lines):
            return line, len(self._lines[line - 1].encode("utf-8")[:column].decode("utf-8", "replace"))
        return line, column

    def end_point_of(self, node: ast.AST) -> Point:
        line, column = node.end_lineno or node.lineno, node.end_col_offset or 0  # type: ignore[attr-defined]
        if 0 < line <= len(self._lines):
            return line, len(self._lines[line - 1].encode("utf-8")[:column].decode("utf-8", "replace"))
        return line, column

    def _bytes(self, point: Point) -> tuple[int, int]:
        line, column = point
        if 0 < line <= len(self._lines):
            return line, len(self._lines[line - 1][:column].encode("utf-8"))
        return line, column

    # -- resolution ------------------------------------------------------------------------------
    def binding(self, name: str, point: Point) -> Binding:
        """Is ``name`` certainly bound when the code at ``point`` runs, and by which definitions?"""
        scope = self.scope_at(point)
        return self._resolve(name, scope, self._bytes(point))

    def _resolve(self, name: str, scope: ScopeFacts, where: tuple[int, int]) -> Binding:
        if name in scope.declared_nonlocal and scope.parent is not None:
            return self._free(name, scope, where)
        if name in scope.declared_global:
            binding = self._global(name, scope, where)
            if any(
                isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in own_nodes(scope.node)
            ):
                # Rebound by this very function through `global`: when, the file does not tell.
                opaque = Definition(where[0], where[1], "opaque")
                return Binding(binding.bound, binding.definitions | {opaque}, binding.reason, binding.scope)
            return binding
        if scope.is_local(name):
            found = scope.state_at(where, name)
            definitions = found if found is not None else frozenset({UNBOUND})
            if not definitions or any(d.unbinds for d in definitions):
                return Binding(False, definitions, self._unbound_reason(name, scope, where, definitions), scope.node)
            return Binding(True, definitions, None, scope.node)
        return self._free(name, scope, where)

    def _free(self, name: str, scope: ScopeFacts, where: tuple[int, int]) -> Binding:
        """A name ``scope`` does not bind: found in an enclosing scope (class bodies are skipped by
        the functions inside them)."""
        parent = scope.parent
        if parent is None:
            if name in BUILTIN_NAMES:
                return Binding(True)
            return Binding(False, reason=f"`{name}` is not defined in this file")
        node = scope.node
        deferred = isinstance(node, (*_FUNCTIONS, ast.Lambda))
        outer_where = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        while isinstance(parent.node, ast.ClassDef) and deferred:
            if parent.parent is None:
                break
            outer_where = (parent.node.lineno, parent.node.col_offset)
            parent = parent.parent
        if parent is self.module and deferred:
            return self._global(name, scope, where)
        return self._resolve(name, parent, outer_where)

    def _global(self, name: str, scope: ScopeFacts, where: tuple[int, int]) -> Binding:
        """A module-level name read by code that runs later (a function): it must be bound wherever
        module-level code may call that function, and at the end of the module."""
        module = self.module
        if not module.is_local(name):
            if name in BUILTIN_NAMES:
                return Binding(True)
            if any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(self.tree)):
                return Binding(False, reason=f"`{name}` is only bound where a function declares it `global`")
            return Binding(False, reason=f"`{name}` is not defined in this file")
        top = self._top_definition(where)
        points = self._trigger_points(top) if top is not None else []
        definitions: set[Definition] = set()
        for trigger in points:
            where_trigger = (trigger.lineno, trigger.col_offset)  # type: ignore[attr-defined]
            found = module.state_at(where_trigger, name) or frozenset()
            if any(d.unbinds for d in found):
                line = trigger.lineno  # type: ignore[attr-defined]
                return Binding(
                    False,
                    frozenset(found),
                    f"`{name}` is not yet bound at module level where line {line} may call this code",
                    module.node,
                )
            definitions |= found
        end = module.end(name)
        if end is not None:
            found = end
            if any(d.unbinds for d in found):
                return Binding(
                    False,
                    frozenset(found),
                    f"`{name}` is not bound at module level on every path (an importer may call this code)",
                    module.node,
                )
            definitions |= found
        return Binding(True, frozenset(definitions), None, module.node)

    def _top_definition(self, where: tuple[int, int]) -> ast.AST | None:
        """The module-scope ``def``/``class`` whose code holds ``where``."""
        child = self.module.child_around(where)
        return child.node if child is not None else None

    def _trigger_points(self, top: ast.AST) -> list[ast.AST]:
        """Module-level code that may run ``top``: statements naming it, or naming a module-level
        function or class that (transitively) names it; a class body naming one runs where the class
        is defined.  A module-level lambda or comprehension runs where it is written.

        Names are found in the text (comments and strings included: more places to check, never
        fewer), so that a large module is searched rather than walked."""
        if isinstance(top, (ast.Lambda, *_COMPREHENSIONS)):
            statement = self._module_statement_at((top.lineno, top.col_offset))
            return [statement] if statement is not None else []
        reaching = {top.name}  # type: ignore[attr-defined]
        frontier = [top.name]  # type: ignore[attr-defined]
        points: dict[int, ast.AST] = {}
        while frontier:
            for where in self._occurrences(frontier.pop()):
                child = self.module.child_around(where)
                node = child.node if child is not None else None
                if child is None or not isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
                    statement = self._module_statement_at(where)
                    if statement is not None:
                        points[id(statement)] = statement
                    continue
                if node is top or node.name in reaching:
                    continue
                if isinstance(node, ast.ClassDef) and not self._in_method(child, where):
                    points[id(node)] = node  # the class body runs where the class is defined
                    continue
                reaching.add(node.name)
                frontier.append(node.name)
        return list(points.values())

    def _occurrences(self, name: str) -> Iterator[tuple[int, int]]:
        """Where ``name`` appears as a word in the file (line, byte column)."""
        pattern = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
        for number, line in enumerate(self._lines, start=1):
            if name in line:
                for match in pattern.finditer(line):
                    yield number, len(line[: match.start()].encode("utf-8"))

    @staticmethod
    def _in_method(owner: ScopeFacts, where: tuple[int, int]) -> bool:
        inner = owner.child_around(where)
        return inner is not None and isinstance(inner.node, (*_FUNCTIONS, ast.Lambda))

    def _module_statement_at(self, where: tuple[int, int]) -> ast.AST | None:
        best = None
        for recorded in self.module.statements():
            if _contains(recorded, where) and (best is None or _span(recorded)[:2] >= _span(best)[:2]):
                best = recorded
        return best

    def _unbound_reason(
        self, name: str, scope: ScopeFacts, where: tuple[int, int], definitions: frozenset[Definition]
    ) -> str:
        place = f"`{scope.name}`" if scope.node is not self.tree else "the module"
        bound = [d for d in definitions if not d.unbinds]
        if any(d.kind == "deleted" for d in definitions):
            return f"`{name}` may have been deleted before this point in {place}"
        if not bound:
            later = sorted(
                n.lineno
                for n in own_nodes(scope.node)
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
            )
            if later:
                return f"`{name}` is a local of {place} assigned only later (line {later[0]})"
            return f"`{name}` is not bound here in {place}"
        return f"`{name}` is bound on some paths to this point in {place} but not on all"

    # -- attributes of ``self`` ----------------------------------------------------------------------
    def self_attribute(self, attr: str, point: Point) -> Binding:
        """Is ``self.<attr>`` certainly set when the method at ``point`` runs?

        In ``__init__``: assigned on every path before ``point``.  In another method: assigned
        on every path through ``__init__``, or a class attribute."""
        scope = self.scope_at(point)
        while scope.parent is not None and not (isinstance(scope.node, _FUNCTIONS) and scope.self_name is not None):
            scope = scope.parent
        if scope.self_name is None or scope.parent is None:
            return Binding(False, reason=f"`{attr}` is not an attribute of a method's instance here")
        path = f"{scope.self_name}.{attr}"
        owner = scope.parent
        assert isinstance(owner.node, ast.ClassDef)
        if owner.is_local(attr):
            return Binding(True)
        node = scope.node
        if node.name == "__init__":  # type: ignore[union-attr]
            found = scope.state_at(self._bytes(point), path) or frozenset({UNBOUND})
            if any(d.unbinds for d in found):
                return Binding(False, found, f"`{path}` is not yet set at this point of `__init__`")
            return Binding(True, found)
        init = next((c for c in owner.children if isinstance(c.node, _FUNCTIONS) and c.node.name == "__init__"), None)
        if init is None or init.self_name is None:
            return Binding(False, reason=f"`{owner.name}` sets no `{attr}` in `__init__`")
        init_path = f"{init.self_name}.{attr}"
        found = init.end(init_path) or frozenset({UNBOUND})
        if any(d.unbinds for d in found):
            return Binding(False, found, f"`{owner.name}.__init__` does not set `{attr}` on every path")
        early = self._called_before_set(owner, init, node.name, init_path)  # type: ignore[union-attr]
        if early is not None:
            return Binding(False, found, f"`__init__` calls `{early}` (which leads here) before it sets `{attr}`")
        return Binding(True, found)

    def _called_before_set(self, owner: ScopeFacts, init: ScopeFacts, method: str, path: str) -> str | None:
        """A method of ``owner`` that ``__init__`` calls while ``path`` is unset and that leads to ``method``."""
        bodies = {c.node.name: c for c in owner.children if isinstance(c.node, _FUNCTIONS)}  # type: ignore[union-attr]
        reaching = {method}
        changed = True
        while changed:
            changed = False
            for name, facts in bodies.items():
                if name not in reaching and _self_calls(facts) & reaching:
                    reaching.add(name)
                    changed = True
        self_name = init.self_name
        for sub in own_nodes(init.node):
            if (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == self_name
                and sub.func.attr in reaching
            ):
                found = init.state_at((sub.lineno, sub.col_offset), path) or frozenset({UNBOUND})
                if any(d.unbinds for d in found):
                    return sub.func.attr
        return None

    # -- what a statement reads and writes (for moving statements) ----------------------------------------
    def statement_names(self, point: Point) -> tuple[set[str], set[str]] | None:
        """The names the statement starting at ``point`` reads and binds (same scope only)."""
        where = self._bytes(point)
        scope = self.scope_at(point)
        statement = next(
            (n for n in scope.statements() if isinstance(n, ast.stmt) and (n.lineno, n.col_offset) == where), None
        )
        if statement is None:
            return None
        reads: set[str] = set()
        writes: set[str] = set()
        for sub in ast.walk(statement):
            if isinstance(sub, ast.Name):
                (reads if isinstance(sub.ctx, ast.Load) else writes).add(sub.id)
            elif isinstance(sub, ast.Attribute):
                dotted = ast_dotted_name(sub)
                if dotted is not None and isinstance(sub.ctx, ast.Store):
                    writes.add(dotted)
        return reads, writes


def _self_calls(facts: ScopeFacts) -> set[str]:
    """The methods a method calls on its own instance (``self.load(...)``)."""
    return {
        sub.func.attr
        for sub in own_nodes(facts.node)
        if isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and isinstance(sub.func.value, ast.Name)
        and sub.func.value.id == facts.self_name
    }
