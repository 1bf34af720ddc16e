"""What a file saves with ``torch.save``, and where its ``torch.load`` results go.

A ``torch.load`` without ``map_location`` is a bug only when the file it reads can
hold accelerator tensors *and* the code can run where that accelerator is not.
Neither shows in the call; both show around it, in the same file:

- **what was saved**: a ``torch.save`` in the file whose path matches the load's
  (the same expression, file name, constant or path helper) tells what the file
  holds: the ``state_dict()`` of a model moved to a device, or tensors moved to
  the CPU (``x.cpu()``), shapes and numbers;
- **where the result goes**: into ``m.load_state_dict(...)`` of a model moved to a
  device (here, in the class, or by the caller that receives the model), or moved
  itself (``checkpoint["encoder"].to(device)``);
- **what the code around it knows**: another ``torch.load`` beside it maps its
  tensors (``map_location=...``), or the loaded dictionary is a training
  checkpoint (it holds optimizer state or Lightning's ``hyper_parameters``),
  written by a training loop on the device it trained on;
- **where the path comes from**: in-memory bytes (``io.BytesIO``), a file shipped
  with the package (a path built from ``__file__``) or downloaded (a URL, a
  ``*download*`` helper) is a published artifact, not a checkpoint of this run.

Moves to a CUDA literal (``.cuda()``, ``.to("cuda")``) say the code only runs on
CUDA, where the load works: they are no evidence.  Everything is read from the
``ast`` of the whole file (the LibCST tree holds only the selected units), once
per file, and looked up by the rules per call.

The fix needs a device name that is *definitely bound* at the load, in that
scope, on every path: a parameter, a local assigned on every path before the
load (:mod:`flake8_device.analysis.bound_names`), a module-level name assigned
before the function's definition (and never bound locally), or ``self.<attr>``
assigned at the top level of ``__init__``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Optional

from flake8_device.analysis import torch_api
from flake8_device.analysis.bound_names import EVERYTHING, Chain, block_binds, bound_before, target_names
from flake8_device.analysis.symbols import Symbols, ast_dotted_name
from flake8_device.source import LineIndex

if TYPE_CHECKING:
    from flake8_device.analysis.facts import FileFacts

Path = tuple[str, ...]
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

# Objects whose state holds numbers only: LR schedulers and gradient scalers, recognised by
# how they were built, or else by the name they are given (their type is not written anywhere).
_STATELESS_NAME = re.compile(r"sched|scaler", re.I)
_STATELESS_CLASSES = re.compile(
    r"^torch\.(?:optim\.lr_scheduler\.\w+|(?:cuda\.)?amp\.GradScaler|amp\.grad_scaler\.\w+)$"
)
# Keys only a training loop writes: optimizer state, the weights' moving average (EMA) it keeps
# beside the model, and Lightning's checkpoint layout.
TRAINING_KEYS = frozenset(
    {
        "optimizer",
        "optimizer_state",
        "optimizer_states",
        "optimizer_state_dict",
        "ema",
        "ema_state_dict",
        "model_ema",
        "state_dict_ema",
        "hyper_parameters",
    }
)
# Where a published artifact's path comes from.
_DOWNLOAD = re.compile(r"download|urlretrieve|cached_path|get_file$", re.I)
# Calls whose result holds no device tensors (host copies, Python values).
_HOST_METHODS = frozenset({"cpu", "numpy", "tolist", "item", "size", "dim", "numel", "keys"})
_HOST_ATTRIBUTES = frozenset({"shape", "dtype", "ndim"})
# A file name in a path: ``"disc_heads.pt"``, ``"{i}_transform.pt"`` (at least one character before the dot).
_FILE_NAME = re.compile(r"([\w\-%{}]*\w[\w\-%{}]*\.[A-Za-z]\w{0,7})$")


@dataclass(frozen=True)
class Move:
    """``x.to(device)`` and the like: where a value was sent, and whether that tells anything."""

    kind: str  # "device" (an expression that may be any device), "cpu", "cuda" (a CUDA-only literal)
    device: str  # as written: ``device``, ``self.accelerator.device``, ``"cpu"``
    line: int


@dataclass(frozen=True)
class Evidence:
    """Why a load's file may hold accelerator tensors that this code may not have."""

    reason: str  # for the message: "line 276 saves `netG.state_dict()` of a model moved to `device`"
    device: Optional[str] = None  # a device expression the fix could map to


@dataclass
class LoadFacts:
    """What DEV401 needs to know about one ``torch.load`` without ``map_location``."""

    evidence: Optional[Evidence] = None
    # Why the load is certainly fine (in-memory bytes, host tensors saved, ...), when it is.
    quiet: Optional[str] = None
    # The device to map to and whether the name is definitely bound at the load.
    device: Optional[str] = None
    device_bound: bool = False
    # Whether the device's name is bound anywhere this code can see (a local on some paths, a
    # global, an attribute set somewhere): an unproven fix is then unsafe, not display-only.
    device_visible: bool = False
    # The loaded state is copied into a model (``load_state_dict``) or moved afterwards, so
    # ``map_location="cpu"`` cannot change where it ends up.
    cpu_fits: bool = False


@dataclass
class _Scope:
    """One function (or the module's or a class body's own statements)."""

    path: Path
    node: ast.AST  # FunctionDef, ClassDef or Module
    body: list[ast.stmt]
    params: tuple[str, ...] = ()
    # (expression node, chain of (block, index) down to the statement holding it)
    calls: list[tuple[ast.Call, tuple[tuple[list[ast.stmt], int], ...]]] = field(default_factory=list)
    assigns: list[tuple[ast.expr, ast.AST, int]] = field(default_factory=list)  # (target, value, line)
    returns: list[ast.expr] = field(default_factory=list)
    with_items: list[ast.withitem] = field(default_factory=list)
    loops: list[tuple[ast.expr, ast.expr]] = field(default_factory=list)  # (target, iterable)
    compares: list[ast.Compare] = field(default_factory=list)
    subscripts: list[ast.Subscript] = field(default_factory=list)


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - an odd node only loses its description
        return ""


