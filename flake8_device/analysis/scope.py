"""Names a fix can use at a given place: the device variable in scope.

Fixes that create or load a tensor "on the device in scope" need a name that
holds a device there: a parameter or local variable called ``device`` (or
``dev``, ``*_device``), ``self.device`` in a Lightning module (or a module that
sets it), or a module-level ``device``.  A name only ever bound to an integer
or ``None`` is not a device.
"""

from __future__ import annotations

import ast
import re

from typing import TYPE_CHECKING

import libcst as cst

from flake8_device.analysis import patterns
from flake8_device.analysis.symbols import module_level_statements

if TYPE_CHECKING:
    from flake8_device.context import FileContext

DEVICE_VARIABLE = re.compile(r"^(?:\w+_)?device$|^dev$")


def _not_a_device(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Integer) or (isinstance(node, cst.Name) and node.value in ("None", "True", "False"))


def _ast_not_a_device(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and not isinstance(node.value, str)


def _local_device(function: cst.FunctionDef) -> str | None:
    params = [
        *function.params.posonly_params,
        *function.params.params,
        *function.params.kwonly_params,
    ]
    for param in params:
        if DEVICE_VARIABLE.match(param.name.value) and not _not_a_device(param.default):
            return param.name.value
    values: dict[str, list[cst.BaseExpression]] = {}
    for node in patterns.scope_nodes(function):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and DEVICE_VARIABLE.match(target.target.value):
                    values.setdefault(target.target.value, []).append(node.value)
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            if DEVICE_VARIABLE.match(node.target.value):
                values.setdefault(node.target.value, []).append(node.value)
    usable = sorted(name for name, bound in values.items() if not any(_not_a_device(v) for v in bound))
    return ("device" if "device" in usable else usable[0]) if usable else None


def _module_device(tree: ast.Module | None) -> str | None:
    if tree is None:
        return None
    values: dict[str, list[ast.expr]] = {}
    for statement in module_level_statements(tree.body):
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name) and DEVICE_VARIABLE.match(target.id):
                    values.setdefault(target.id, []).append(statement.value)
    usable = sorted(name for name, bound in values.items() if not any(_ast_not_a_device(v) for v in bound))
    return ("device" if "device" in usable else usable[0]) if usable else None


def device_variable(ctx: FileContext, function: cst.FunctionDef | None, owner: cst.ClassDef | None) -> str | None:
    """The expression naming the device in scope inside ``function`` (a method of ``owner``), else None."""
    if function is not None:
        local = _local_device(function)
        if local is not None:
            return local
        self_name = patterns.first_param_name(function)
        if owner is not None and self_name is not None:
            if ctx.symbols.is_lightning_module_class(owner.name.value):
                return f"{self_name}.device"
            info = ctx.class_info(owner)
            if info is not None and info.init_assignment_count.get("device", 0) and "device" not in info.method_names:
                return f"{self_name}.device"
    return _module_device(ctx.tree)
