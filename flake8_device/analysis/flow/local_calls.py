"""Calls into the file's own code: ``helper(x)``, ``self.reset()``, ``super().__init__(...)``.

The callee's summary (:mod:`.summaries`) is applied at the call: its result, the arguments it
moves in place, and the attributes it sets on ``self``.  The values passed are also recorded as
the callee's calling context, which its own interpretation starts from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import libcst as cst

from flake8_device.analysis import patterns
from flake8_device.analysis.flow.base import ForeignModule, InterpreterBase
from flake8_device.analysis.flow.events import DeviceIgnored, Operand
from flake8_device.analysis.flow.knowledge import PLACEMENT_KEYWORDS
from flake8_device.analysis.flow.program import Signature
from flake8_device.analysis.flow.summaries import STATE, LocalResult, Summary, inert_arguments, substitute
from flake8_device.analysis.flow.syntax import block_of, is_classmethod, is_static, path_of
from flake8_device.analysis.flow.values import (
    NEUTRAL,
    UNKNOWN,
    Kind,
    Value,
    alternatives,
    bounded,
    constant_everywhere,
    container_of,
    element_values,
    item_at,
    item_of,
    leaves,
    lift,
    neutral_constant,
    tensorish,
    union,
    with_item,
)


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
        if not isinstance(func, cst.Attribute):
            return None
        base = func.value
        if isinstance(base, cst.Name) and base.value in program.classes and base.value not in self.state.env:
            # ``Boxes.convert(...)``: a static method, a class method, or a method given its instance.
            method = program.method(base.value, func.attr.value)
            if method is None:
                return None
            return method, is_classmethod(method)
        if self.owner is None:
            return None
        if isinstance(base, cst.Name) and base.value == self.self_name:
            method = program.method(self.owner.name.value, func.attr.value) or program.subclass_method(
                self.owner.name.value, func.attr.value
            )
        elif isinstance(base, cst.Call) and isinstance(base.func, cst.Name) and base.func.value == "super":
            method = program.base_method(self.owner.name.value, func.attr.value)
        else:
            return None
        return (method, True) if method is not None and method is not self.function else None

    def _imported_callee(self, func: cst.BaseExpression) -> tuple[ForeignModule, cst.FunctionDef] | None:
        """A function of another module of the project (see ``FlowAnalysis.imported_function``),
        unless a local name shadows the import."""
        name = func if isinstance(func, cst.Name) else func.value if isinstance(func, cst.Attribute) else None
        if not isinstance(name, cst.Name) or name.value in self.state.env:
            return None
        found = self.analysis.imported_function(func)
        if found is None:
            return None
        summary = self.analysis.foreign_summary(*found)
        if summary is None:
            return None
        returned = leaves(summary.returns)
        if not (summary.moves or summary.meets or any(tensorish(v) or v.module is True for v in returned)):
            # It returns no tensor or module and moves nothing: what the call's own shape says (a
            # loss factory, a checkpoint-restoring helper) stands.
            return None
        return found

    def _call_local(
        self, node: cst.Call, function: cst.FunctionDef, bound: bool, *, source: ForeignModule | None = None
    ) -> Value:
        """A call of a function of this file or, from ``source``, of another module of the project."""
        if not node.args and not bound and source is None and self.discarded is node:
            # ``main()``: no argument to move or meet, no result to use; what happens inside is the
            # function's own run's business, so its summary is not needed here.
            self.analysis.record_context(function, {}, record=self.record and not self.summary_mode)
            return UNKNOWN
        arguments = [Operand(a.value, self._eval(a.value)) for a in node.args]
        for argument in arguments:
            if argument.value.module is not False and argument.value.kind in (Kind.ACCEL, Kind.HOST):
                self._use(argument.expr)  # a model handed on: attachments made to it so far are settled
        bound_call = self._bind_call(node, function, arguments, bound=bound)
        if bound_call is None:
            return UNKNOWN
        binding, values, texts = bound_call
        context = dict(values)
        if bound and self.self_name is not None:
            # A method called on ``self`` sees the attributes ``self`` has here.
            prefix = f"{self.self_name}."
            context.update(
                {
                    f"self.{path[len(prefix) :]}": value
                    for path, value in self.state.env.items()
                    if path.startswith(prefix)
                }
            )
        if source is None:
            self.analysis.record_context(function, context, record=self.record and not self.summary_mode)
            summary = self.analysis.summary(function, attributes=self._facts_of_self(function) if bound else None)
        else:
            summary = self.analysis.foreign_summary(source, function)
        if summary is None:
            return UNKNOWN
        self._apply_moves(node, summary, binding, values, texts)
        rebase = self._owner_rebase(function, binding, bound=bound, instance=self.self_name)
        if bound and self.self_name is not None:
            for attribute, value in summary.attributes.items():
                placed = self._settle_optimizers(substitute(value, values, texts), rebase)
                self.state.env[f"{self.self_name}.{attribute}"] = placed
        self._meet_arguments(node, function, summary, binding, values)
        self._check_device_ignored(node, function, summary, binding, values)
        if bound and self.summary_mode and self.in_module_class:
            self._state_meets(summary, binding, values)  # ``self.forward(x)`` in another method
        # What the function computes from several of its tensor arguments is where they are.
        places = [v for v in values.values() if tensorish(v) or v.kind is Kind.MAYBE]
        here = union(places) if places else None
        if bound and self.in_module_class:
            here = Value(Kind.INPUT, module=False)  # a method of this module: its state is where the inputs are
        returned = self._settle_optimizers(substitute(summary.returns, values, texts, here), rebase)
        return _made_here(returned, node) if _makes_tensors(summary.returns) else returned

    def _meet_arguments(
        self,
        node: cst.Call,
        function: cst.FunctionDef,
        summary: Summary,
        binding: dict[str, cst.Arg],
        values: dict[str, Value],
    ) -> None:
        """A call is where the arguments the function makes meet do meet (``apply_rope(q, k, rope)``)."""
        for first, second in summary.meets:
            if first in binding and second in binding:
                operands = [Operand(binding[name].value, values[name]) for name in (first, second)]
                self._meet(node, operands, f"`{function.name.value}(...)`", arithmetic=True)

    def _facts_of_self(self, function: cst.FunctionDef) -> tuple[tuple[str, Value], ...] | None:
        """The attributes a method of ``self`` starts from where ``self`` holds objects the class's
        summaries cannot tell (a distribution or an optimizer its construction built from what the
        file passed); None (the class's own attribute state) otherwise, which is nearly always."""
        owner = self.analysis.program.owner(function)
        if self.self_name is None or owner is None:
            return None
        prefix = f"{self.self_name}."
        facts = {
            path[len(prefix) :]: value
            for path, value in self.state.env.items()
            if path.startswith(prefix)
            and "." not in path[len(prefix) :]
            and any(leaf.distribution or leaf.optimizer is not None for leaf in leaves(value))
        }
        if not facts:
            return None
        state = dict(self.analysis.attribute_state(owner.node.name.value))
        if all(state.get(name) == value for name, value in facts.items()):
            return None
        state.update(facts)
        return tuple(sorted(state.items()))

    def _apply_moves(
        self,
        node: cst.Call,
        summary: Summary,
        binding: dict[str, cst.Arg],
        values: dict[str, Value],
        texts: dict[str, str],
    ) -> None:
        """The arguments the callee changes in place: moves (``def place(model, dev): model.to(dev)``)
        and entries it stores into a dict (``batch["ids"] = ids.to(dev)``)."""
        if summary.moves_unseen:
            # ``_move_all(self, device)``: what the objects it is given hold may have moved.
            for argument in binding.values():
                path = path_of(argument.value)
                if path is not None:
                    prefix = f"{path}."
                    for held in [p for p in self.state.env if p.startswith(prefix)]:
                        self.state.env[held] = UNKNOWN
        for name, stored in summary.entries.items():
            # ``_collate(batch, device)`` storing ``batch["ids"] = ids.to(device)``: the caller's dict.
            argument = binding.get(name)
            path = path_of(argument.value) if argument is not None else None
            if path is None or name not in values:
                continue
            placed = substitute(stored, values, texts)
            held = self.state.env.get(path)
            if held is not None and held.kind is Kind.CONTAINER and held.keys and placed.keys:
                for key, value in zip(placed.keys, placed.elements):
                    held = with_item(held, key, value)
                placed = held
            self.state.env[path] = placed
            if path in self.parameters:
                self.entries_stored.add(path)
        for name, moved in summary.moves.items():
            argument = binding.get(name)
            path = path_of(argument.value) if argument is not None else None
            if path is None or name not in values or values[name].module is False:
                continue
            placed = substitute(moved, values, texts)
            if placed.kind is not Kind.ACCEL:
                continue
            self.state.env[path] = replace(placed, module=True if values[name].module is None else values[name].module)
            if values[name].source == path:
                self.moved_in_place[path] = self.state.env[path]  # our own parameter, moved by a helper
            self._moved(path)
            if summary.reloads_optimizers:
                self.reloads_optimizers = True  # the state follows the move
            else:
                self._check_optimizers(path, placed, node)

    def _owner_rebase(
        self, function: cst.FunctionDef, binding: dict[str, cst.Arg], *, bound: bool, instance: str | None
    ) -> Callable[[str], str | None]:
        """How a path of the callee (an optimizer's owner) reads at the call: its parameters become
        the arguments' paths (``<params>``: the owner of what was passed), its ``self`` the instance's
        path (``instance``; None: it has none here)."""
        params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
        callee_self = params[0] if params and bound and not is_static(function) else None

        def rebase(owner: str) -> str | None:
            if owner.startswith("<") and owner.endswith(">"):
                argument = binding.get(owner[1:-1])
                return self._parameters_owner(argument.value) if argument is not None else None
            root, _, rest = owner.partition(".")
            if callee_self is not None and root == callee_self:
                new_root = instance
            elif root in binding:
                new_root = path_of(binding[root].value)
            else:
                return owner
            if new_root is None:
                return None
            return f"{new_root}.{rest}" if rest else new_root

        return rebase

    def _check_device_ignored(
        self,
        node: cst.Call,
        function: cst.FunctionDef,
        summary: Summary,
        binding: dict[str, cst.Arg],
        values: dict[str, Value],
    ) -> None:
        """``to_tensor(batch, device=d)`` whose function returns a tensor it is given as it came along
        some path: the caller asked for ``d`` and gets a host tensor."""
        device = patterns.keyword(node, "device")
        if device is None or not summary.passes_through:
            return
        placed = self._device_value(device.value, node, module=False)
        if placed is None or not any(a.kind is Kind.ACCEL for a in alternatives(placed)):
            return
        for name in summary.passes_through:
            if name not in binding:
                continue
            given = leaves(values[name])
            host = next((v for v in given if v.kind is Kind.HOST and tensorish(v) and not v.scalar), None)
            if host is not None:
                event = DeviceIgnored(node, Operand(binding[name].value, host), device.value, function.name.value)
                self._emit(event, binding[name].value)
                return

    def _state_meets(self, summary: Summary, binding: dict[str, cst.Arg], values: dict[str, Value]) -> list[str]:
        """The parameters whose tensors meet the module's own state in ``summary`` (recorded, in a
        summary of a method of the same module, for the parameters they came from)."""
        names = [p for p, other in summary.meets if other == STATE]
        met = [p for p in binding if p in names or "*" in names]
        if self.summary_mode:
            for name in met:
                self._record_state_meet(values[name])
        return met

    def _check_state_meets(
        self,
        node: cst.Call,
        base: cst.BaseExpression,
        instance: Value,
        summary: Summary,
        binding: dict[str, cst.Arg],
        values: dict[str, Value],
    ) -> None:
        """A method of a module never moved, called with device tensors its layers take."""
        if not (instance.kind is Kind.HOST and instance.module is True and instance.stateful):
            return
        if not isinstance(instance.origin, cst.Call):
            return
        model = Operand(base, replace(instance, module=False, class_name=None, attributes=()))
        for name in self._state_meets(summary, binding, values):
            argument = Operand(binding[name].value, values[name])
            method = self.ctx.code_for(node.func)
            self._meet(node, [model, argument], f"`{method}(...)`", arithmetic=False)

    def _bind_call(
        self, node: cst.Call, function: cst.FunctionDef, arguments: list[Operand], *, bound: bool
    ) -> tuple[dict[str, cst.Arg], dict[str, Value], dict[str, str]] | None:
        """Which argument each parameter of ``function`` gets at ``node``, its value and its code."""
        by_argument = {id(arg): operand.value for arg, operand in zip(node.args, arguments)}
        # `f(*batch)` with a tuple built here: its elements are the next positional arguments.
        unpacked = {
            id(arg): len(value.elements)
            for arg, value in ((a, by_argument[id(a)]) for a in node.args)
            if arg.star == "*" and value.kind is Kind.CONTAINER and value.container == "tuple"
        }
        signature = Signature.of(function, bound=bound)
        bound_here = signature.bind(node, unpacked)
        if bound_here is None:
            return None
        binding, open_ = bound_here
        values: dict[str, Value] = {}
        texts: dict[str, str] = {}
        spread = self._spread_keywords(node, function, signature, binding, by_argument)
        collected = signature.star_arguments(node)
        if collected is not None and signature.star_name is not None:
            # ``def drop(*tensors)`` called as ``drop(pr, gt)``: a tuple of what the call passes.
            name = signature.star_name
            values[name] = container_of("tuple", [by_argument[id(a)] for a in collected])
            texts[name] = f"({', '.join(self.ctx.code_for(a.value) for a in collected)})"
        if open_:
            # A ``*args``/``**kwargs`` may pass what is left out: not known, not the default.
            for name in signature.names:
                if name not in binding:
                    values[name], texts[name] = UNKNOWN, name
        # Parameters not passed take their default (``device=None``: the default device).
        for param in (*function.params.params, *function.params.kwonly_params):
            if not open_ and param.name.value not in binding and param.default is not None:
                default = _literal(param.default)
                if default is not None:
                    values[param.name.value], texts[param.name.value] = default, self.ctx.code_for(param.default)
        offsets: dict[int, int] = {}
        for param, (value, text) in spread.items():
            values[param], texts[param] = value, text
        for param, arg in binding.items():
            value = by_argument[id(arg)]
            if param in spread:
                continue
            if id(arg) in unpacked:
                index = offsets.get(id(arg), 0)
                offsets[id(arg)] = index + 1
                values[param], texts[param] = value.elements[index], f"{self.ctx.code_for(arg.value)}[{index}]"
            else:
                values[param], texts[param] = value, self.ctx.code_for(arg.value)
        return binding, values, texts

    def _layers_made_after_move(
        self,
        node: cst.Call,
        base: cst.BaseExpression,
        function: cst.FunctionDef,
        summary: Summary,
        values: dict[str, Value],
        texts: dict[str, str],
    ) -> None:
        """``model.to(device)``, then ``model.reset_classifier(n)`` whose body assigns a new layer
        (``self.head = nn.Linear(...)``): that layer is made on the host, after the move."""
        positions = self.ctx.positions
        scope = positions.get(function)
        if scope is None:
            return

        def made_there(leaf: Value) -> bool:
            # A layer the method builds (not one it moves, or one it was given).
            origin = leaf.origin
            if not isinstance(origin, cst.Call) or patterns.method_name(origin) in ("to", "cuda", "cpu"):
                return False
            made = positions.get(origin)
            return made is not None and scope.start.line <= made.start.line <= scope.end.line

        for attribute, value in summary.attributes.items():
            made = substitute(value, values, texts)
            leaves_made = alternatives(made)
            if leaves_made and all(
                v.kind is Kind.HOST and v.module is True and v.stateful and made_there(v) for v in leaves_made
            ):
                self._attach_call(base, node, made, made_in=(function.name.value, attribute))

    def _spread_keywords(
        self,
        node: cst.Call,
        function: cst.FunctionDef,
        signature: Signature,
        binding: dict[str, cst.Arg],
        by_argument: dict[int, Value],
    ) -> dict[str, tuple[Value, str]]:
        """The parameters a ``**kwargs`` argument passes, bound in ``binding``, with their values:
        a dict built with string keys passes its keys' items; a dict of unknown keys (a
        comprehension) passes one of its items to each parameter without a default that nothing
        else gives (the call would fail without it).  Where a ``*args`` of unknown length may fill
        them, or several ``**`` arguments share them, nothing is bound."""
        spreads = [a for a in node.args if a.star == "**"]
        if len(spreads) != 1 or any(a.star == "*" for a in node.args):
            return {}
        argument = spreads[0]
        value = by_argument[id(argument)]
        if value.kind is Kind.CONTAINER:
            if value.container != "dict" or not value.elements:
                return {}
            items = element_values(value)
        else:
            # (A mapping of tensors known only by where they are: a batch moved by a helper.)
            items = item_of(value)
            if items.kind not in (Kind.HOST, Kind.ACCEL, Kind.INPUT):
                return {}
        text = self.ctx.code_for(argument.value)
        params = (*function.params.params, *function.params.kwonly_params)
        # (By keyword: not a positional-only parameter, nor ``self``.)
        named = [p for p in params if p.name.value in signature.names and p.name.value not in binding]
        found: dict[str, tuple[Value, str]] = {}
        for param in named:
            name = param.name.value
            if value.keys:
                if name in value.keys:
                    found[name] = (item_at(value, name) or UNKNOWN, f'{text}["{name}"]')
            elif param.default is None:
                found[name] = (items, f'{text}["{name}"]')
        for name in found:
            binding[name] = argument
        return found

    def _instantiate(self, node: cst.Call, name: str, arguments: list[Operand], *, module: bool) -> Value:
        """An instance of a class of this file, with the attributes its construction gives it."""
        init = self.analysis.program.method(name, "__init__")
        summary = self.analysis.summary(init, seeded=False) if init is not None else None
        bound = self._bind_call(node, init, arguments, bound=True) if init is not None else None
        values, texts = (bound[1], bound[2]) if bound is not None else ({}, {})
        if init is not None and bound is not None:
            self.analysis.record_context(init, values, record=self.record and not self.summary_mode)
        attributes = (
            {a: substitute(v, values, texts) for a, v in summary.attributes.items()}
            if summary is not None and bound is not None
            else {}
        )
        if init is not None and bound is not None:
            # ``self.device = device``: the caller's constant, which the summary cannot name.
            for attribute, parameter in self.analysis.program.parameter_copies(init).items():
                given = values.get(parameter)
                kept = attributes.get(attribute, UNKNOWN)
                if given is not None and kept.kind is Kind.UNKNOWN and constant_everywhere(given):
                    attributes[attribute] = given
        if summary is not None and bound is not None:
            self._apply_moves(node, summary, bound[0], values, texts)
        if module:
            binding = bound[0] if bound is not None else {}
            placed = self._module_placement(node, name, summary if bound is not None else None, binding, values, texts)
            if name.endswith(("Loss", "Metric")) and placed.module is True:
                placed = replace(placed, compares=True)  # called with predictions and targets
        else:
            placed = Value(Kind.UNKNOWN, module=None, origin=node)
        return bounded(replace(placed, class_name=name, attributes=tuple(sorted(attributes.items()))))

    def _module_placement(
        self,
        node: cst.Call,
        name: str,
        summary: Summary | None,
        binding: dict[str, cst.Arg],
        values: dict[str, Value],
        texts: dict[str, str],
    ) -> Value:
        """Where a new instance of a module class of this file is, from its construction.

        A class that only keeps what it is given (a wrapper around a model) is where that is; one
        with no parameters or buffers of its own runs anywhere; one that builds layers is on the CPU
        until it is moved (or moves itself in ``__init__``)."""
        built = self._new_module(node, stateful=True)
        given_device = _device_by_position(binding)
        if given_device is not None and built.kind is Kind.HOST:
            # ``Net(width, device)``: its ``device`` parameter given by position places it as the
            # keyword does.
            placed = self._device_value(given_device, node, module=True)
            return placed if placed is not None else Value(Kind.UNKNOWN, module=True, origin=node)
        if summary is None and built.kind is Kind.HOST and self._plain_module_class(name):
            return replace(built, stateful=False)  # no ``__init__``, no state: it runs anywhere
        if summary is None or built.kind is not Kind.HOST:
            return built
        if summary.placed is not None and summary.placed.kind is Kind.ACCEL:
            return replace(substitute(summary.placed, values, texts), module=True, origin=node)
        if summary.placed is not None and summary.placed.kind is Kind.INPUT and summary.placed.source is not None:
            # ``self.to(next(net.parameters()).device)``: where the caller's ``net`` is.
            given = substitute(summary.placed, values, texts)
            if all(a.kind in (Kind.HOST, Kind.ACCEL) for a in alternatives(given)):
                return replace(given, module=True, origin=node)
            return Value(Kind.UNKNOWN, module=True, origin=node)
        held = [
            leaf
            for value in summary.attributes.values()
            for leaf in leaves(value)
            if leaf.kind not in (Kind.NEUTRAL, Kind.UNKNOWN) and (leaf.module is True or tensorish(leaf))
        ]
        registered = any(
            info is not None and (info.buffers or info.parameters)
            for info in (self.ctx.classes.get(entry.node.name.value) for entry in self.analysis.program.lineage(name))
        )
        given = [substitute(leaf, values, texts) for leaf in held if leaf.source is not None]
        # Parameters, buffers and stateful submodules (its own, or given) are what a move places: plain
        # tensor attributes stay where they were made (DEV102's business).
        stateful = (
            registered
            or any(leaf.module is True and leaf.stateful for leaf in held if leaf.source is None)
            or any(
                part.kind is Kind.UNKNOWN
                or (part.module is not False and part.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and part.stateful)
                for value in given
                for part in leaves(value)
            )
        )
        if not stateful:
            return replace(built, stateful=False)  # nothing of its own to place
        init = self.analysis.program.method(name, "__init__")
        if given and init is not None and self.analysis.program.rewires_own_layers(init):
            # Its layers were given parameters of what it holds (Tacotron 2's export wrappers copy
            # the decoder's LSTM cells into new LSTMs): where those are is not known here.
            return Value(Kind.UNKNOWN, module=True, origin=node)
        if held and len(given) == len(held):
            # (Modules only: tensors or lists kept as plain attributes do not follow a module.)
            if all(v.kind is not Kind.UNKNOWN and v.module is True for v in given):
                return replace(union(given), module=True, origin=node)  # a wrapper: where its parts are
            if any(
                part.kind is Kind.UNKNOWN or (part.kind is Kind.INPUT and part.module is not False)
                for value in given
                for part in leaves(value)
            ):
                # A wrapper around what it is given, some of it from where the analysis cannot see
                # (a model a helper of another package loaded and moved, or one its caller passes):
                # its place is unknown too.
                return Value(Kind.UNKNOWN, module=True, origin=node)
        return built

    def _plain_module_class(self, name: str) -> bool:
        """A module class of this file with no ``__init__`` and no class-level layers, whose bases
        (of this file or ``nn.Module`` itself) add none: nothing of its own to place."""
        program = self.analysis.program
        if program.method(name, "__init__") is not None:
            return False
        for entry in program.lineage(name):
            info = self.ctx.classes.get(entry.node.name.value)
            if info is None or info.buffers or info.parameters:
                return False
            for base in entry.bases:
                local = base.rsplit(".", 1)[-1] in program.classes
                if not local and self.symbols.qualify_dotted(base) != "torch.nn.Module":
                    return False
            if any(
                isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign))
                for line in block_of(entry.node.body)
                if isinstance(line, cst.SimpleStatementLine)
                for small in line.body
            ):
                return False  # (class-level assignments: a layer kept on the class is not looked into)
        return True

    def _instance_attribute(self, instance: Value, name: str) -> Value | None:
        """``obj.name`` of an instance of a class of this file."""
        held = dict(instance.attributes).get(name)
        if held is None:
            return None
        if instance.module is True and (held.module is True or held.kind is Kind.INPUT):
            # A module's registered parts are wherever the module is.
            return replace(instance, class_name=held.class_name, attributes=held.attributes, module=held.module)
        return held

    def _call_method(
        self, node: cst.Call, base: cst.BaseExpression, instance: Value, name: str, arguments: list[Operand]
    ) -> LocalResult | None:
        """``obj.name(...)`` (or ``obj(...)``, ``name`` being ``forward``/``__call__``) of an instance of
        a class of this file: its summary, with the instance's attributes and place."""
        if instance.class_name is None:
            return None
        function = self.analysis.program.method(instance.class_name, name)
        if function is None:
            return None
        bound = self._bind_call(node, function, arguments, bound=True)
        if bound is None:
            return None
        binding, values, texts = bound
        held = instance.attributes  # (moving the instance made its plain tensors stale: see ``_move``)
        context = {**values, **{f"self.{a}": v for a, v in held}}
        self.analysis.record_context(function, context, record=self.record and not self.summary_mode)
        summary = self.analysis.summary(function, attributes=held)
        if summary is None:
            return None
        accepts = frozenset(id(binding[p].value) for p in summary.moves_itself if p in binding)
        inert: frozenset[int] = frozenset()
        if name not in ("forward", "__call__"):
            self._check_state_meets(node, base, instance, summary, binding, values)
        elif instance.module is True:
            inert = inert_arguments(summary, binding) or frozenset()
        # (A module with no state of its own, like a sampler, is nowhere: what its method computes
        # from several of its inputs is where they are, which the summary does not follow.)
        here = instance if instance.module is True and instance.stateful else None
        rebase = self._owner_rebase(function, binding, bound=True, instance=path_of(base))
        after = instance
        if summary.attributes:
            changed = dict(instance.attributes)
            name = instance.class_name
            # (Left on the host by the method, a plain tensor stays there.)
            changed.update(
                {
                    a: self.analysis.held(name, a, substitute(v, values, texts, here), construction=False)
                    for a, v in summary.attributes.items()
                }
            )
            after = bounded(replace(instance, attributes=tuple(sorted(changed.items()))))
            if function.name.value not in ("forward", "__call__") and instance.module is True:
                self._layers_made_after_move(node, base, function, summary, values, texts)
            path = path_of(base)
            if path is not None and path in self.state.env:
                self.state.env[path] = after
        if self.analysis.program.returns_self(function):
            # ``signal = AudioSignal(x).to(device)``: the instance, as the method left it.
            return LocalResult(after, accepts, inert)
        returned = self._settle_optimizers(substitute(summary.returns, values, texts, here), rebase)
        return LocalResult(returned, accepts, inert)