def _short(node: ast.AST, limit: int = 50) -> str:
    text = " ".join(_text(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def normalized(code: str) -> str:
    """A call's source without any whitespace: the key both trees agree on."""
    return "".join(code.split())


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _value_names(node: ast.AST) -> set[str]:
    """Names in ``node`` used as values: not an attribute's owner, not a called function."""
    skipped = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute):
            skipped.add(id(inner.value))
        elif isinstance(inner, ast.Call):
            skipped.add(id(inner.func))
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in skipped}


def _root(node: ast.AST) -> ast.AST:
    """``x`` for ``x["a"].b[0]`` and ``x.foo().bar``: what a chain of accesses starts from."""
    while True:
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return node


class _Collector:
    """Walks one scope's statements (not nested definitions), keeping the statement chain of each call."""

    def __init__(self, scope: _Scope) -> None:
        self.scope = scope

    def block(self, body: list[ast.stmt], chain: tuple[tuple[list[ast.stmt], int], ...]) -> None:
        for index, statement in enumerate(body):
            here = (*chain, (body, index))
            if isinstance(statement, _SCOPES):
                for decorator in statement.decorator_list:
                    self.expression(decorator, here)
                continue
            self.statement(statement, here)

    def statement(self, statement: ast.stmt, chain: tuple[tuple[list[ast.stmt], int], ...]) -> None:
        scope = self.scope
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                scope.assigns.append((target, statement.value, statement.lineno))
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            scope.assigns.append((statement.target, statement.value, statement.lineno))
        elif isinstance(statement, ast.Return) and statement.value is not None:
            scope.returns.append(statement.value)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            scope.loops.append((statement.target, statement.iter))
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            scope.with_items.extend(statement.items)
        for name, value in ast.iter_fields(statement):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self.block(value, chain)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.excepthandler):
                        self.block(item.body, chain)
                    elif hasattr(ast, "match_case") and isinstance(item, ast.match_case):
                        self.block(item.body, chain)
                    elif isinstance(item, ast.AST) and not isinstance(item, ast.stmt):
                        self.expression(item, chain)
            elif isinstance(value, ast.AST):
                self.expression(value, chain)

    def expression(self, node: ast.AST, chain: tuple[tuple[list[ast.stmt], int], ...]) -> None:
        scope = self.scope
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                scope.calls.append((inner, chain))
            elif isinstance(inner, ast.Compare):
                scope.compares.append(inner)
            elif isinstance(inner, ast.Subscript):
                scope.subscripts.append(inner)
            elif isinstance(inner, ast.Yield) and inner.value is not None:
                scope.returns.append(inner.value)
            elif isinstance(inner, ast.NamedExpr):
                scope.assigns.append((inner.target, inner.value, inner.lineno))
            elif isinstance(inner, ast.comprehension):
                scope.loops.append((inner.target, inner.iter))


# -- the file's facts -----------------------------------------------------------------------


