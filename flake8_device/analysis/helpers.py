"""Helper classes that keep tensor constants but are not modules, read from the ``ast``.

A normaliser, a class-weighting object or a box coder often stores a few
constant tensors (``self.mean = torch.tensor(mean).view(3, 1, 1)``) and
combines them with what it is given (``(x - self.mean) / self.std``).  When
the class is not an ``nn.Module`` nothing ever moves those constants: given a
batch on the accelerator, the arithmetic fails.  This module finds such
classes and, per method, which parameters meet which constants; the flow
analysis reports a call that hands such a method a tensor on the accelerator.

Read from the ``ast`` of the whole file, since the class and the code using it
are usually in different units (and only some units are parsed with LibCST).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from flake8_device.analysis import torch_api
from flake8_device.analysis.classes import ClassTable
from flake8_device.analysis.symbols import Symbols, ast_dotted_name

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)
# Calls that give a tensor at least one dimension, so a 0-dim constant stops being one.
_SHAPING_METHODS = frozenset({"view", "reshape", "unsqueeze", "expand", "expand_as", "view_as", "reshape_as"})
_MOVES = frozenset({"to", "cuda", "cpu", "type_as", "pin_memory"})
# A method that mentions devices may align its inputs itself.
_DEVICE_WORDS = frozenset({"to", "cuda", "cpu", "device", "type_as"})


@dataclass(frozen=True)
class HelperMethod:
    name: str
    # Parameters after ``self``, in order (positional first, then keyword-only).
    parameters: tuple[str, ...]
    # Parameter -> the constants it meets in arithmetic (in source order).
    meetings: dict[str, tuple[str, ...]]


@dataclass
class HelperClass:
    name: str
    # Constant attribute -> line of its creation in ``__init__``.
    constants: dict[str, int] = field(default_factory=dict)
    methods: dict[str, HelperMethod] = field(default_factory=dict)


@dataclass(frozen=True)
class _Constant:
    attribute: str
    # Could be 0-dim (``torch.tensor(scale)``): 0-dim CPU tensors mix legally with device tensors.
    maybe_scalar: bool


class HelperClasses:
    """The helper classes of one file, computed on first use per class name."""

    def __init__(self, classes: ClassTable, symbols: Symbols) -> None:
        self.symbols = symbols
        self.classes = classes
        self._done: dict[str, HelperClass | None] = {}

    def get(self, name: str) -> HelperClass | None:
        """The class ``name`` if it is a non-module class whose methods combine host constants with inputs."""
        if name not in self._done:
            node = self.classes.node(name)
            self._done[name] = self._read(node) if node is not None else None
        return self._done[name]

    # -- reading one class ------------------------------------------------------
    def _read(self, node: ast.ClassDef) -> HelperClass | None:
        if self.symbols.is_local_module_class(node.name) or any(
            ast_dotted_name(b) not in (None, "object", "ABC", "abc.ABC") for b in node.bases
        ):
            return None  # a module moves its buffers; a subclass may get moved by its base
        methods = {m.name: m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if "__init__" not in methods or methods.keys() & {"to", "cuda", "cpu", "_apply"}:
            return None
        info = HelperClass(node.name)
        constants = self._constants(methods["__init__"], node)
        if not constants:
            return None
        info.constants = {c.attribute: line for c, line in constants.items()}
        by_name = {c.attribute: c for c in constants}
        for method in methods.values():
            if method.name == "__init__" or not method.args.args:
                continue
            found = self._meetings(method, by_name)
            if found is not None:
                info.methods[method.name] = found
        return info if info.methods else None

    def _constants(self, init: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef) -> dict[_Constant, int]:
        if not init.args.args:
            return {}
        self_name = init.args.args[0].arg
        assigned: dict[str, int] = {}
        moved: set[str] = set()
        for sub in ast.walk(owner):
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for target in targets:
                    attr = _self_attribute(target, self_name)
                    if attr is not None:
                        assigned[attr] = assigned.get(attr, 0) + 1
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in _MOVES:
                attr = _self_attribute(sub.func.value, self_name)
                if attr is not None:
                    moved.add(attr)
        found: dict[_Constant, int] = {}
        for statement in init.body:
            if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                continue
            attr = _self_attribute(statement.targets[0], self_name)
            if attr is None or assigned.get(attr) != 1 or attr in moved:
                continue
            host = self._host_factory(statement.value)
            if host is not None:
                found[_Constant(attr, host)] = statement.lineno
        return found

    def _host_factory(self, node: ast.expr) -> bool | None:
        """None if ``node`` is not a tensor built on the host by torch; else whether it may be 0-dim."""
        if isinstance(node, ast.Call):
            qualified = self.symbols.qualify_dotted(ast_dotted_name(node.func))
            if qualified in torch_api.TENSOR_FACTORIES:
                if any(k.arg == "device" for k in node.keywords):
                    return None
                first = node.args[0] if node.args else None
                if qualified in ("torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor"):
                    return not isinstance(first, (ast.List, ast.Tuple, ast.ListComp))
                return not node.args or all(isinstance(a, ast.Tuple) and not a.elts for a in node.args)
            if qualified in torch_api.TENSOR_TRANSFORMS:
                inner = [self._host_factory(a) for a in node.args]
                known = [i for i in inner if i is not None]
                return all(known) if known else None
            if isinstance(node.func, ast.Attribute) and node.func.attr in torch_api.DEVICE_PRESERVING_METHODS:
                inner_value = self._host_factory(node.func.value)
                if inner_value is None:
                    return None
                return inner_value and node.func.attr not in _SHAPING_METHODS
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            left, right = self._host_factory(node.left), self._host_factory(node.right)
            if left is not None and (right is not None or _is_number(node.right)):
                return left and (right is None or right)
            if right is not None and _is_number(node.left):
                return right
            return None
        if isinstance(node, ast.Subscript):
            inner_value = self._host_factory(node.value)
            return None if inner_value is None else inner_value and not _adds_axis(node.slice)
        return None

    def _meetings(
        self, method: ast.FunctionDef | ast.AsyncFunctionDef, constants: dict[str, _Constant]
    ) -> HelperMethod | None:
        if any(ast_dotted_name(d) in ("staticmethod", "classmethod") for d in method.decorator_list):
            return None
        self_name = method.args.args[0].arg
        parameters = tuple(a.arg for a in [*method.args.args[1:], *method.args.kwonlyargs])
        if _mentions_devices(method):
            return None
        meetings: dict[str, list[str]] = {}

        def meet(operands: list[ast.expr]) -> None:
            used = [c for c in (self._constant_ref(o, self_name, constants) for o in operands) if c is not None]
            inputs = [p for p in (_parameter_of(o, parameters) for o in operands) if p is not None]
            for parameter in inputs:
                for attribute in used:
                    if attribute not in meetings.setdefault(parameter, []):
                        meetings[parameter].append(attribute)

        for sub in ast.walk(method):
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, _ARITHMETIC):
                meet([sub.left, sub.right])
            elif isinstance(sub, ast.AugAssign) and isinstance(sub.op, _ARITHMETIC):
                meet([sub.target, sub.value])
            elif isinstance(sub, ast.Call):
                func = sub.func
                qualified = self.symbols.qualify_dotted(ast_dotted_name(func))
                arguments = [
                    a for arg in sub.args for a in (arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg])
                ]
                if qualified is not None and qualified.startswith("torch."):
                    meet(arguments)
                elif isinstance(func, ast.Attribute) and func.attr in torch_api.DEVICE_PRESERVING_METHODS:
                    meet([func.value, *arguments])
        if not meetings:
            return None
        order = list(constants)  # creation order in `__init__`
        ordered = {k: tuple(sorted(v, key=order.index)) for k, v in meetings.items()}
        return HelperMethod(method.name, parameters, ordered)

    def _constant_ref(self, node: ast.expr, self_name: str, constants: dict[str, _Constant]) -> str | None:
        """``mean`` for ``self.mean``, ``self.mean[:, None]``, ``self.mean.view(1, 3)`` (when not 0-dim)."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            # `self.std + self.eps`: a host tensor made of constants (and numbers).
            return self._constant_ref(node.left, self_name, constants) or self._constant_ref(
                node.right, self_name, constants
            )
        shaped = False
        while True:
            if isinstance(node, ast.Subscript):
                shaped = shaped or _adds_axis(node.slice)
                node = node.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in torch_api.DEVICE_PRESERVING_METHODS
            ):
                shaped = shaped or node.func.attr in _SHAPING_METHODS
                node = node.func.value
            else:
                break
        attr = _self_attribute(node, self_name)
        constant = constants.get(attr or "")
        if constant is None or (constant.maybe_scalar and not shaped):
            return None
        return constant.attribute


def _self_attribute(node: ast.expr, self_name: str) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    return None


def _parameter_of(node: ast.expr, parameters: tuple[str, ...]) -> str | None:
    """The parameter an operand is computed from by device-keeping steps (``x``, ``x[0]``, ``x.float()``)."""
    if isinstance(node, ast.Name):
        return node.id if node.id in parameters else None
    if isinstance(node, ast.Subscript):
        return _parameter_of(node.value, parameters)
    if isinstance(node, ast.UnaryOp):
        return _parameter_of(node.operand, parameters)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        return _parameter_of(node.left, parameters) or _parameter_of(node.right, parameters)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in torch_api.DEVICE_PRESERVING_METHODS
    ):
        return _parameter_of(node.func.value, parameters)
    return None


def _adds_axis(index: ast.expr) -> bool:
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(i, ast.Constant) and i.value is None for i in items)


def _is_number(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool)
    return isinstance(node, ast.UnaryOp) and _is_number(node.operand)


def _mentions_devices(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for sub in ast.walk(method):
        if isinstance(sub, ast.Attribute) and sub.attr in _DEVICE_WORDS:
            return True
        if isinstance(sub, ast.keyword) and sub.arg == "device":
            return True
    return False
