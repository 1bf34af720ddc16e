"""Small questions about the shape of LibCST nodes, shared by many rules."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from flake8_device.analysis import torch_api
from flake8_device.analysis.symbols import Symbols, dotted_name


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call, index: int) -> cst.Arg | None:
    args = [a for a in call.args if a.keyword is None and not a.star]
    return args[index] if index < len(args) else None


def method_name(call: cst.Call) -> str | None:
    """``to`` for ``x.to(...)``."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def last_name(node: cst.BaseExpression) -> str | None:
    """``Linear`` for ``nn.Linear``, ``f`` for ``f``: the name a call is written with (aliases included)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def receiver(call: cst.Call) -> cst.BaseExpression | None:
    return call.func.value if isinstance(call.func, cst.Attribute) else None


def first_param_name(function: cst.FunctionDef) -> str | None:
    params = function.params.posonly_params or function.params.params
    return params[0].name.value if params else None


def self_attribute(node: cst.BaseExpression, self_name: str | None) -> str | None:
    """``mask`` for ``self.mask`` (with the method's own name for ``self``)."""
    if (
        self_name is not None
        and isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == self_name
    ):
        return node.attr.value
    return None


def root_name(node: cst.BaseExpression) -> str | None:
    """``cfg`` for ``cfg["a"]["b"]``, ``cfg.a`` or ``cfg.get("a")``; None when it is not a name."""
    while True:
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        else:
            break
    return node.value if isinstance(node, cst.Name) else None


def is_string(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))


def string_value(node: cst.BaseExpression) -> str | None:
    if not isinstance(node, cst.SimpleString):
        return None
    prefix = node.prefix.lower()
    raw = node.raw_value
    if prefix in ("", "u", "r") and ("\\" not in raw or prefix == "r") and "\r" not in raw:
        # No escape to interpret (``"cuda"``, ``'cpu'``, a raw string): the text is the value.
        # LibCST's ``evaluated_value`` compiles the literal, several times the cost of all else.
        return raw
    value = node.evaluated_value
    return value if isinstance(value, str) else None


def maybe_zero_dim_factory(call: cst.Call, qualified: str) -> bool:
    """``torch.tensor(0.5)`` may be 0-dim (and mixes legally with device tensors); ``torch.empty(0)``
    holds nothing (a placeholder for an unused argument): neither is worth a finding."""
    first = positional(call, 0)
    if qualified in ("torch.tensor", "torch.as_tensor", "torch.scalar_tensor"):
        return first is None or not isinstance(first.value, (cst.List, cst.Tuple, cst.ListComp))
    if qualified in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor") and not call.args:
        return True  # ``torch.Tensor()``: an empty tensor (what a helper returns for no input)
    if qualified in ("torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn"):
        if first is None:
            return False
        shape = first.value
        if isinstance(shape, (cst.Tuple, cst.List)):
            return not shape.elements or any(_is_zero(e.value) for e in shape.elements)
        return _is_zero(shape)
    return False