class FileSerialization:
    """The saves, moves and loads of one file; :meth:`load` answers per ``torch.load`` call."""

    def __init__(self, tree: ast.Module, symbols: Symbols, index: LineIndex) -> None:
        self.tree = tree
        self.symbols = symbols
        self.text = index.text
        self.scopes: dict[Path, list[_Scope]] = {}
        self.classes: dict[Path, ast.ClassDef] = {}
        self.definitions: dict[str, list[_Scope]] = {}  # function name -> its scopes (any class)
        self._parents: dict[int, _Scope] = {}
        self._add_scope((), tree, tree.body, ())
        self._walk_definitions(tree.body, ())
        self.saves = [
            (call, chain, scope)
            for scope in self._all_scopes()
            for call, chain in scope.calls
            if self._qualified(call.func) == "torch.save"
        ]
        self._loads: dict[tuple[Path, str], list[LoadFacts]] = {}
        for scope in self._all_scopes():
            for call, chain in scope.calls:
                if self.is_unmapped_load(call):
                    key = (scope.path, normalized(_segment(index, call)))
                    self._loads.setdefault(key, []).append(self._judge(call, chain, scope))

    # -- building ----------------------------------------------------------------------------
    def _add_scope(self, path: Path, node: ast.AST, body: list[ast.stmt], params: tuple[str, ...]) -> _Scope:
        scope = _Scope(path, node, body, params)
        _Collector(scope).block(body, ())
        if isinstance(node, _DEFS):
            arguments = node.args
            for default in [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]:
                _Collector(scope).expression(default, ())
        self.scopes.setdefault(path, []).append(scope)
        return scope

    def _walk_definitions(self, body: Iterable[ast.stmt], path: Path) -> None:
        for statement in body:
            if isinstance(statement, _DEFS):
                inner = (*path, statement.name)
                arguments = statement.args
                params = tuple(
                    a.arg
                    for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
                    + tuple(x for x in (arguments.vararg, arguments.kwarg) if x is not None)
                )
                scope = self._add_scope(inner, statement, statement.body, params)
                self.definitions.setdefault(statement.name, []).append(scope)
                self._walk_definitions(statement.body, inner)
            elif isinstance(statement, ast.ClassDef):
                inner = (*path, statement.name)
                self.classes[inner] = statement
                self._add_scope(inner, statement, statement.body, ())
                self._walk_definitions(statement.body, inner)
            else:
                for block in ("body", "orelse", "finalbody"):
                    inner_body = getattr(statement, block, None)
                    if isinstance(inner_body, list):
                        self._walk_definitions(inner_body, path)
                for handler in getattr(statement, "handlers", ()):
                    self._walk_definitions(handler.body, path)

    def _all_scopes(self) -> Iterator[_Scope]:
        for scopes in self.scopes.values():
            yield from scopes

    def _qualified(self, node: ast.AST) -> str | None:
        return self.symbols.qualify_dotted(ast_dotted_name(node))  # type: ignore[arg-type]

    def is_unmapped_load(self, call: ast.Call) -> bool:
        if self._qualified(call.func) != "torch.load":
            return False
        if any(k.arg == "map_location" or k.arg is None for k in call.keywords):
            return False
        if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > 1:
            return False
        return bool(call.args) or any(k.arg == "f" for k in call.keywords)

    # -- lookup ------------------------------------------------------------------------------
    def load(self, path: Path, code: str, ordinal: int) -> LoadFacts | None:
        found = self._loads.get((path, normalized(code)))
        if not found:
            return None
        return found[min(ordinal, len(found) - 1)]

    # -- judging one load --------------------------------------------------------------------
    def _judge(self, call: ast.Call, chain: tuple[tuple[list[ast.stmt], int], ...], scope: _Scope) -> LoadFacts:
        facts = LoadFacts()
        source = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "f")
        quiet = self._quiet_source(source, scope) or self._guarded(chain)
        if quiet is None and (_SHARDED_CODE.search(self.text) or self._xla_code):
            quiet = "FSDP or XLA checkpoint code runs only on the accelerators that wrote the files"
        if quiet is not None:
            facts.quiet = quiet
            return facts

        flow = _ResultFlow(self, call, scope)
        if flow.stateless is not None and not flow.receivers and not flow.moves:
            facts.quiet = f"`{flow.stateless}` holds numbers only (an LR scheduler or gradient scaler)"
            return facts
        facts.cpu_fits = bool(flow.receivers) or bool(flow.moves)

        saved = self._matching_saves(source, scope)
        kinds = [self._saved_kind(save, save_scope) for save, _, save_scope in saved]
        if saved and all(kind[0] == "host" for kind in kinds):
            line = saved[0][0].lineno
            facts.quiet = f"line {line} saves host values (`{_short(saved[0][0].args[0]) if saved[0][0].args else ''}`)"
            return facts

        if saved and all(save_scope is scope for _, _, save_scope in saved):
            line = saved[0][0].lineno
            facts.quiet = f"line {line} of the same code writes this file, which is read back on the same machine"
            return facts
        owner = _owner(scope.path, self.classes)
        if (
            saved
            and owner is not None
            and all(_owner(s.path, self.classes) == owner for _, _, s in saved)
            and not any(kind == "device" for kind, _ in kinds)
        ):
            facts.quiet = f"line {saved[0][0].lineno} of the same class writes this file (a cache read back)"
            return facts

        evidence: list[Evidence] = []
        for what, move in flow.all_moves():
            if move.kind == "device":
                evidence.append(Evidence(f"`{what}` is moved to `{move.device}` (line {move.line})", move.device))
        mapped = self._mapped_sibling(call, chain, scope) if flow.receivers else None
        if mapped is not None:
            location = _map_location(mapped)
            named = _text(location) if isinstance(location, (ast.Name, ast.Attribute)) else None
            evidence.append(Evidence(f"line {mapped.lineno} loads with `map_location={_short(location)}`", named))
        for (save, _, _), (kind, move) in zip(saved, kinds):
            if kind == "device" and move is not None and move.kind == "device":
                reason = f"line {save.lineno} saves `{_short(save.args[0])}` from `{move.device}`"
                evidence.append(Evidence(reason, move.device))
        key = flow.training_key()
        cuda_only = bool(flow.all_moves()) and all(m.kind == "cuda" for _, m in flow.all_moves())
        if key is not None and not cuda_only:
            evidence.append(Evidence(f"it is a training checkpoint (it holds `{key}`), saved where training ran"))
        if not evidence and not saved and not cuda_only:
            # A file the callers name (``load_weights("weights.pt")``) that the file saves from a device.
            evidence += self._saved_by_callers_path(source, scope)
        if not evidence and flow.receivers and not saved and not cuda_only:
            device_save = self._device_state_saved()
            if device_save is not None:
                save, move = device_save
                evidence.append(
                    Evidence(
                        f"line {save.lineno} saves `{_short(save.args[0])}` from `{move.device}`",
                        move.device if move.kind == "device" else None,
                    )
                )
        if not evidence:
            return facts
        facts.evidence = evidence[0]
        for item in evidence:
            if item.device is not None and self.bound_at(item.device, chain, scope):
                facts.device, facts.device_bound = item.device, True
                break
        else:
            facts.device = next((e.device for e in evidence if e.device is not None), None)
            facts.device_visible = facts.device is not None and self._visible(facts.device, scope)
        return facts

    @cached_property
    def _xla_code(self) -> bool:
        """XLA checkpoint code: ``torch_xla`` imported at the top of the file, unconditionally.  A
        file that imports it only where a TPU is found (accelerate's ``checkpointing.py``) runs on
        every other device too."""
        return any(
            isinstance(statement, (ast.Import, ast.ImportFrom))
            and any(name.startswith("torch_xla") for name in _imported_modules(statement))
            for statement in self.tree.body
        )

    def _visible(self, device: str, scope: _Scope) -> bool:
        """Is the root name of ``device`` bound anywhere in ``scope`` or at module level (not proven at the load)?"""
        try:
            node = ast.parse(device, mode="eval").body
        except SyntaxError:
            return False
        attrs: list[str] = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        name = node.id
        if name in scope.params:
            if attrs and scope.params and name == scope.params[0]:
                owner = scope.path[:-1]
                return any(
                    isinstance(t, ast.Attribute) and t.attr == attrs[-1]
                    for method in self._methods_of(owner)
                    for t, _, _ in method.assigns
                )
            return True
        at_import = block_binds(self.tree.body)
        if name in at_import and scope.path and not isinstance(scope.node, ast.ClassDef):
            return True
        return any(name in target_names(t) for t, _, _ in scope.assigns) or any(
            name in target_names(t) for t, _ in scope.loops
        )

    def _guarded(self, chain: tuple[tuple[list[ast.stmt], int], ...]) -> str | None:
        for depth, (body, index) in enumerate(chain[:-1]):
            holder = body[index]
            inner = chain[depth + 1][0]
            if isinstance(holder, ast.If) and inner is holder.body and "cuda.is_available" in _text(holder.test):
                if not (isinstance(holder.test, ast.UnaryOp) and isinstance(holder.test.op, ast.Not)):
                    return "this branch only runs where CUDA is available"
        return None

    # -- where the path comes from ------------------------------------------------------------
    def _sources(self, node: ast.AST, scope: _Scope, depth: int = 0) -> Iterator[ast.AST]:
        """``node`` and what the names making it up were assigned (or opened) from, a few levels deep.

        Only names that are values of their own are followed (``path``, ``os.path.join(root, name)``),
        never the owner of an attribute (``args`` in ``args.resume``) or a called function.
        """
        yield node
        if depth >= 3:
            return
        for name in _value_names(node):
            for target, value, _ in scope.assigns:
                if name in target_names(target):
                    yield from self._sources(value, scope, depth + 1)
            for item in scope.with_items:
                if item.optional_vars is not None and name in target_names(item.optional_vars):
                    yield from self._sources(item.context_expr, scope, depth + 1)
            if name in scope.params and name in self.definitions:  # a pytest fixture injected by name
                for fixture in self.definitions[name]:
                    for value in fixture.returns:
                        yield from self._sources(value, fixture, depth + 1)
            if scope.path and name not in scope.params:
                module = self.scopes[()][0]
                for target, value, _ in module.assigns:
                    if name in target_names(target):
                        yield from self._sources(value, module, depth + 1)

    def _quiet_source(self, source: ast.AST, scope: _Scope) -> str | None:
        for node in self._sources(source, scope):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call):
                    name = ast_dotted_name(inner.func) or ""
                    last = name.rsplit(".", 1)[-1]
                    if last == "BytesIO":
                        return "in-memory bytes (`io.BytesIO`) this run serialised"
                    if _DOWNLOAD.search(last):
                        return f"a downloaded, published file (`{_short(inner)}`)"
                elif isinstance(inner, ast.Name) and inner.id == "__file__":
                    return "a file shipped with the package (its path is built from `__file__`)"
                elif isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    if inner.value.startswith(("http://", "https://")):
                        return "a downloaded, published file (a URL)"
        return None

    # -- what the file saves -------------------------------------------------------------------
    def _path_keys(self, node: ast.AST, scope: _Scope) -> set[str]:
        keys: set[str] = set()
        for source in self._sources(node, scope):
            text = normalized(_text(source))
            if text and not isinstance(source, ast.Name) and not (isinstance(source, ast.Call) and not source.args):
                keys.add("expr:" + text)
            for inner in ast.walk(source):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    match = _FILE_NAME.search(inner.value.replace("\\", "/").rsplit("/", 1)[-1])
                    if match:
                        keys.add("file:" + match.group(1))
                elif isinstance(inner, ast.JoinedStr):
                    tail = inner.values[-1] if inner.values else None
                    if isinstance(tail, ast.Constant) and isinstance(tail.value, str):
                        match = _FILE_NAME.search(tail.value.rsplit("/", 1)[-1])
                        if match:
                            keys.add("file:" + match.group(1))
                elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id.startswith("_"):
                    keys.add("helper:" + inner.func.id)
        return keys

    def _matching_saves(self, source: ast.AST, scope: _Scope) -> list[tuple[ast.Call, object, _Scope]]:
        wanted = self._path_keys(source, scope)
        found = []
        for save, chain, save_scope in self.saves:
            target = _save_target(save)
            if target is None or not save.args:
                continue
            keys = self._path_keys(target, save_scope)
            # A file saved under a temporary name and moved into place (``os.replace(tmp, path)``).
            for call, _ in save_scope.calls:
                name = ast_dotted_name(call.func) or ""
                if name.rsplit(".", 1)[-1] in ("replace", "rename", "move", "copyfile", "copy") and len(call.args) == 2:
                    if self._path_keys(call.args[0], save_scope) & keys:
                        keys = keys | self._path_keys(call.args[1], save_scope)
            if keys & wanted:
                found.append((save, chain, save_scope))
        return found

    def _saved_kind(self, save: ast.Call, scope: _Scope) -> tuple[str, Move | None]:
        """("host", None), ("device", the move that put it there) or ("unknown", None)."""
        return self._value_kind(save.args[0], scope, 0)

    def _value_kind(self, node: ast.AST, scope: _Scope, depth: int) -> tuple[str, Move | None]:
        if depth > 3:
            return "unknown", None
        if isinstance(node, ast.Constant):
            return "host", None
        if isinstance(node, ast.Attribute) and node.attr in _HOST_ATTRIBUTES:
            return "host", None
        if isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
            values = node.values if isinstance(node, ast.Dict) else node.elts
            kinds = [self._value_kind(v, scope, depth + 1) for v in values if v is not None]
            for kind in kinds:
                if kind[0] == "device":
                    return kind
            return ("host", None) if all(k[0] == "host" for k in kinds) else ("unknown", None)
        if isinstance(node, ast.DictComp):
            return self._value_kind(node.value, scope, depth + 1)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self._value_kind(node.elt, scope, depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method in _HOST_METHODS:
                return "host", None
            if method in ("state_dict", "parameters", "named_parameters", "buffers"):
                move = self.moved(node.func.value, scope)
                if move is not None:
                    return ("device", move) if move.kind != "cpu" else ("host", None)
                return ("host", None) if self._fresh_module(node.func.value, scope) else ("unknown", None)
            if method == "get_state_dict" and node.args:  # Accelerate keeps the state where the model is
                move = self.moved(node.args[0], scope)
                return ("device", move) if move is not None and move.kind != "cpu" else ("unknown", None)
            move = _move_of(node, self)
            if move is not None:
                return ("host", None) if move.kind == "cpu" else ("device", move)
            return "unknown", None
        if isinstance(node, ast.Name):
            for target, value, _ in scope.assigns:
                if node.id in target_names(target) and isinstance(target, ast.Name):
                    kind = self._value_kind(value, scope, depth + 1)
                    if kind[0] != "unknown":
                        return kind
            move = self.moved(node, scope)
            if move is not None:
                return ("host", None) if move.kind == "cpu" else ("device", move)
        return "unknown", None

    def _fresh_module(self, node: ast.AST, scope: _Scope) -> bool:
        """A module just built by its class (``nn.Linear(4, 2)``, ``Net()``) and never moved: on the CPU."""
        if isinstance(node, ast.Name):
            values = [v for t, v, _ in scope.assigns if isinstance(t, ast.Name) and t.id == node.id]
            return bool(values) and node.id not in scope.params and all(self._fresh_module(v, scope) for v in values)
        if not isinstance(node, ast.Call) or any(k.arg in ("device", "device_map") for k in node.keywords):
            return False
        name = ast_dotted_name(node.func) or ""
        last = name.rsplit(".", 1)[-1]
        qualified = self._qualified(node.func) or ""
        if not last[:1].isupper():
            return False
        return qualified.startswith("torch.nn.") or self.symbols.is_local_module_class(last)

    def _device_state_saved(self) -> tuple[ast.Call, Move] | None:
        """A save anywhere in the file of a model's state from a device (not CUDA-only)."""
        for save, _, scope in self.saves:
            if not save.args:
                continue
            kind, move = self._saved_kind(save, scope)
            if kind == "device" and move is not None and move.kind == "device":
                return save, move
        return None

    # -- moves ---------------------------------------------------------------------------------
    def moved(
        self, node: ast.AST, scope: _Scope, *, callers: bool = True, _seen: frozenset[str] = frozenset()
    ) -> Move | None:
        """Where the value ``node`` (a name, ``self.model``, ...) is moved, in this scope, its class or a caller."""
        text = normalized(_text(node))
        key = "/".join(scope.path) + ":" + text
        if not text or key in _seen:
            return None
        seen = _seen | {key}
        moves = list(self._moves_in(text, scope))
        owner = self._self_attribute(node, scope)
        if owner is not None:
            for method in self._methods_of(owner):
                moves.extend(_as_attribute(m, method) for m in self._moves_in(text, method))
        best = _best(moves)
        if best is not None:
            return best
        # An alias: ``model = accelerator.unwrap_model(self.model)``, ``model = self.model``.
        if isinstance(node, ast.Name):
            for target, value, _ in scope.assigns:
                if isinstance(target, ast.Name) and target.id == node.id:
                    inner = value
                    if isinstance(inner, ast.Call) and inner.args:
                        if (ast_dotted_name(inner.func) or "").endswith("unwrap_model"):
                            inner = inner.args[0]
                    if isinstance(inner, (ast.Name, ast.Attribute)):
                        found = self.moved(inner, scope, callers=callers, _seen=seen)
                        if found is not None:
                            return found
        if callers and isinstance(node, ast.Name) and isinstance(scope.node, _DEFS):
            if node.id in scope.params:
                return self._moved_by_callers_argument(scope, node.id, seen)
            if any(node.id in _names_in(r) for r in scope.returns):
                return self._moved_by_callers_result(scope, seen)
        return None

    def _moves_in(self, text: str, scope: _Scope) -> Iterator[Move]:
        for call, _ in scope.calls:
            if not isinstance(call.func, ast.Attribute):
                continue
            if normalized(_text(call.func.value)) == text:
                move = _move_of(call, self)
                if move is not None and not _to_own_device(call, text, scope):
                    yield move
        for target, value, _ in scope.assigns:
            if normalized(_text(target)) == text and isinstance(value, ast.Call):
                move = _move_of(value, self) or self._prepared(value, text)
                if move is not None:
                    yield move
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Call):
                if any(normalized(_text(t)) == text for t in target.elts):
                    move = self._prepared(value, text)
                    if move is not None:
                        yield move

    def _prepared(self, call: ast.Call, text: str) -> Move | None:
        """``x = accelerator.prepare(x)``: Accelerate moves what it prepares to its device."""
        if isinstance(call.func, ast.Attribute) and call.func.attr == "prepare":
            if any(normalized(_text(a)) == text for a in call.args):
                return Move("device", f"{_text(call.func.value)}.device", call.lineno)
        return None

    def _self_attribute(self, node: ast.AST, scope: _Scope) -> Path | None:
        """The class path when ``node`` is ``self.<attr>...`` in one of its methods."""
        if not scope.params or len(scope.path) < 2 or scope.path[:-1] not in self.classes:
            return None
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id == scope.params[0] and root is not node:
            return scope.path[:-1]
        return None

    def _methods_of(self, owner: Path) -> Iterator[_Scope]:
        cls = self.classes.get(owner)
        if cls is None:
            return
        for statement in cls.body:
            if isinstance(statement, _DEFS):
                yield from self.scopes.get((*owner, statement.name), ())

    def _calls_to(self, scope: _Scope) -> Iterator[tuple[ast.Call, _Scope]]:
        """Calls of the function ``scope`` in this file (by name; ``self.name(...)`` for methods)."""
        name = scope.path[-1]
        method = len(scope.path) >= 2 and scope.path[:-1] in self.classes
        for other in self._all_scopes():
            for call, _ in other.calls:
                func = call.func
                if not method and isinstance(func, ast.Name) and func.id == name:
                    yield call, other
                elif method and isinstance(func, ast.Attribute) and func.attr == name:
                    if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                        yield call, other

    def _saved_by_callers_path(self, source: ast.AST, scope: _Scope, depth: int = 0) -> list[Evidence]:
        """``def load(path): return torch.load(path)`` called (through up to three calls) with a path
        the file saves device state to."""
        if not isinstance(source, ast.Name) or source.id not in scope.params or depth > 2:
            return []
        method = len(scope.path) >= 2 and scope.path[:-1] in self.classes
        position = scope.params.index(source.id) - (1 if method else 0)
        for call, caller in self._calls_and_constructions(scope):
            argument = next((k.value for k in call.keywords if k.arg == source.id), None)
            if argument is None and 0 <= position < len(call.args):
                argument = call.args[position]
            if argument is None:
                continue
            if isinstance(argument, ast.Name) and argument.id in caller.params:
                found = self._saved_by_callers_path(argument, caller, depth + 1)
                if found:
                    return found
                continue
            for save, _, save_scope in self._matching_saves(argument, caller):
                kind, move = self._saved_kind(save, save_scope)
                if kind == "device" and move is not None and move.kind == "device":
                    what = _short(save.args[0])
                    reason = (
                        f"line {save.lineno} saves `{what}` from `{move.device}`, the file line {call.lineno} loads"
                    )
                    return [Evidence(reason, move.device)]
        return []

    def _calls_and_constructions(self, scope: _Scope) -> Iterator[tuple[ast.Call, _Scope]]:
        """Calls of ``scope``, and for an ``__init__`` the calls of its class (``Restorer(path)``)."""
        yield from self._calls_to(scope)
        if len(scope.path) >= 2 and scope.path[-1] == "__init__" and scope.path[:-1] in self.classes:
            name = scope.path[-2]
            for other in self._all_scopes():
                for call, _ in other.calls:
                    if isinstance(call.func, ast.Name) and call.func.id == name:
                        yield call, other

    def _moved_by_callers_argument(self, scope: _Scope, param: str, seen: frozenset[str]) -> Move | None:
        method = len(scope.path) >= 2 and scope.path[:-1] in self.classes
        position = scope.params.index(param) - (1 if method else 0)
        for call, caller in self._calls_to(scope):
            argument = next((k.value for k in call.keywords if k.arg == param), None)
            if argument is None and 0 <= position < len(call.args):
                argument = call.args[position]
            if isinstance(argument, (ast.Name, ast.Attribute)):
                move = self.moved(argument, caller, callers=False, _seen=seen)
                if move is not None:
                    return move
        return None

    def _moved_by_callers_result(self, scope: _Scope, seen: frozenset[str]) -> Move | None:
        for call, caller in self._calls_to(scope):
            for moving, _ in caller.calls:
                if isinstance(moving.func, ast.Attribute) and moving.func.value is call:
                    move = _move_of(moving, self)
                    if move is not None:
                        return move
            for target, value, _ in caller.assigns:
                if value is call:
                    for name in target_names(target):
                        move = self.moved(ast.Name(id=name), caller, callers=False, _seen=seen)
                        if move is not None:
                            return move
        return None

    def state_receiver(self, callee: _Scope, position: int) -> int | None:
        """For a helper ``f(state, model)`` that runs ``model.load_state_dict(<state>)``: the position of
        ``model`` when ``state`` is argument ``position`` (None otherwise)."""
        if position >= len(callee.params) or not isinstance(callee.node, _DEFS):
            return None
        tainted = {callee.params[position]}
        changed = True
        while changed:
            changed = False
            for target, value, _ in callee.assigns:
                names = set(target_names(target)) - tainted
                if names and _names_in(value) & tainted:
                    tainted |= names
                    changed = True
        for call, _ in callee.calls:
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "load_state_dict" and isinstance(func.value, ast.Name):
                if any(_names_in(a) & tainted for a in call.args) and func.value.id in callee.params:
                    return callee.params.index(func.value.id)
        return None

    def _mapped_sibling(
        self, call: ast.Call, chain: tuple[tuple[list[ast.stmt], int], ...], scope: _Scope
    ) -> ast.Call | None:
        """Another ``torch.load`` of this scope that passes ``map_location`` (not in another branch of an ``if``)."""
        for other, other_chain in scope.calls:
            if other is call or self._qualified(other.func) != "torch.load" or _map_location(other) is None:
                continue
            if _other_branch(chain, other_chain):
                continue
            return other
        return None

    # -- the fix ------------------------------------------------------------------------------
    def bound_at(self, device: str, chain: tuple[tuple[list[ast.stmt], int], ...], scope: _Scope) -> bool:
        """Is ``device`` (a name or ``a.b.c``) definitely bound at the end of ``chain`` in ``scope``?"""
        try:
            expression = ast.parse(device, mode="eval").body
        except SyntaxError:
            return False
        if isinstance(expression, ast.Constant):
            return True
        parts: list[str] = []
        node = expression
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        name = node.id
        if isinstance(scope.node, _DEFS):
            if name in scope.params:
                if parts and name == scope.params[0] and scope.path[:-1] in self.classes:
                    return self._init_binds(scope.path[:-1], parts[-1], scope)
                return True
            before = bound_before(chain)
            if name in before or before is EVERYTHING:
                return True
            if any(name in target_names(t) for t, _, _ in scope.assigns) or any(
                name in target_names(t) for t, _ in scope.loops
            ):
                return False  # a local that is not bound on every path
            return self._module_binds_before(name, scope)
        if isinstance(scope.node, ast.Module):
            before = bound_before(chain)
            return name in before or before is EVERYTHING
        return False

    def _init_binds(self, owner: Path, attr: str, scope: _Scope) -> bool:
        """``self.<attr>`` assigned at the top level of ``__init__`` (or a Lightning module's ``device``)."""
        if attr == "device" and self.symbols.is_lightning_module_class(owner[-1]):
            return True
        if scope.path[-1] == "__init__":
            return False  # inside __init__ the order matters; keep it simple
        for init in self.scopes.get((*owner, "__init__"), ()):
            self_name = init.params[0] if init.params else "self"
            for statement in init.body:
                if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                    for target in targets:
                        for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                            if (
                                isinstance(element, ast.Attribute)
                                and element.attr == attr
                                and isinstance(element.value, ast.Name)
                                and element.value.id == self_name
                            ):
                                return True
        return False

    def _module_binds_before(self, name: str, scope: _Scope) -> bool:
        """A module-level name bound on every path before the top-level statement defining ``scope``."""
        top = self.tree.body
        first = scope.path[0]
        for index, statement in enumerate(top):
            if isinstance(statement, _SCOPES) and statement.name == first:
                return name in block_binds(top[:index]) or block_binds(top[:index]) is EVERYTHING
        return False


