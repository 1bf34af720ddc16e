"""Type evidence for fixes: is this value what the edit assumes it is?

A device fix is only as safe as its assumption about the value it edits:
``.to(device)`` needs a tensor (a batch of strings has no ``.to``),
``x.device.type`` a ``torch.device`` (a configured ``"cpu"`` string has no
``.type``), ``next(model.parameters())`` a module that has parameters (a
buffers-only module raises ``StopIteration``), ``batch[0] = ...`` a mutable
container (a tuple refuses item assignment), ``nn.ModuleDict`` a dict used only
through the API ``ModuleDict`` has (it has no ``.get``).  Each question here
answers "yes, proven" only on positive evidence: the value's construction (a
tensor factory, a ``torch.nn`` layer), its annotation, or its use elsewhere in
the same function (``x.shape``, ``x.view(...)``).  No evidence, no safe fix.

The facts come from the ``ast`` of the whole file and the reaching definitions
of :mod:`.bindings`; no torch is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flake8_device.analysis import torch_api
from flake8_device.analysis.bindings import Definition, FileBindings, Point, own_nodes
from flake8_device.analysis.symbols import Symbols, ast_dotted_name

if TYPE_CHECKING:
    from flake8_device.analysis.classes import ClassTable

# Public attributes every ``nn.Module`` instance has (torch 2.13): inserted ``self.<attr>``
# needs no assignment of its own, and a ``ModuleDict`` key must not be one of them.
_MODULE_ATTRIBUTES = frozenset(
    """T_destination add_module apply bfloat16 buffers call_super_init children compile cpu cuda double
    dump_patches eval extra_repr float forward get_buffer get_extra_state get_parameter get_submodule half ipu
    load_state_dict modules mtia named_buffers named_children named_modules named_parameters parameters
    register_backward_hook register_buffer register_forward_hook register_forward_pre_hook
    register_full_backward_hook register_full_backward_pre_hook register_load_state_dict_post_hook
    register_load_state_dict_pre_hook register_module register_parameter register_state_dict_post_hook
    register_state_dict_pre_hook requires_grad_ set_extra_state set_submodule share_memory state_dict to
    to_empty train training type xpu zero_grad""".split()
)
# What a LightningModule adds (``self.device`` is a property there, not in a plain ``nn.Module``).
_LIGHTNING_ATTRIBUTES = frozenset(
    """device dtype trainer fabric global_rank local_rank logger loggers log log_dict hparams current_epoch
    global_step on_gpu automatic_optimization precision print all_gather example_input_array""".split()
)
INSTANCE_ATTRIBUTES: dict[str, frozenset[str]] = {
    "module": _MODULE_ATTRIBUTES,
    "lightning": _MODULE_ATTRIBUTES | _LIGHTNING_ATTRIBUTES,
}

# The API of the containers DEV103 wraps a plain list or dict in (beyond iteration, ``len``,
# indexing and ``in``), torch 2.13.
CONTAINER_METHODS: dict[str, frozenset[str]] = {
    "ModuleList": frozenset({"append", "extend", "insert", "pop"}) | _MODULE_ATTRIBUTES,
    "ModuleDict": frozenset({"clear", "items", "keys", "pop", "update", "values"}) | _MODULE_ATTRIBUTES,
    "ParameterList": frozenset({"append", "extend"}) | _MODULE_ATTRIBUTES,
    "ParameterDict": frozenset(
        {"clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"}
    )
    | _MODULE_ATTRIBUTES,
}
# Names a ``ModuleDict`` key cannot be: ``add_module`` refuses a key that is already an attribute.
RESERVED_KEYS = (
    _MODULE_ATTRIBUTES | CONTAINER_METHODS["ModuleDict"] | frozenset({"_parameters", "_buffers", "_modules"})
)

# Attributes and methods only tensors have, among what a batch item may be (modules also
# have ``.to``/``.float``, but a batch item is no module).
TENSOR_USES = frozenset(
    """shape size view reshape permute unsqueeze squeeze contiguous masked_fill new_zeros new_ones new_empty
    new_full new_tensor dim ndim numel type_as expand expand_as bmm matmul is_cuda detach softmax log_softmax
    chunk flatten masked_select float half long int bool double bfloat16 to cuda cpu numpy argmax sum mean
    clone transpose""".split()
)  # not ``device``/``dtype``: configuration objects have those too
_MOVES = frozenset({"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "eval", "train", "requires_grad_"})
# Calls that only iterate (or count) what they are given.
_ITERATING_CALLS = frozenset({"len", "iter", "enumerate", "zip", "reversed", "list", "sorted", "tuple", "any", "all"})
# Calls that take any iterable of modules (wrapping again is harmless).
_WRAPPING_CALLS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ParameterList"})
_MUTABLE_CALLS = frozenset({"list", "dict", "collections.OrderedDict", "OrderedDict", "collections.defaultdict"})


@dataclass(frozen=True)
class Evidence:
    """A proven fact, or why it is not proven (for the fix's reason)."""

    proven: bool
    reason: str | None = None

    def __bool__(self) -> bool:
        return self.proven


PROVEN = Evidence(True)


class TypeEvidence:
    """Questions about values at points of one file."""

    def __init__(self, bindings: FileBindings, symbols: Symbols, classes: ClassTable) -> None:
        self.bindings = bindings
        self.symbols = symbols
        self.classes = classes

    # -- what reaches a name ------------------------------------------------------------------
    def values(self, name: str, point: Point) -> list[ast.expr] | None:
        """The values assigned to ``name`` by every definition reaching ``point``; None when some
        definition is not an assignment (a parameter, a loop target, an import...)."""
        found = self.bindings.binding(name, point)
        if not found.bound or not found.definitions:
            return None
        values = [d.value for d in found.definitions]
        if any(v is None for v in values):
            return None
        return values  # type: ignore[return-value]

    def definitions(self, name: str, point: Point) -> frozenset[Definition]:
        return self.bindings.binding(name, point).definitions

    def qualify(self, node: ast.expr) -> str | None:
        dotted = ast_dotted_name(node)
        return self.symbols.qualify_dotted(dotted) or dotted

    # -- tensors ----------------------------------------------------------------------------------
    def tensor_expression(self, node: ast.expr) -> bool:
        """A new tensor from torch (a factory, a torch transform, a tensor method of one)."""
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES:
            node = node.func.value
        if isinstance(node, ast.BinOp):
            return self.tensor_expression(node.left) or self.tensor_expression(node.right)
        if isinstance(node, ast.Subscript):
            return self.tensor_expression(node.value)
        if not isinstance(node, ast.Call):
            return False
        qualified = self.qualify(node.func) or ""
        if qualified in torch_api.TENSOR_FACTORIES or qualified in torch_api.LIKE_FACTORIES:
            return True
        if qualified in torch_api.TENSOR_TRANSFORMS:
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr in torch_api.DEVICE_PRESERVING_METHODS:
            return self.tensor_expression(node.func.value)
        return False

    def used_like_tensor(self, name: str, point: Point) -> bool:
        """Does the function around ``point`` use ``name`` as only a tensor is used, or annotate it so?"""
        scope = self.bindings.scope_at(point)
        node = scope.node
        arguments = getattr(node, "args", None)
        if isinstance(arguments, ast.arguments):
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
                if arg.arg == name and arg.annotation is not None:
                    return self.symbols.tensor_annotation(ast.unparse(arg.annotation))
        for sub in own_nodes(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == name:
                if sub.attr in TENSOR_USES:
                    return True
        return False

    def is_tensor(self, name: str | None, point: Point, expression: ast.expr | None = None) -> Evidence:
        """Is the value (``name`` at ``point``, or ``expression``) certainly a tensor?"""
        if expression is not None and self.tensor_expression(expression):
            return PROVEN
        if name is None:
            return Evidence(False, "the value is not known to be a tensor")
        if self.used_like_tensor(name, point):
            return PROVEN
        values = self.values(name, point)
        if values and all(self.tensor_expression(v) or self._layer_output(v, point) for v in values):
            return PROVEN
        return Evidence(False, f"`{name}` is not known to be a tensor")

    def _layer_output(self, value: ast.expr, point: Point) -> bool:
        """``model(x)`` where ``model`` is a torch layer (whose output is a tensor)."""
        if not isinstance(value, ast.Call) or self.qualify(value.func) in torch_api.TENSOR_FACTORIES:
            return False
        class_name = self.constructed_class(value.func, point)
        return class_name is not None and self.returns_tensor(class_name)

    @staticmethod
    def returns_tensor(class_name: str) -> bool:
        """A torch layer (not a container of other modules) returns a tensor."""
        return (
            torch_api.is_nn_module_class(class_name)
            and class_name not in torch_api.MODULE_BASES
            and class_name.rsplit(".", 1)[-1] not in ("ModuleList", "ModuleDict", "ParameterList", "ParameterDict")
            and not class_name.rsplit(".", 1)[-1].startswith(
                ("RNN", "LSTM", "GRU", "Transformer", "MultiheadAttention")
            )
        )

    def parameter_values(self, name: str, point: Point) -> list[ast.Call]:
        """The ``nn.Parameter(...)`` constructions among the values reaching ``name``."""
        found = self.bindings.binding(name, point)
        return [
            d.value
            for d in found.definitions
            if isinstance(d.value, ast.Call) and self.qualify(d.value.func) in torch_api.PARAMETER_CLASSES
        ]

    # -- modules --------------------------------------------------------------------------------------
    def constructed_class(self, node: ast.expr, point: Point, depth: int = 0) -> str | None:
        """The class (qualified torch name, or a local class name) a module expression was built from:
        ``nn.Linear(8, 2).to(device)``, or a name all of whose definitions build the same class."""
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES:
            node = node.func.value
        if isinstance(node, ast.Call):
            qualified = self.qualify(node.func)
            if qualified is not None:
                return qualified
            return None
        if isinstance(node, ast.Name) and depth < 4:
            values = self.values(node.id, point)
            if not values:
                return None
            classes = {self.constructed_class(v, (v.lineno, v.col_offset), depth + 1) for v in values}
            return classes.pop() if len(classes) == 1 else None
        return None

    def class_of(self, code: str, point: Point) -> str | None:
        """:meth:`constructed_class` of an expression given as source text."""
        try:
            tree = ast.parse(code.strip(), mode="eval")
        except SyntaxError:
            return None
        return self.constructed_class(tree.body, point)

    def takes_tensors(self, class_name: str | None) -> Evidence:
        """Does calling an instance of this class certainly need tensors (a torch layer, or a local
        module whose ``forward`` uses its input like a tensor)?"""
        if class_name is None:
            return Evidence(False, "the model's class is not known")
        if torch_api.is_nn_module_class(class_name) and class_name not in torch_api.MODULE_BASES:
            return PROVEN
        if class_name.startswith(("torchvision.models.", "timm.create_model")):
            return PROVEN
        node = self.classes.node(class_name)
        forward = _method(node, "forward") if node is not None else None
        if forward is None:
            return Evidence(False, f"`{class_name}` is not known to take tensors")
        params = [*forward.args.posonlyargs, *forward.args.args][1:]
        if params:
            first = params[0]
            point = (forward.body[0].lineno, forward.body[0].col_offset)
            if self.used_like_tensor(first.arg, point):
                return PROVEN
        return Evidence(False, f"`{class_name}.forward` is not known to take a tensor")

    def has_parameters(self, class_name: str | None, depth: int = 0) -> Evidence:
        """Does a module of this class certainly own parameters (so ``next(m.parameters())`` works)?"""
        if class_name is None:
            return Evidence(False, "the model's class is not known")
        if class_name in torch_api.STATEFUL_NN_MODULES or class_name.startswith("torchvision.models."):
            return PROVEN
        node = self.classes.node(class_name)
        if node is None or depth > 3:
            return Evidence(False, f"`{class_name}` is not known to have parameters")
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                qualified = self.qualify(sub.func) or ""
                if qualified in torch_api.PARAMETER_CLASSES or qualified in torch_api.STATEFUL_NN_MODULES:
                    return PROVEN
                if qualified != class_name and self.symbols.is_local_module_class(qualified):
                    if self.has_parameters(qualified, depth + 1):
                        return PROVEN
        return Evidence(False, f"`{class_name}` is not known to have parameters (buffers are not parameters)")

    # -- containers ------------------------------------------------------------------------------------
    def mutable_container(self, name: str, point: Point) -> Evidence:
        """Is ``name`` certainly a list or dict (so ``name[k] = ...`` works)?"""
        values = self.values(name, point)
        if values and all(self._mutable(v) for v in values):
            return PROVEN
        return Evidence(False, f"`{name}` is not known to be a list or dict (a tuple cannot be assigned to)")

    def _mutable(self, value: ast.expr) -> bool:
        if isinstance(value, (ast.List, ast.Dict, ast.ListComp, ast.DictComp)):
            return True
        return isinstance(value, ast.Call) and (ast_dotted_name(value.func) or "") in _MUTABLE_CALLS

    def container_uses(self, tree: ast.AST, owner: str, attr: str, wrapper: str) -> Evidence:
        """Does every use of ``<x>.<attr>`` in the file fit the API of ``wrapper``?  (Other classes'
        own ``self.<attr>`` are other attributes.)"""
        allowed = CONTAINER_METHODS[wrapper]
        dict_like = wrapper.endswith("Dict")
        others = _other_instances(tree, owner)
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                if not (isinstance(child, ast.Attribute) and child.attr == attr) or id(child.value) in others:
                    continue
                if isinstance(node, ast.Call) and self.qualify(node.func) in _WRAPPING_CALLS:
                    continue
                problem = _container_use_problem(node, child, allowed, dict_like)
                if problem is not None:
                    return Evidence(False, f"`{ast.unparse(child)}` is used as {problem}, which `nn.{wrapper}` lacks")
        return PROVEN

    # -- module state -----------------------------------------------------------------------------------------
    def class_declares(self, class_name: str, attr: str, depth: int = 0) -> str | None:
        """The class (``class_name`` or one of its bases in this file) whose body binds ``attr``: a class
        attribute, a method or a property, which ``register_buffer`` refuses as "already exists"."""
        node = self.classes.node(class_name)
        if node is None or depth > 5:
            return None
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if statement.name == attr:
                    return class_name
            elif isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = getattr(statement, "targets", None) or [statement.target]  # type: ignore[attr-defined]
                if statement.value is not None and any(
                    n.id == attr for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
                ):
                    return class_name
        for base in node.bases:
            name = ast_dotted_name(base)
            if name is not None and self.classes.node(name) is not None:
                found = self.class_declares(name, attr, depth + 1)
                if found is not None:
                    return found
        return None

    def non_tensor_assignment(self, class_name: str, attr: str) -> ast.expr | None:
        """A value the class assigns to ``self.<attr>`` outside ``__init__`` that a buffer may not hold
        (anything but a tensor or None: a buffer refuses a list)."""
        node = self.classes.node(class_name)
        if node is None:
            return None
        for method in node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name == "__init__":
                continue
            params = [*method.args.posonlyargs, *method.args.args]
            if not params:
                continue
            self_name = params[0].arg
            for sub in ast.walk(method):
                if not isinstance(sub, (ast.Assign, ast.AnnAssign)) or sub.value is None:
                    continue
                targets = getattr(sub, "targets", None) or [sub.target]  # type: ignore[attr-defined]
                if any(_is_self_attribute(t, self_name, attr) for t in targets):
                    if not self._buffer_value(sub.value, self_name, attr):
                        return sub.value
        return None

    def _buffer_value(self, value: ast.expr, self_name: str, attr: str) -> bool:
        if isinstance(value, ast.Constant) and value.value is None:
            return True
        if self.tensor_expression(value):
            return True
        # Computed from the attribute itself (``self.h = self.h * 0.5``, ``self.h.to(x.device)``).
        return any(_is_self_attribute(n, self_name, attr) for n in ast.walk(value)) and not isinstance(
            value, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.Constant)
        )

    # -- devices --------------------------------------------------------------------------------------------
    def device_owner(self, owner: ast.expr, point: Point, *, lightning: bool) -> Evidence:
        """Is ``owner.device`` certainly a ``torch.device`` (the owner a tensor or a module with ``.device``)?"""
        if isinstance(owner, ast.Call) and ast_dotted_name(owner.func) == "next":
            return PROVEN  # ``next(model.parameters()).device``
        if isinstance(owner, ast.Attribute) and owner.attr in ("weight", "bias"):
            return PROVEN
        if isinstance(owner, ast.Name):
            if owner.id in ("self", "cls"):
                if lightning:
                    return PROVEN
                return Evidence(False, "this class's `.device` is not known to be a `torch.device`")
            if self.is_tensor(owner.id, point):
                return PROVEN
        if self.tensor_expression(owner):
            return PROVEN
        text = ast.unparse(owner)
        return Evidence(False, f"`{text}.device` is not known to be a `torch.device` (a string has no `.type`)")


def _other_instances(tree: ast.AST, owner: str) -> set[int]:
    """The ``self`` names (as node ids) in the methods of every class but ``owner``."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or node.name == owner:
            continue
        for method in node.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
                self_name = method.args.args[0].arg
                found.update(id(n) for n in ast.walk(method) if isinstance(n, ast.Name) and n.id == self_name)
    return found


def _is_self_attribute(node: ast.AST, self_name: str, attr: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == attr
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    )


def _method(node: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == name:
            return statement
    return None


def _container_use_problem(parent: ast.AST, use: ast.Attribute, allowed: frozenset[str], dict_like: bool) -> str | None:
    """What a use of the container (``use``, a child of ``parent``) needs that the wrapper may lack;
    None for the uses both support (methods of the wrapper, indexing, iteration, ``len``, ``in``, truth)."""
    if isinstance(parent, ast.Attribute):
        return None if parent.attr in allowed else f"`.{parent.attr}`"
    if isinstance(parent, ast.Subscript) and parent.value is use:
        index = parent.slice
        if dict_like and isinstance(index, ast.Constant) and not isinstance(index.value, str):
            return "a dict with a non-string key"
        return None
    if isinstance(parent, ast.Call):
        name = ast_dotted_name(parent.func) or "..."
        return None if name in _ITERATING_CALLS and use in parent.args else f"an argument of `{name}(...)`"
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is use:
        return None
    if isinstance(parent, (ast.Starred, ast.Compare, ast.If, ast.While, ast.BoolOp, ast.Delete)):
        return None
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        return None
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets: Iterable[ast.AST] = getattr(parent, "targets", None) or [getattr(parent, "target", None)]
        if use in targets:
            return None  # (re)assignments are the rule's own concern
        if all(isinstance(t, (ast.Tuple, ast.List)) for t in targets):
            return None  # unpacked
        return "a value assigned elsewhere"
    if isinstance(parent, ast.BinOp):
        # ``layers + [extra]`` works on a ModuleList (``__add__`` takes any iterable); the reverse does not.
        if isinstance(parent.op, ast.Add) and parent.left is use and not dict_like:
            return None
        return "an operand"
    return "a value passed on"