def subscript_index(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``k`` of ``x[k]`` with one plain index (not a slice, not ``x[a, b]``); None otherwise."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return node.slice[0].slice.value
    return None


def subscript_key(node: cst.BaseExpression) -> str | None:
    """``"k"`` of ``x["k"]``; None for any other expression."""
    index = subscript_index(node)
    return string_value(index) if index is not None else None


def holds_nothing(call: cst.Call) -> bool:
    """``torch.tensor([])``, ``torch.empty(0)``: an empty placeholder (a cache not filled yet), which
    code tests (``x.numel() != 0``) or rebinds before it meets anything."""
    first = positional(call, 0)
    name = dotted_name(call.func) or ""
    if not call.args and name.endswith((".Tensor", ".FloatTensor", ".LongTensor")):
        return True  # ``torch.Tensor()``: what a helper returns for no input
    if first is None or keyword(call, "device") is not None:
        return False
    if name.endswith((".tensor", ".as_tensor", ".Tensor")):
        return isinstance(first.value, (cst.List, cst.Tuple)) and not first.value.elements
    if name.endswith((".zeros", ".ones", ".empty")):
        shape = first.value
        if isinstance(shape, (cst.List, cst.Tuple)) and len(shape.elements) == 1:
            shape = shape.elements[0].value  # ``torch.empty([0])``
        return _is_zero(shape) and len(call.args) == 1
    return False


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0


def factory_name(node: cst.BaseExpression, symbols: Symbols) -> str | None:
    """The qualified torch factory a call is (``torch.zeros``), else None."""
    if not isinstance(node, cst.Call):
        return None
    qualified = symbols.qualify(node.func)
    if qualified in torch_api.TENSOR_FACTORIES:
        return qualified
    return None


def factory_expression(node: cst.BaseExpression, symbols: Symbols, *, host_only: bool) -> cst.Call | None:
    """If ``node`` builds a new tensor from torch factories, the factory call.

    Accepts ``torch.ones(n)``, ``torch.tril(torch.ones(n, n))``,
    ``torch.arange(n).float().unsqueeze(0)``, ``1 - torch.eye(n)``: tensor
    factories, torch transforms of them, tensor methods that keep the device,
    and arithmetic with numbers.  With ``host_only``, a factory given a
    ``device=`` other than ``"cpu"`` does not count.  Anything that moves the
    tensor or mixes in an unknown value makes it not a factory expression.
    """

    def inner(value: cst.BaseExpression) -> cst.Call | None:
        return factory_expression(value, symbols, host_only=host_only)

    if isinstance(node, cst.Call):
        qualified = symbols.qualify(node.func)
        if qualified in torch_api.TENSOR_FACTORIES:
            device = keyword(node, "device")
            if host_only and device is not None and string_value(device.value) != "cpu":
                return None
            return node
        if qualified in torch_api.TENSOR_TRANSFORMS:
            found = [inner(arg.value) for arg in node.args]
            return next((f for f in found if f is not None), None)
        base = receiver(node)
        if base is not None and method_name(node) in torch_api.DEVICE_PRESERVING_METHODS:
            return inner(base)
        return None
    if isinstance(node, cst.BinaryOperation):
        left, right = inner(node.left), inner(node.right)
        if left is not None and (right is not None or _is_number(node.right)):
            return left
        if right is not None and _is_number(node.left):
            return right
        return None
    if isinstance(node, cst.UnaryOperation):
        return inner(node.expression)
    if isinstance(node, cst.Subscript):
        return inner(node.value)
    return None


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return True
    return isinstance(node, cst.UnaryOperation) and _is_number(node.expression)


def is_atomic(node: cst.BaseExpression) -> bool:
    """Can ``.to(...)`` be appended to this expression's text (without its own parentheses)?"""
    return isinstance(
        node,
        (
            cst.Name,
            cst.Attribute,
            cst.Call,
            cst.Subscript,
            cst.List,
            cst.Tuple,
            cst.Dict,
            cst.ListComp,
            cst.DictComp,
            cst.SetComp,
            cst.Set,
            cst.SimpleString,
        ),
    )


def body_statements(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    body = function.body
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    return [cst.SimpleStatementLine(body=list(body.body))]


def calls_super_init(statement: cst.BaseStatement) -> bool:
    """``super().__init__(...)`` or ``nn.Module.__init__(self)``-style calls."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            if isinstance(func, cst.Attribute) and func.attr.value == "__init__":
                return True
    return False


def appended(node: cst.BaseExpression, suffix: str) -> tuple[str | cst.CSTNode, ...]:
    """Fix parts: ``node`` as written followed by ``suffix``, parenthesised when needed."""
    return (node, suffix) if is_atomic(node) else ("(", node, ")", suffix)


def keyword_added(call: cst.Call, name: str, value: str) -> tuple[cst.CSTNode, tuple[str | cst.CSTNode, ...]]:
    """What to replace, and with which parts, to give ``call`` a ``name=value`` argument.

    The new argument goes right after the last one (``f(a, b)`` becomes
    ``f(a, b, device=x.device)``; a trailing comma stays after it), so the
    call's own layout is kept.
    """
    if not call.args:
        return call, (call.func, f"({name}={value})")
    last = call.args[-1].value
    # The replaced span holds the argument's own parentheses, a copied part does not: a tuple keeps
    # them, or ``torch.tensor((1.0, 2.0))`` would become ``torch.tensor(1.0, 2.0, device=...)``.
    written: tuple[str | cst.CSTNode, ...] = ("(", last, ")") if isinstance(last, cst.Tuple) and last.lpar else (last,)
    return last, (*written, f", {name}={value}")


def scope_nodes(scope: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node of a function's (or the module's) own scope: nested functions and classes are skipped."""
    from flake8_device.walk import children

    stack = list(children(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(children(node))


def single_binding(scope: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value a name is bound to once in this scope (nested scopes aside), and never changed in
    place (else None)."""
    values: list[cst.BaseExpression] = []
    for node in scope_nodes(scope):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    values.append(node.value)
                elif isinstance(target.target, cst.Subscript) and root_name(target.target) == name:
                    return None  # ``ds_config["zero_optimization"]["stage"] = 3``
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and isinstance(node.target, cst.Name):
            if node.target.value == name:
                if isinstance(node, cst.AugAssign) or node.value is None:
                    return None
                values.append(node.value)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and isinstance(node.target, cst.Subscript):
            if root_name(node.target) == name:
                return None
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in ("update", "setdefault", "pop") and root_name(node.func.value) == name:
                return None  # changed in place
        elif isinstance(node, (cst.For, cst.With, cst.NamedExpr)):
            target = getattr(node, "target", None)
            if isinstance(target, cst.Name) and target.value == name:
                return None
    return values[0] if len(values) == 1 else None


@dataclass(frozen=True)
class AttributeAssignment:
    """``self.<attr> = value`` as a statement of a method's body."""

    statement: cst.Assign | cst.AnnAssign
    target: cst.BaseExpression
    value: cst.BaseExpression
    attr: str
    self_name: str
    # ``super().__init__()`` (or ``Base.__init__(self)``) ran before this statement.
    after_super_init: bool


def attribute_assignments(function: cst.FunctionDef) -> Iterator[AttributeAssignment]:
    """The ``self.<attr> = ...`` statements directly in ``function``'s body, in order."""
    self_name = first_param_name(function)
    if self_name is None:
        return
    seen_super = False
    for statement in body_statements(function):
        if calls_super_init(statement):
            seen_super = True
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target, value = small.target, small.value
            else:
                continue
            attr = self_attribute(target, self_name)
            if attr is not None:
                yield AttributeAssignment(small, target, value, attr, self_name, seen_super)
