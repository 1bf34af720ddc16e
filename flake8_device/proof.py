"""A fix is a proof: what a fix assumes about names, checked before it is offered.

Rules build fixes from what the device analysis knows; this module checks
what every fix takes for granted about *names*, the same way for every rule:

- every name an edit inserts (``map_location=device``, ``device=h.device``,
  a ``.to(device)`` copied from the model's move, a statement moved up) is
  certainly bound where the edited code runs, on every path (not a local
  assigned further down, not a global defined after the module-level call
  that runs this code, not an attribute ``__init__`` sets later);
- a copied expression's names still hold what they held where it was copied
  from (no rebinding between the move and the edit: a reaching-definitions
  fact from :mod:`.analysis.bindings`);
- an assignment a fix adds never turns a global (or closure) name into a
  local of the function, which would make its earlier reads fail;
- two statements a fix swaps do not depend on each other (beyond the value the
  swap is about).

A fix that fails is downgraded to display-only, with the reason.  Rules ask
the same questions while choosing a fix (DEV401 falls back to ``"cpu"`` when no
device name is proven bound).  What a fix assumes about *values* (a tensor
for ``.to()``, a ``torch.device`` for ``.type``) is type evidence, which the
rules check with :mod:`.analysis.types`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Protocol

import libcst as cst
from libcst.metadata import CodeRange

from flake8_device.analysis.bindings import Binding, FileBindings, Point, target_names
from flake8_device.analysis.facts import FileFacts
from flake8_device.analysis.types import INSTANCE_ATTRIBUTES
from flake8_device.model import Fix, FixSafety, InsertImport, ReplaceNode, SwapStatements


class ProofFacts(FileFacts, Protocol):
    """What proofs read of the file besides the analyses' facts (``FileContext`` has them)."""

    @property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]: ...

    @property
    def bindings(self) -> FileBindings | None: ...

    def original_line(self, line: int) -> int: ...


_PLACEHOLDER = "__flake8_device_kept_{}__"