class _ResultFlow:
    """Where the result of one ``torch.load`` goes inside its scope."""

    def __init__(self, facts: FileSerialization, call: ast.Call, scope: _Scope) -> None:
        self.facts = facts
        self.call = call
        self.scope = scope
        self.derived = self._derived()
        self.receivers: list[ast.AST] = []
        self.receiver_moves: list[tuple[str, Move]] = []  # models the state is loaded into
        self.moves: list[tuple[str, Move]] = []  # the loaded values themselves
        self.stateless: str | None = None
        self.keys: set[str] = set()
        self._follow()

    def _derived(self) -> set[str]:
        """Names holding the loaded value or a part of it: ``ckpt = torch.load(p)``, ``sd = ckpt["model"]``,
        ``for k, v in sd.items()``. A value passed through another call (``Fsa.from_dict(ckpt)``) is
        something else."""
        derived: set[str] = set()
        changed = True
        pairs = [(t, v) for t, v, _ in self.scope.assigns] + list(self.scope.loops)
        pairs += [(i.optional_vars, i.context_expr) for i in self.scope.with_items if i.optional_vars is not None]
        while changed:
            changed = False
            for target, value in pairs:
                names = set(target_names(target)) - derived
                if names and self._part_of(value, derived):
                    derived |= names
                    changed = True
        return derived

    def _part_of(self, node: ast.AST, derived: set[str]) -> bool:
        """Is ``node`` the loaded value, or an access into it (subscripts, attributes, method calls)?"""
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CONTAINERS:
            if not node.args:
                return False
            node = node.args[0]
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self._part_of(e, derived) for e in node.elts)
        while node is not self.call:
            if isinstance(node, (ast.Attribute, ast.Subscript)):
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                node = node.func.value
            else:
                return isinstance(node, ast.Name) and node.id in derived
        return True

    def _holds(self, node: ast.AST) -> bool:
        """Does ``node`` contain the loaded value (the call itself, or a name derived from it)?"""
        for inner in ast.walk(node):
            if inner is self.call or (isinstance(inner, ast.Name) and inner.id in self.derived):
                return True
        return False

    def _follow(self) -> None:
        facts = self.facts
        for call, _ in self.scope.calls:
            func = call.func
            name = ast_dotted_name(func) or (func.attr if isinstance(func, ast.Attribute) else "")
            arguments = [*call.args, *(k.value for k in call.keywords)]
            if _LOADS_STATE.search(name) and any(self._holds(a) for a in arguments):
                if isinstance(func, ast.Attribute) and func.attr == "load_state_dict":
                    receiver: ast.AST | None = func.value
                else:  # set_peft_model_state_dict(model, state)
                    receiver = next((a for a in call.args if not self._holds(a)), None)
                if receiver is None:
                    continue
                if self._stateless(receiver):
                    self.stateless = _short(receiver)
                    continue
                self.receivers.append(receiver)
                move = facts.moved(receiver, self.scope)
                if move is not None:
                    self.receiver_moves.append((_short(receiver), move))
            elif isinstance(func, ast.Attribute) and self._part_of(func.value, self.derived):
                if True:
                    move = _move_of(call, facts)
                    if move is not None:
                        self.moves.append((_short(func.value), move))
        for call, _ in self.scope.calls:  # load_model_from_ckpt(ckpt, model): a helper loading it into `model`
            if isinstance(call.func, ast.Name) and call.func.id in facts.definitions:
                for position, argument in enumerate(call.args):
                    if not self._part_of(argument, self.derived):
                        continue
                    for callee in facts.definitions[call.func.id]:
                        target_position = facts.state_receiver(callee, position)
                        if target_position is not None and target_position < len(call.args):
                            receiver = call.args[target_position]
                            self.receivers.append(receiver)
                            move = facts.moved(receiver, self.scope)
                            if move is not None:
                                self.receiver_moves.append((_short(receiver), move))
        for target, value, _ in self.scope.assigns:
            if not isinstance(target, ast.Attribute) or not isinstance(_root(target), ast.Name):
                continue
            if self._part_of(value, self.derived):
                move = facts.moved(target, self.scope, callers=False)
                if move is not None:
                    self.moves.append((_short(target), move))
        for subscript in self.scope.subscripts:
            if self._holds(subscript.value):
                key = subscript.slice
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    self.keys.add(key.value)
        for compare in self.scope.compares:
            if (
                len(compare.ops) == 1
                and isinstance(compare.ops[0], (ast.In, ast.NotIn))
                and isinstance(compare.left, ast.Constant)
                and isinstance(compare.left.value, str)
                and self._holds(compare.comparators[0])
            ):
                self.keys.add(compare.left.value)
        for call, _ in self.scope.calls:  # checkpoint.get("optimizer")
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "get" and self._holds(func.value) and call.args:
                first = call.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    self.keys.add(first.value)

    def _stateless(self, receiver: ast.AST) -> bool:
        text = _text(receiver)
        if _STATELESS_NAME.search(text.rsplit(".", 1)[-1].split("[")[0]):
            return True
        for target, value, _ in self.scope.assigns:
            if _text(target) == text and isinstance(value, ast.Call):
                if _STATELESS_CLASSES.match(self.facts._qualified(value.func) or ""):
                    return True
        return False

    def all_moves(self) -> list[tuple[str, Move]]:
        return [*self.receiver_moves, *self.moves]

    def training_key(self) -> str | None:
        found = sorted(self.keys & TRAINING_KEYS)
        return found[0] if found else None


