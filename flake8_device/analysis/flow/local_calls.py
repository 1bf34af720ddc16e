"""Calls into the file's own code: ``helper(x)``, ``self.reset()``, ``super().__init__(...)``.

The callee's summary (:mod:`.summaries`) is applied at the call: its result, the arguments it
moves in place, and the attributes it sets on ``self``.  The values passed are also recorded as
the callee's calling context, which its own interpretation starts from.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from flake8_device.analysis.flow.base import InterpreterBase
from flake8_device.analysis.flow.events import Operand
from flake8_device.analysis.flow.program import Signature
from flake8_device.analysis.flow.summaries import substitute
from flake8_device.analysis.flow.syntax import path_of
from flake8_device.analysis.flow.values import UNKNOWN, Kind, Value


class LocalCallsMixin(InterpreterBase):
    def _local_callee(self, func: cst.BaseExpression) -> tuple[cst.FunctionDef, bool] | None:
        """The function of this file a call runs, and whether ``self`` is bound (a method call)."""
        program = self.analysis.program
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        if name in self.ctx.config.move_functions:
            return None  # configured as a move: that is what it does, whatever its body says
        if isinstance(func, cst.Name):
            if name in self.state.env or self.symbols.imports.get(name) is not None:
                return None  # a local variable or an import shadows it
            function = program.functions.get(name)
            return (function, False) if function is not None and function is not self.function else None
        if not isinstance(func, cst.Attribute) or self.owner is None:
            return None
        base = func.value
        if isinstance(base, cst.Name) and base.value == self.self_name:
            method = program.method(self.owner.name.value, func.attr.value)
        elif isinstance(base, cst.Call) and isinstance(base.func, cst.Name) and base.func.value == "super":
            method = program.base_method(self.owner.name.value, func.attr.value)
        else:
            return None
        return (method, True) if method is not None and method is not self.function else None

    def _call_local(self, node: cst.Call, function: cst.FunctionDef, bound: bool) -> Value:
        arguments = [Operand(a.value, self._eval(a.value)) for a in node.args]
        for argument in arguments:
            if argument.value.module is not False and argument.value.kind in (Kind.ACCEL, Kind.HOST):
                self._use(argument.expr)  # a model handed on: attachments made to it so far are settled
        binding = Signature.of(function, bound=bound).bind(node)
        if binding is None:
            return UNKNOWN
        by_argument = {id(arg): operand.value for arg, operand in zip(node.args, arguments)}
        values = {name: by_argument[id(arg)] for name, arg in binding.items()}
        texts = {name: self.ctx.code_for(arg.value) for name, arg in binding.items()}
        self.analysis.record_context(function, values, record=self.record and not self.summary_mode)
        summary = self.analysis.summary(function)
        if summary is None:
            return UNKNOWN
        for name, moved in summary.moves.items():
            argument = binding.get(name)
            path = path_of(argument.value) if argument is not None else None
            if path is None or values[name].module is False:
                continue
            placed = substitute(moved, values, texts)
            if placed.kind is not Kind.ACCEL:
                continue
            self.state.env[path] = replace(placed, module=True if values[name].module is None else values[name].module)
            self._moved(path)
            self._check_optimizers(path, placed, node)
        if bound and self.self_name is not None:
            for attribute, value in summary.attributes.items():
                self.state.env[f"{self.self_name}.{attribute}"] = substitute(value, values, texts)
        return substitute(summary.returns, values, texts)