class FixProof:
    """The proof obligations of fixes in one file (names bound, unchanged, independent)."""

    def __init__(self, ctx: ProofFacts) -> None:
        self.ctx = ctx

    # -- positions --------------------------------------------------------------------------
    def _range(self, node: cst.CSTNode) -> CodeRange | None:
        return self.ctx.positions.get(node)

    def point(self, node: cst.CSTNode) -> Point | None:
        """Where ``node`` starts in the original file (line, character column)."""
        where = self._range(node)
        if where is None:
            return None
        return self.ctx.original_line(where.start.line), where.start.column

    def _inside(self, part: cst.CSTNode, whole: cst.CSTNode) -> bool:
        inner, outer = self._range(part), self._range(whole)
        if inner is None or outer is None:
            return False
        start = (inner.start.line, inner.start.column) >= (outer.start.line, outer.start.column)
        end = (inner.end.line, inner.end.column) <= (outer.end.line, outer.end.column)
        return start and end

    def node_at(self, where: ast.AST, kind: type[cst.CSTNode]) -> cst.CSTNode | None:
        """The LibCST node of ``kind`` spanning what the ``ast`` node ``where`` spans (if it was parsed)."""
        bindings = self.bindings
        if bindings is None:
            return None
        span = (bindings.point_of(where), bindings.end_point_of(where))
        line = self.ctx.original_line
        for node, found in self.ctx.positions.items():
            start, end = (line(found.start.line), found.start.column), (line(found.end.line), found.end.column)
            if isinstance(node, kind) and (start, end) == span:
                return node
        return None

    @property
    def bindings(self) -> FileBindings | None:
        return self.ctx.bindings

    # -- questions rules ask -----------------------------------------------------------------
    def binding(self, name: str, at: cst.CSTNode) -> Binding | None:
        """How ``name`` is bound where ``at`` runs (None when that place is unknown)."""
        point = self.point(at)
        bindings = self.bindings
        if point is None or bindings is None:
            return None
        return bindings.binding(name, point)

    def unbound(self, expression: str, at: cst.CSTNode, *, provided: Iterable[str] = ()) -> str | None:
        """Why some name of ``expression`` (source text) may be unbound at ``at``; None when all are bound."""
        point = self.point(at)
        bindings = self.bindings
        if point is None or bindings is None:
            return "the fix's position is unknown"
        tree = _parse_fragment(expression)
        if tree is None:
            return "the inserted code could not be read"
        return self._unbound_names(tree, point, frozenset(provided))

    def _unbound_names(self, tree: ast.AST, point: Point, provided: frozenset[str]) -> str | None:
        bindings = self.bindings
        assert bindings is not None
        for name in _loaded_names(tree):
            if name.startswith("__flake8_device_kept_") or name in provided:
                continue
            found = bindings.binding(name, point)
            if not found.bound:
                return found.reason or f"`{name}` may be unbound here"
        return self._unset_self_attributes(tree, point)

    def _unset_self_attributes(self, tree: ast.AST, point: Point) -> str | None:
        """``self.<attr>`` inserted in a method: set by the class, or a known attribute of its base."""
        bindings = self.bindings
        assert bindings is not None
        scope = bindings.scope_at(point)
        while scope.parent is not None and scope.self_name is None:
            scope = scope.parent
        self_name = scope.self_name
        if self_name is None or scope.parent is None:
            return None
        owner = scope.parent.node
        class_name = getattr(owner, "name", "")
        inherited = self._inherited_attributes(class_name)
        methods = {n.name for n in getattr(owner, "body", ()) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
                continue
            if node.value.id != self_name or node.attr in inherited or node.attr in methods:
                continue
            found = bindings.self_attribute(node.attr, point)
            if not found.bound:
                return found.reason or f"`{self_name}.{node.attr}` may not be set here"
        return None

    def _inherited_attributes(self, class_name: str) -> frozenset[str]:
        symbols = self.ctx.symbols
        if symbols.is_lightning_module_class(class_name):
            return INSTANCE_ATTRIBUTES["lightning"]
        if symbols.is_local_module_class(class_name):
            return INSTANCE_ATTRIBUTES["module"]
        return frozenset()

    def changed_since(self, expression: str, source: cst.CSTNode, at: cst.CSTNode) -> str | None:
        """Why a name of ``expression`` may hold something else at ``at`` than at ``source``."""
        bindings = self.bindings
        here, there = self.point(at), self.point(source)
        tree = _parse_fragment(expression)
        if bindings is None or here is None or there is None or tree is None:
            return "where the copied expression comes from is unknown"
        for name in _loaded_names(tree):
            if name.startswith("__flake8_device_kept_"):
                continue
            now, then = bindings.binding(name, here), bindings.binding(name, there)
            if now.definitions != then.definitions or not now.bound:
                line = there[0]
                return f"`{name}` may have been rebound since line {line}, where the fix copies it from"
        return None

    def rebound_since_entry(self, name: str, at: cst.CSTNode) -> bool:
        """Has the parameter ``name`` been rebound (on some path) before ``at``?"""
        found = self.binding(name, at)
        return found is None or not found.bound or any(d.kind != "param" for d in found.definitions)

    # -- checking a whole fix ------------------------------------------------------------------
    def verify(self, fix: Fix) -> Fix:
        """``fix`` as it may be offered: unchanged when its proof holds, else display-only with the reason."""
        if fix.safety not in (FixSafety.SAFE, FixSafety.UNSAFE) or not fix.edits:
            return fix
        provided = frozenset(n for e in fix.edits if isinstance(e, InsertImport) for n in _imported_names(e))
        for edit in fix.edits:
            failure = None
            if isinstance(edit, ReplaceNode):
                failure = self._replace_failure(edit, fix, provided)
            elif isinstance(edit, SwapStatements):
                failure = self._swap_failure(edit)
            if failure is not None:
                return replace(fix, safety=FixSafety.DISPLAY_ONLY, reason=failure)
        return fix

    def _replace_failure(self, edit: ReplaceNode, fix: Fix, provided: frozenset[str]) -> str | None:
        point = self.point(edit.node)
        if point is None or self.bindings is None:
            return None  # the engine cannot place it either, and drops it
        inserted: list[str] = []
        kept = 0
        with_kept_code: list[str] = []
        for part in edit.parts:
            if isinstance(part, str):
                inserted.append(part)
                with_kept_code.append(part)
            elif part is edit.node or self._inside(part, edit.node):
                inserted.append(_PLACEHOLDER.format(kept))
                kept += 1
                with_kept_code.append(
                    f"({self.ctx.code_for(part)})" if _needs_parens(part) else self.ctx.code_for(part)
                )
            else:
                code = f"({self.ctx.code_for(part)})"
                inserted.append(code)
                with_kept_code.append(code)
        text = "".join(inserted)
        statement = isinstance(edit.node, (cst.BaseSmallStatement, cst.BaseStatement))
        tree = _parse_fragment(text, statement=statement)
        if tree is None:
            return "the code the fix inserts could not be read, so its names are not proven bound"
        failure = self._unbound_names(tree, point, provided)
        if failure is not None:
            return failure
        whole = _parse_fragment("".join(with_kept_code), statement=statement)
        if whole is not None:
            failure = self._new_local(whole, point)
            if failure is not None:
                return failure
        if fix.source is not None:
            return self.changed_since(text, fix.source, edit.node)
        return None

    def _new_local(self, tree: ast.AST, point: Point) -> str | None:
        """An assignment the fix adds must not make a function's global (or closure) name local."""
        bindings = self.bindings
        assert bindings is not None
        scope = bindings.scope_at(point)
        if not scope.is_function:
            return None
        for statement in tree.body if isinstance(tree, ast.Module) else ():
            targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
            if not isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                continue
            for name in (n for t in targets if t is not None for n in target_names(t)):
                if scope.is_local(name.id) or name.id in scope.declared_global | scope.declared_nonlocal:
                    continue
                return f"assigning `{name.id}` would make it a local of `{scope.name}`, unbound where it is read before"
        return None

    def _swap_failure(self, edit: SwapStatements) -> str | None:
        bindings = self.bindings
        first, second = self.point(edit.first), self.point(edit.second)
        if bindings is None or first is None or second is None:
            return "the statements' positions are unknown"
        names_first = bindings.statement_names(first)
        names_second = bindings.statement_names(second)
        if names_first is None or names_second is None:
            return "the statements could not be read"
        reads_first, writes_first = names_first
        reads_second, writes_second = names_second
        conflicts = ((writes_first & (reads_second | writes_second)) | (writes_second & reads_first)) - edit.shared
        if conflicts:
            return f"the two statements depend on each other through `{min(conflicts)}`"
        for name in sorted(reads_second - edit.shared):
            found = bindings.binding(name, first)
            if not found.bound:
                return found.reason or f"`{name}` may be unbound where the statement would move"
        return None

    # -- one value, one fix ------------------------------------------------------------------------
    def subject_key(self, subject: cst.BaseExpression) -> str | None:
        """The value a fix repairs, as a key: its name and the definitions reaching it there."""
        from flake8_device.analysis.symbols import dotted_name

        path = dotted_name(subject)
        point = self.point(subject)
        bindings = self.bindings
        if path is None or point is None or bindings is None:
            return None
        root = path.split(".")[0]
        found = bindings.binding(root, point)
        definitions = sorted((d.line, d.column, d.kind) for d in found.definitions)
        scope = bindings.scope_at(point)
        return f"{id(scope.node)}:{path}:{definitions}"


def _needs_parens(node: cst.CSTNode) -> bool:
    return not isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))


def _parse_fragment(text: str, *, statement: bool = False) -> ast.AST | None:
    """Inserted code as a tree: statements (where a statement is replaced), else an expression, an
    argument list, or a suffix (``.to(device)``)."""
    attempts = [(text, "exec")] if statement else [(text, "eval"), (f"_({text})", "eval"), (f"_{text}", "eval")]
    for attempt, mode in attempts:
        try:
            return ast.parse(attempt.strip(), mode=mode)
        except (SyntaxError, ValueError):
            continue
    return None


def _loaded_names(tree: ast.AST) -> Iterator[str]:
    """Names read by ``tree``, except those its own lambdas and comprehensions bind."""
    bound_inside: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            bound_inside.update(a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs])
        elif isinstance(node, ast.comprehension):
            bound_inside.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    seen: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound_inside:
            if node.id not in seen and node.id != "_":
                seen.add(node.id)
                yield node.id


def _imported_names(edit: InsertImport) -> Iterator[str]:
    try:
        tree = ast.parse(edit.statement)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                yield alias.asname or alias.name.split(".")[0]