def _made_here(value: Value, call: cst.Call) -> Value:
    """A host tensor a call of the file's code returns was made by that call, as far as the caller
    sees (where a finding about it belongs); an empty placeholder (``return torch.Tensor()`` for no
    input) stays one, which meets nothing."""
    return lift(
        value,
        lambda v: replace(v, origin=call)
        if v.kind is Kind.HOST and v.module is not True and not placeholder(v)
        else v,
    )


def _makes_tensors(returns: Value) -> bool:
    """Does a summary's result hold a tensor the function makes itself (not one it computes from its
    parameters: ``_errors(x.to(host))`` returns what its caller moved to the host, which is where
    a finding about it belongs)?"""
    return any(
        any(_makes_tensors(e) for e in v.elements)
        if v.kind is Kind.CONTAINER
        # ("*": made there whatever it is given; converted: ``torch.as_tensor(values)`` of a list)
        else v.converted or (v.source in (None, "*") and v.kind in (Kind.HOST, Kind.ACCEL))
        for v in alternatives(returns)
    )


def placeholder(value: Value) -> bool:
    """A tensor made empty (``torch.Tensor()``, ``torch.empty(0)``): a stand-in, not data."""
    return isinstance(value.origin, cst.Call) and patterns.holds_nothing(value.origin)


def _literal(node: cst.BaseExpression) -> Value | None:
    """A parameter's default written as a literal (None, a string, a number)."""
    if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
        return neutral_constant(node.value)  # (as the interpreter reads them written in a call)
    if isinstance(node, cst.SimpleString):
        return neutral_constant(patterns.string_value(node))
    if isinstance(node, (cst.Integer, cst.Float)):
        return NEUTRAL
    return None


def _device_by_position(binding: dict[str, cst.Arg]) -> cst.BaseExpression | None:
    """What a construction passes by position to a ``device`` parameter of ``__init__`` (by keyword,
    ``device=`` places it already: see ``_new_module``)."""
    given = next((binding[k] for k in PLACEMENT_KEYWORDS if k in binding), None)
    return given.value if given is not None and given.keyword is None and not given.star else None
