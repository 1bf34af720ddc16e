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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Union

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
        self.children: list[ScopeFacts] = []
        self.locals: set[str] = set()
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        self._collect_locals()
        self._before: dict[int, State] = {}
        self._recorded: list[ast.AST] = []
        self.end: State | None = None
        self._analysed = False
        self._loops: list[tuple[list[State], list[State]]] = []
        self._collectors: list[list[State]] = []

    @property
    def name(self) -> str:
        return getattr(self.node, "name", type(self.node).__name__.lower())

    @property
    def is_function(self) -> bool:
        return isinstance(self.node, (*_FUNCTIONS, ast.Lambda))

    # -- local names ------------------------------------------------------------------
    def _collect_locals(self) -> None:
        node = self.node
        if isinstance(node, (*_FUNCTIONS, ast.Lambda)):
            self.locals.update(a.arg for a in parameter_names(node.args))
        if isinstance(node, _COMPREHENSIONS):
            for generator in node.generators:
                self.locals.update(n.id for n in target_names(generator.target))
        for sub in own_nodes(node):
            if isinstance(sub, ast.Global):
                self.declared_global.update(sub.names)
            elif isinstance(sub, ast.Nonlocal):
                self.declared_nonlocal.update(sub.names)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                self.locals.add(sub.id)
            elif isinstance(sub, (*_FUNCTIONS, ast.ClassDef)):
                self.locals.add(sub.name)
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                for alias in sub.names:
                    if alias.name != "*":
                        self.locals.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(sub, ast.ExceptHandler) and sub.name:
                self.locals.add(sub.name)
            elif isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                self.locals.add(sub.target.id)
            elif type(sub).__name__ in ("MatchAs", "MatchStar", "MatchMapping"):
                captured = getattr(sub, "rest", None) if type(sub).__name__ == "MatchMapping" else sub.name
                if captured:
                    self.locals.add(captured)
        if isinstance(node, _COMPREHENSIONS):
            # Walrus targets in a comprehension bind in the enclosing function, not here.
            self.locals.difference_update(
                n.target.id for n in _comprehension_walruses(node) if isinstance(n.target, ast.Name)
            )
        self.locals -= self.declared_global | self.declared_nonlocal

    def is_local(self, name: str) -> bool:
        return name in self.locals

    # -- reaching definitions -----------------------------------------------------------
    def _entry(self) -> State:
        state: State = {name: frozenset({UNBOUND}) for name in self.locals}
        node = self.node
        if isinstance(node, (*_FUNCTIONS, ast.Lambda)):
            for arg in parameter_names(node.args):
                state[arg.arg] = frozenset({Definition(arg.lineno, arg.col_offset, "param")})
        if isinstance(node, _COMPREHENSIONS):
            for generator in node.generators:
                for target in target_names(generator.target):
                    state[target.id] = frozenset({Definition(target.lineno, target.col_offset, "for")})
        if self.self_name is not None:
            for path in self._tracked_paths():
                state[path] = frozenset({UNBOUND})
        return state

    def _tracked_paths(self) -> set[str]:
        paths = set()
        for sub in own_nodes(self.node):
            if (
                isinstance(sub, ast.Attribute)
                and isinstance(sub.ctx, ast.Store)
                and isinstance(sub.value, ast.Name)
                and sub.value.id == self.self_name
            ):
                paths.add(f"{self.self_name}.{sub.attr}")
        return paths

    def analyse(self) -> None:
        if self._analysed:
            return
        self._analysed = True
        node = self.node
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            self.end = self._entry()
            return
        self.end = self._block(node.body, self._entry())  # type: ignore[attr-defined]

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

    # -- lookups -------------------------------------------------------------------------
    def state_at(self, point: tuple[int, int]) -> State | None:
        """The definitions reaching ``point`` (a byte-column position inside this scope's own code)."""
        self.analyse()
        if isinstance(self.node, (ast.Lambda, *_COMPREHENSIONS)):
            return self.end
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
        return state


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
        self._scopes: dict[int, ScopeFacts] = {id(tree): self.module}
        self._build(self.module)
        self._closure_cache: dict[int, set[str]] = {}

    # -- the scope tree ---------------------------------------------------------------------
    def _build(self, scope: ScopeFacts) -> None:
        for sub in own_nodes(scope.node):
            child_nodes: list[ast.AST] = []
            if isinstance(sub, (*_FUNCTIONS, ast.ClassDef, ast.Lambda, *_COMPREHENSIONS)):
                child_nodes.append(sub)
            for child in child_nodes:
                self_name = None
                if isinstance(child, _FUNCTIONS) and isinstance(scope.node, ast.ClassDef):
                    params = [*child.args.posonlyargs, *child.args.args]
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in child.decorator_list)
                    self_name = params[0].arg if params and not static else None
                facts = ScopeFacts(child, scope, self_name)  # type: ignore[arg-type]
                scope.children.append(facts)
                self._scopes[id(child)] = facts
                self._build(facts)

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
            inner = next((c for c in scope.children if self._inner_contains(c, where)), None)
            if inner is None:
                return scope
            scope = inner

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
            state = scope.state_at(where)
            definitions = state.get(name, frozenset()) if state is not None else frozenset({UNBOUND})
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
            if name in module.declared_global or any(name in s.declared_global for s in self._all_scopes()):
                return Binding(False, reason=f"`{name}` is only bound where a function declares it `global`")
            return Binding(False, reason=f"`{name}` is not defined in this file")
        module.analyse()
        top = self._top_definition(where)
        points = self._trigger_points(top) if top is not None else []
        definitions: set[Definition] = set()
        for trigger in points:
            state = module.state_at((trigger.lineno, trigger.col_offset))  # type: ignore[attr-defined]
            found = state.get(name, frozenset({UNBOUND})) if state is not None else frozenset()
            if any(d.unbinds for d in found):
                line = trigger.lineno  # type: ignore[attr-defined]
                return Binding(
                    False,
                    frozenset(found),
                    f"`{name}` is not yet bound at module level where line {line} may call this code",
                    module.node,
                )
            definitions |= found
        end = module.end
        if end is not None:
            found = end.get(name, frozenset({UNBOUND}))
            if any(d.unbinds for d in found):
                return Binding(
                    False,
                    frozenset(found),
                    f"`{name}` is not bound at module level on every path (an importer may call this code)",
                    module.node,
                )
            definitions |= found
        return Binding(True, frozenset(definitions), None, module.node)

    def _all_scopes(self) -> Iterator[ScopeFacts]:
        stack = [self.module]
        while stack:
            scope = stack.pop()
            yield scope
            stack.extend(scope.children)

    def _top_definition(self, where: tuple[int, int]) -> ast.AST | None:
        """The module-scope ``def``/``class`` whose code holds ``where``."""
        for child in self.module.children:
            node = child.node
            if isinstance(node, (*_FUNCTIONS, ast.ClassDef)) and _contains(node, where):
                return node
            if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)) and _contains(node, where):
                return node
        return None

    def _trigger_points(self, top: ast.AST) -> list[ast.AST]:
        """Module-level code that may run ``top``: statements naming it, or naming a module-level
        function or class that (transitively) names it.  A module-level lambda or comprehension runs
        where it is written."""
        if isinstance(top, (ast.Lambda, *_COMPREHENSIONS)):
            statement = self._module_statement_at(top)
            return [statement] if statement is not None else []
        definitions = [c.node for c in self.module.children if isinstance(c.node, (*_FUNCTIONS, ast.ClassDef))]
        reaching = {top.name}  # type: ignore[attr-defined]
        changed = True
        while changed:
            changed = False
            for node in definitions:
                if node.name not in reaching and _names_used(node) & reaching:  # type: ignore[union-attr]
                    reaching.add(node.name)  # type: ignore[union-attr]
                    changed = True
        points: list[ast.AST] = []
        for node in own_nodes(self.tree):
            if isinstance(node, ast.Name) and node.id in reaching and isinstance(node.ctx, ast.Load):
                statement = self._module_statement_at(node)
                if statement is not None:
                    points.append(statement)
        # A class body runs where the class is defined.
        for node in definitions:
            if isinstance(node, ast.ClassDef) and node.name not in reaching and _class_body_names(node) & reaching:
                points.append(node)
        return points

    def _module_statement_at(self, node: ast.AST) -> ast.AST | None:
        where = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        self.module.analyse()
        best = None
        for recorded in self.module._recorded:
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
            state = scope.state_at(self._bytes(point))
            found = state.get(path, frozenset({UNBOUND})) if state is not None else frozenset({UNBOUND})
            if any(d.unbinds for d in found):
                return Binding(False, found, f"`{path}` is not yet set at this point of `__init__`")
            return Binding(True, found)
        init = next((c for c in owner.children if isinstance(c.node, _FUNCTIONS) and c.node.name == "__init__"), None)
        if init is None or init.self_name is None:
            return Binding(False, reason=f"`{owner.name}` sets no `{attr}` in `__init__`")
        init.analyse()
        end = init.end
        init_path = f"{init.self_name}.{attr}"
        found = end.get(init_path, frozenset({UNBOUND})) if end is not None else frozenset({UNBOUND})
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
                state = init.state_at((sub.lineno, sub.col_offset))
                found = state.get(path, frozenset({UNBOUND})) if state is not None else frozenset({UNBOUND})
                if any(d.unbinds for d in found):
                    return sub.func.attr
        return None

    # -- what a statement reads and writes (for moving statements) ----------------------------------------
    def statement_names(self, point: Point) -> tuple[set[str], set[str]] | None:
        """The names the statement starting at ``point`` reads and binds (same scope only)."""
        where = self._bytes(point)
        scope = self.scope_at(point)
        scope.analyse()
        statement = next(
            (n for n in scope._recorded if isinstance(n, ast.stmt) and (n.lineno, n.col_offset) == where), None
        )
        if statement is None:
            return None
        reads: set[str] = set()
        writes: set[str] = set()
        for sub in ast.walk(statement):
            if isinstance(sub, ast.Name):
                (reads if isinstance(sub.ctx, ast.Load) else writes).add(sub.id)
            elif isinstance(sub, ast.Attribute):
                dotted = _dotted(sub)
                if dotted is not None and isinstance(sub.ctx, ast.Store):
                    writes.add(dotted)
        return reads, writes


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


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


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _class_body_names(node: ast.ClassDef) -> set[str]:
    """Names a class body reads while the class is being defined (its methods' bodies excluded)."""
    found = set()
    for sub in own_nodes(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            found.add(sub.id)
    return found