# ``m.load_state_dict(state)``, ``set_peft_model_state_dict(m, state)``: state copied into a model.
_LOADS_STATE = re.compile(r"(?:^|[._])(?:load|set)_?\w*state_dict$")
_SHARDED_CODE = re.compile(r"FullyShardedDataParallel|torch\.distributed\.fsdp|\bfully_shard\b")
_ACCELERATOR_LITERAL = re.compile(r"^(?:cuda|mps|xpu|npu|hpu|xla|mlu)(?::\d+)?$")


def _imported_modules(statement: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(statement, ast.ImportFrom):
        return [statement.module or ""] if statement.level == 0 else []
    return [alias.name for alias in statement.names]


def _as_attribute(move: Move, method: _Scope) -> Move:
    """A move made in another method, to that method's parameter stored as ``self.<attr>``: named so."""
    if move.kind != "device" or move.device not in method.params or not method.params:
        return move
    for target, value, _ in method.assigns:
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == method.params[0]
            and isinstance(value, ast.Name)
            and value.id == move.device
        ):
            return Move("device", f"{target.value.id}.{target.attr}", move.line)
    return move


def _owner(path: Path, classes: dict[Path, ast.ClassDef]) -> Path | None:
    """The innermost class around ``path``."""
    for end in range(len(path), 0, -1):
        if path[:end] in classes:
            return path[:end]
    return None


