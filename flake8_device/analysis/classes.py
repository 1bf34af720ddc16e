"""Per-class facts read from the ``ast`` tree: what ``self.<attr>`` holds and who touches it.

Rules looking at one method often need the rest of its class (is ``self.mask``
moved by hand in ``forward``? is ``self.emb`` a submodule?).  The engine only
parses the methods a rule wants with LibCST, so these facts come from the
``ast`` of the whole file, computed on first use for the classes asked about.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field

from flake8_device.analysis import torch_api
from flake8_device.analysis.symbols import Symbols, all_statements, ast_dotted_name, top_level_definition

_MOVE_METHODS = frozenset({"to", "cuda", "cpu", "type_as"})
_BY_HAND = frozenset({"add_module", "register_module", "register_parameter"})


def _self_attribute(node: ast.expr, self_name: str) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    return None


def _places(value: ast.expr) -> bool:
    """Does the expression move something or choose a device (``.to(...)``, ``device=``)?"""
    for sub in ast.walk(value):
        if isinstance(sub, ast.Call):
            if isinstance(sub.func, ast.Attribute) and sub.func.attr in _MOVE_METHODS:
                return True
            if any(k.arg == "device" for k in sub.keywords):
                return True
    return False


def _names_own_device(value: ast.expr, self_name: str, attr: str) -> bool:
    """Does ``value`` name ``self.<attr>.device``?"""
    return any(
        isinstance(sub, ast.Attribute) and sub.attr == "device" and _self_attribute(sub.value, self_name) == attr
        for sub in ast.walk(value)
    )


def _callee_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr
        if isinstance(func, ast.Name):
            return func.id
    return ""


def _alternative_callees(node: ast.expr) -> set[str]:
    """The callees of ``A(...) if c else B(...)`` / ``a or B(...)``: a parameter made in one branch."""
    if isinstance(node, ast.IfExp):
        return _alternative_callees(node.body) | _alternative_callees(node.orelse)
    if isinstance(node, ast.BoolOp):
        return set().union(*(_alternative_callees(v) for v in node.values))
    return {_callee_name(node)}


@dataclass
class ClassInfo:
    name: str
    # Attributes assigned in __init__ as ``self.x = SomeCall(...)``: attr -> callee's last name.
    init_calls: dict[str, str] = field(default_factory=dict)
    buffers: set[str] = field(default_factory=set)
    parameters: set[str] = field(default_factory=set)
    # Attributes moved by hand anywhere (``self.x.to(...)``), or set outside __init__ from an
    # expression that moves or places something (``self.x = self.x.to(y.device)``).
    managed_by_hand: set[str] = field(default_factory=set)
    # Attributes moved by hand anywhere in the class (``self.x = self.x.to(...)``, ``self.x.cuda()``).
    moved_by_hand: set[str] = field(default_factory=set)
    # Attributes a method renews on the device they are on (``self.rope = make(n).to(self.rope.device)``):
    # something the class does not show places them (OpenNMT's decoder moves its layers' tables).
    kept_where_they_are: set[str] = field(default_factory=set)
    # torchmetrics states: ``self.add_state("x", ...)``.
    added_states: set[str] = field(default_factory=set)
    # Defines _apply / to / cuda / cpu itself, so it may move plain attributes.
    custom_move: bool = False
    # Registers children by hand (``self.add_module(...)``), e.g. the items of a plain list.
    registers_by_hand: bool = False
    method_names: set[str] = field(default_factory=set)
    # How often each ``self.<attr>`` is assigned, in __init__ and anywhere in the class.
    init_assignment_count: Counter[str] = field(default_factory=Counter)
    assignment_count: Counter[str] = field(default_factory=Counter)

    def holds_state(self, attr: str) -> bool:
        """Registered with the module (parameter, buffer or submodule-like call)."""
        return attr in self.buffers or attr in self.parameters


class ClassTable:
    def __init__(self, tree: ast.Module | None) -> None:
        self._nodes: dict[str, ast.ClassDef] = {}
        self._infos: dict[str, ClassInfo] = {}
        self._tree = tree
        self._construction_only: frozenset[str] | None = None
        if tree is not None:
            for statement in all_statements(tree.body):
                if isinstance(statement, ast.ClassDef):
                    self._nodes.setdefault(statement.name, statement)

    def runs_only_in_construction(self, method: str) -> bool:
        """Is ``method`` named in the file only where an ``__init__`` calls it on its own instance
        (``self.features_size = self._flattened_size()``)?  Then it runs while the module is built,
        before anything can move it."""
        if self._construction_only is None:
            self._construction_only = _construction_only(self._tree) if self._tree is not None else frozenset()
        return method in self._construction_only

    def node(self, name: str) -> ast.ClassDef | None:
        """The (first) class of that name anywhere in the file."""
        return self._nodes.get(name)

    def get(self, name: str) -> ClassInfo | None:
        info = self._infos.get(name)
        if info is None and name in self._nodes:
            info = self._infos[name] = _read_class(self._nodes[name])
        return info


def _read_class(node: ast.ClassDef) -> ClassInfo:
    info = ClassInfo(node.name)
    for method in node.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        info.method_names.add(method.name)
        if method.name in ("_apply", "to", "cuda", "cpu"):
            info.custom_move = True
        if not method.args.args:
            continue
        self_name = method.args.args[0].arg
        in_init = method.name == "__init__"
        for sub in ast.walk(method):
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(sub, ast.Assign):
                targets, value = sub.targets, sub.value
            elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)) and sub.value is not None:
                targets, value = [sub.target], sub.value
            if value is not None:
                for target in targets:
                    attr = _self_attribute(target, self_name)
                    if attr is None:
                        continue
                    info.assignment_count[attr] += 1
                    if _callee_name(value) == "Buffer" or "Buffer" in _alternative_callees(value):
                        info.buffers.add(attr)  # ``self.x = nn.Buffer(t)`` registers ``x`` (PyTorch 2.5+)
                    if in_init and not isinstance(sub, ast.AugAssign):
                        info.init_assignment_count[attr] += 1
                        callee = _callee_name(value)
                        info.init_calls.setdefault(attr, callee)
                        if callee == "Parameter" or "Parameter" in _alternative_callees(value):
                            info.parameters.add(attr)
                    elif _places(value):
                        # ``self.mask = self.mask.to(x.device)``: kept on the right device by hand.
                        # (A plain update such as running statistics does not count.)
                        info.managed_by_hand.add(attr)
                        if _names_own_device(value, self_name, attr):
                            info.kept_where_they_are.add(attr)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
                receiver = sub.func.value
                attr = _self_attribute(receiver, self_name)
                if attr is not None and sub.func.attr in _MOVE_METHODS:
                    info.managed_by_hand.add(attr)
                    info.moved_by_hand.add(attr)
                if isinstance(receiver, ast.Name) and receiver.id == self_name and sub.func.attr in _BY_HAND:
                    info.registers_by_hand = True
                if (
                    isinstance(receiver, ast.Name)
                    and receiver.id == self_name
                    and sub.func.attr == "add_state"
                    and sub.args
                    and isinstance(sub.args[0], ast.Constant)
                    and isinstance(sub.args[0].value, str)
                ):
                    info.added_states.add(sub.args[0].value)
                if (
                    isinstance(receiver, ast.Name)
                    and receiver.id == self_name
                    and sub.func.attr in ("register_buffer", "register_parameter")
                    and sub.args
                    and isinstance(sub.args[0], ast.Constant)
                    and isinstance(sub.args[0].value, str)
                ):
                    target_set = info.buffers if sub.func.attr == "register_buffer" else info.parameters
                    target_set.add(sub.args[0].value)
    return info


def _construction_only(tree: ast.Module) -> frozenset[str]:
    """Names called as ``self.name(...)`` in an ``__init__`` of a class and used nowhere else."""
    called: set[str] = set()
    elsewhere: set[str] = set()
    # (node, the name of ``self`` where the node is directly in a class's ``__init__``)
    todo: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while todo:
        node, init_self = todo.pop()
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                is_init = isinstance(member, ast.FunctionDef) and member.name == "__init__" and member.args.args
                todo.append((member, member.args.args[0].arg if is_init else None))  # type: ignore[union-attr]
            todo.extend((d, None) for d in (*node.decorator_list, *node.bases, *node.keywords))
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and init_self is not None:
            if not (isinstance(node, ast.FunctionDef) and node.name == "__init__"):
                init_self = None  # a function defined inside ``__init__`` runs whenever it is called
        if (
            isinstance(node, ast.Call)
            and init_self is not None
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == init_self
        ):
            called.add(node.func.attr)
            todo.extend((child, init_self) for child in (*node.args, *node.keywords))
            continue
        if isinstance(node, ast.Attribute):
            elsewhere.add(node.attr)
        elif isinstance(node, ast.Name):
            elsewhere.add(node.id)
        todo.extend((child, init_self) for child in ast.iter_child_nodes(node))
    return frozenset(called - elsewhere)


# A constructor parameter kept as an attribute under one of these names may be a module the class
# wraps, which is wherever its caller put it.
_WRAPPED = re.compile(r"model|net|module|backbone|encoder|decoder|layer|block|head", re.IGNORECASE)


def builds_own_layers(tree: ast.Module, symbols: Symbols, name: str, depth: int = 3) -> bool:
    """Is ``name`` a module class of this module (``tree``) whose construction builds layers of its
    own on the host, and nothing that could place them: its ``__init__`` builds a torch layer, a
    ``nn.Parameter`` or a buffer on ``self``, takes no device, moves nothing and keeps no given
    module?  (What another module of the project imports from here: an instance made there is on
    the CPU until it is moved.)  False wherever that is not certain."""
    node = top_level_definition(tree, name, (ast.ClassDef,))
    if not isinstance(node, ast.ClassDef) or depth == 0:
        return False
    bases = [dotted for dotted in map(ast_dotted_name, node.bases) if dotted is not None]
    if not any(torch_api.is_nn_module_class(symbols.qualify_dotted(b) or "") for b in bases) and not any(
        builds_own_layers(tree, symbols, base, depth - 1) for base in bases
    ):
        return False
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None or not init.args.args:
        return False
    self_name = init.args.args[0].arg
    parameters = {a.arg for a in (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs)}
    if any("device" in p for p in parameters):
        return False
    builds = False
    for sub in ast.walk(init):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            if sub.func.attr in _MOVE_METHODS or any(k.arg == "device" for k in sub.keywords):
                return False
            if sub.func.attr in ("register_buffer", "register_parameter") and _is_name(sub.func.value, self_name):
                builds = True
        if isinstance(sub, ast.Assign) and any(_self_attribute(t, self_name) for t in sub.targets):
            if isinstance(sub.value, ast.Name) and sub.value.id in parameters and _WRAPPED.search(sub.value.id):
                return False  # a wrapper: where it is depends on what it is given
            if isinstance(sub.value, ast.Call):
                made = ast_dotted_name(sub.value.func) or ""
                builds = (
                    builds
                    or _makes_state(symbols.qualify_dotted(made) or "")
                    # (a module class of this module that builds its own: ``self.mel = MelSpectrogram()``)
                    or ("." not in made and builds_own_layers(tree, symbols, made, depth - 1))
                )
    return builds


def _makes_state(built: str) -> bool:
    """Does a call of ``built`` make parameters: a ``nn.Parameter``, or a torch layer with weights?"""
    if built in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
        return True
    stateless = built in torch_api.STATELESS_NN_MODULES or built.endswith("Loss")
    return torch_api.is_nn_module_class(built) and not stateless


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
