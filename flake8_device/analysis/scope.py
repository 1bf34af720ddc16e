"""Names a fix can use at a given place: the device variable in scope.

Fixes that create or load a tensor "on the device in scope" need a name that
certainly holds a device *there*: a parameter called ``device`` (or ``dev``,
``*_device``), such a local variable assigned before that place,
``self.device`` in a Lightning module (or a module whose ``__init__`` sets it),
or, inside a function, a module-level ``device`` assigned unconditionally (not
only under ``if __name__ == "__main__":``, which an importer never runs).  A
name ever bound to an integer, ``None`` or a bool is not a device.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

import libcst as cst

from flake8_device.analysis import patterns
from flake8_device.walk import children

if TYPE_CHECKING:
    from flake8_device.analysis.facts import FileFacts

DEVICE_VARIABLE = re.compile(r"^(?:\w+_)?device$|^dev$")


def _not_a_device(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Integer) or (isinstance(node, cst.Name) and node.value in ("None", "True", "False"))


def _pick(values: dict[str, list[cst.BaseExpression]]) -> str | None:
    usable = sorted(name for name, bound in values.items() if not any(_not_a_device(v) for v in bound))
    return ("device" if "device" in usable else usable[0]) if usable else None


def _assigned_before(scope: cst.CSTNode, place: cst.CSTNode) -> dict[str, list[cst.BaseExpression]]:
    """Device-named variables whose assignment statement is complete before ``place`` (source order)."""
    values: dict[str, list[cst.BaseExpression]] = {}
    stack: list[tuple[cst.CSTNode, bool]] = [(c, False) for c in reversed(list(children(scope)))]
    while stack:
        node, leaving = stack.pop()
        if node is place:
            break
        if leaving:
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Name) and DEVICE_VARIABLE.match(target.target.value):
                        values.setdefault(target.target.value, []).append(node.value)
            elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
                if DEVICE_VARIABLE.match(node.target.value):
                    values.setdefault(node.target.value, []).append(node.value)
            continue
        stack.append((node, True))
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend((c, False) for c in reversed(list(children(node))))
    return values


def _parameter_device(function: cst.FunctionDef) -> str | None:
    params = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    for param in params:
        if DEVICE_VARIABLE.match(param.name.value) and not _not_a_device(param.default):
            return param.name.value
    return None


def _global_device(tree: ast.Module | None) -> str | None:
    """A module-level device assigned unconditionally (directly in the module body)."""
    if tree is None:
        return None
    good: set[str] = set()
    bad: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name) and DEVICE_VARIABLE.match(target.id):
                    value = statement.value
                    constant = isinstance(value, ast.Constant) and not isinstance(value.value, str)
                    (bad if constant else good).add(target.id)
    usable = sorted(good - bad)
    return ("device" if "device" in usable else usable[0]) if usable else None


def device_variable(
    ctx: FileFacts, function: cst.FunctionDef | None, owner: cst.ClassDef | None, place: cst.CSTNode
) -> str | None:
    """The expression naming the device at ``place`` inside ``function`` (a method of ``owner``), else None."""
    if function is None:
        return _pick(_assigned_before(ctx.module, place))
    local = _pick(_assigned_before(function, place)) or _parameter_device(function)
    if local is not None:
        return local
    self_name = patterns.first_param_name(function)
    if owner is not None and self_name is not None:
        if ctx.symbols.is_lightning_module_class(owner.name.value):
            return f"{self_name}.device"
        info = ctx.class_info(owner)
        if info is not None and info.init_assignment_count.get("device", 0) and "device" not in info.method_names:
            if function.name.value != "__init__":
                return f"{self_name}.device"
    return _global_device(ctx.tree)