def _move_of(call: ast.Call, facts: FileSerialization) -> Move | None:
    """The move a call makes: ``x.to(device)``, ``x.cuda()``, ``x.cpu()`` (None for casts and the rest)."""
    if not isinstance(call.func, ast.Attribute):
        return None
    method = call.func.attr
    if method == "cuda":
        return Move("cuda", "cuda", call.lineno)
    if method == "cpu" and not call.args:
        return Move("cpu", '"cpu"', call.lineno)
    if method != "to":
        return None
    target = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "device"), None)
    if target is None:
        return None
    return _device_move(target, facts, call.lineno)


def _to_own_device(call: ast.Call, text: str, scope: _Scope) -> bool:
    """``m.to(m.device)`` or ``m.to(next(m.parameters()).device)``, directly or through a name
    assigned only that in the scope: a move to where ``m`` already is (none at all)."""
    target = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "device"), None)
    if isinstance(target, ast.Name):
        bound = [value for name, value, _ in scope.assigns if isinstance(name, ast.Name) and name.id == target.id]
        return bool(bound) and all(_device_of(value, text) for value in bound)
    return target is not None and _device_of(target, text)


def _device_of(node: ast.AST, text: str) -> bool:
    """Is ``node`` the device of the object ``text`` names (``m.device``, ``next(m.parameters()).device``)?"""
    if not (isinstance(node, ast.Attribute) and node.attr == "device"):
        return False
    owner = node.value
    if (
        isinstance(owner, ast.Call)
        and ast_dotted_name(owner.func) == "next"
        and owner.args
        and isinstance(owner.args[0], ast.Call)
        and isinstance(owner.args[0].func, ast.Attribute)
        and owner.args[0].func.attr in ("parameters", "buffers")
    ):
        owner = owner.args[0].func.value
    return normalized(_text(owner)) == text


def _device_move(target: ast.AST, facts: FileSerialization, line: int) -> Move | None:
    literal = _literal_device(target, facts)
    if literal is not None:
        if literal == "cpu":
            return Move("cpu", '"cpu"', line)
        if _ACCELERATOR_LITERAL.match(literal):
            return Move("cuda", _text(target), line)
        return None
    qualified = facts._qualified(target) or ""
    if qualified in torch_api.DTYPE_NAMES or (isinstance(target, ast.Attribute) and target.attr in _DTYPE_ATTRS):
        return None
    if isinstance(target, ast.Constant):
        return None
    return Move("device", _text(target), line)


_CONTAINERS = frozenset({"dict", "list", "tuple", "OrderedDict", "sorted", "iter", "next", "enumerate"})
_DTYPE_ATTRS = frozenset({"float16", "float32", "float64", "bfloat16", "half", "double", "dtype", "int64", "long"})


def _literal_device(node: ast.AST, facts: FileSerialization) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and facts._qualified(node.func) == "torch.device" and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def _best(moves: list[Move]) -> Move | None:
    """The most telling move: to a device expression, then to the CPU, then to a CUDA literal."""
    for kind in ("device", "cpu", "cuda"):
        for move in moves:
            if move.kind == kind:
                return move
    return None


def _map_location(call: ast.Call) -> ast.AST | None:
    found = next((k.value for k in call.keywords if k.arg == "map_location"), None)
    if found is None and len(call.args) > 1:
        found = call.args[1]
    return found


def _save_target(save: ast.Call) -> ast.AST | None:
    return save.args[1] if len(save.args) > 1 else next((k.value for k in save.keywords if k.arg == "f"), None)


def _other_branch(first: Chain, second: Chain) -> bool:
    """Are the two statements in different branches of the same ``if``?"""
    for depth, ((body_a, index_a), (body_b, index_b)) in enumerate(zip(first, second)):
        if body_a is not body_b or index_a != index_b:
            return False
        if isinstance(body_a[index_a], ast.If) and depth + 1 < len(first) and depth + 1 < len(second):
            if first[depth + 1][0] is not second[depth + 1][0]:
                return True
    return False


def _segment(index: LineIndex, node: ast.expr) -> str:
    """``ast.get_source_segment`` of ``node`` from the file's line table (no split of the text per
    call; ``ast`` columns count UTF-8 bytes)."""
    if node.end_lineno is None or node.end_col_offset is None or node.end_lineno > len(index.starts):
        return ""
    first, last = node.lineno, node.end_lineno
    if first == last:
        return index.line_with_ending(first).encode()[node.col_offset : node.end_col_offset].decode(errors="replace")
    head = index.line_with_ending(first).encode()[node.col_offset :].decode(errors="replace")
    middle = "".join(index.line_with_ending(line) for line in range(first + 1, last))
    tail = index.line_with_ending(last).encode()[: node.end_col_offset].decode(errors="replace")
    return head + middle + tail


def facts_for(ctx: FileFacts) -> FileSerialization | None:
    """The file's serialisation facts, built on first use and kept on the context."""
    cached = ctx.__dict__.get("_serialization_facts", False)
    if cached is False:
        index = ctx.index if ctx.index is not None else LineIndex(ctx.module.code)
        cached = FileSerialization(ctx.tree, ctx.symbols, index) if ctx.tree is not None else None
        ctx.__dict__["_serialization_facts"] = cached
    return cached  # type: ignore[return-value]
