"""Calls: torch functions and factories, methods of tensors and modules, and calling a module."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import libcst as cst

from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.flow.base import InterpreterBase
from flake8_device.analysis.flow.events import HostMeetsInput, InputNotMoved, NumpyOnAccel, Operand, WrappedUnmoved
from flake8_device.analysis.flow.knowledge import (
    ATTACH_METHODS,
    CROSS_DEVICE_METHODS,
    CTC_NAME,
    DEVICE_NAME,
    LIST_ATTACH_METHODS,
    LOSS_FACTORY_NAME,
    LOSS_MODULE_NAME,
    LOSS_NAME,
    METRIC_NAME,
    MODULE_FACTORIES,
    OPTIMIZER_CLASS_PREFIX,
    OPTIMIZER_NAME,
    RESTORE_NAME,
    PLACEMENT_KEYWORDS,
    TRANSFORM_MODULES,
)
from flake8_device.analysis.flow.summaries import Summary, inert_arguments
from flake8_device.analysis.flow.syntax import argument_at, keyword_of, last_name, path_of, root_path
from flake8_device.analysis.flow.values import (
    NEUTRAL,
    UNKNOWN,
    Kind,
    OptimizerState,
    Value,
    alternatives,
    carries_tensor,
    choices_of,
    common_device,
    compatible,
    container_of,
    element_of,
    element_values,
    item_at,
    leaves,
    lift,
    neutral_constant,
    tensorish,
    union,
)
from flake8_device.analysis.symbols import dotted_name


def _container_method(container: Value, method: str, node: cst.Call | None = None) -> Value:
    """``d.items()``, ``d.values()``, ``d.get(k)``, ``xs.pop()``, ``xs.copy()`` of a container built here."""
    if method in ("get", "pop", "setdefault", "__getitem__") and node is not None and node.args:
        held = item_at(container, patterns.string_value(node.args[0].value))
        if held is not None:
            return held
    element = element_values(container)
    if method == "items":
        return container_of("list", [container_of("tuple", [NEUTRAL, element])])
    if method == "values":
        return container_of("list", [element])
    if method in ("get", "pop", "setdefault", "__getitem__"):
        return element
    if method == "copy":
        return container
    return UNKNOWN


# The torch.nn layers known by name (see ``_foreign_submodule``).
_TORCH_NN_MODULES = torch_api.STATEFUL_NN_MODULES | torch_api.STATELESS_NN_MODULES


def _unmoved_input(value: Value) -> bool:
    """A tensor (or a batch) on the host, given to a model on the accelerator."""
    return (
        value.kind is Kind.HOST
        and value.condition is None
        and not value.scalar
        and value.module is not True
        and not value.generator
        and not value.distribution
        and value.optimizer is None
    )


class CallsMixin(InterpreterBase):
    def _call(self, node: cst.Call) -> Value:
        func = node.func
        local = self._local_callee(func)
        if local is not None:
            return self._call_local(node, *local)
        imported = self._imported_callee(func)
        if imported is not None:
            return self._call_local(node, imported[1], False, source=imported[0])
        qualified = self.symbols.qualify(func) or self._looked_up(func)
        if isinstance(func, cst.Attribute) and qualified is None:
            receiver_value = self._eval(func.value)
            return self._method_call(node, func.value, func.attr.value, receiver_value)
        callee = self._eval(func) if qualified is None else UNKNOWN
        arguments = [Operand(a.value, self._eval(a.value)) for a in node.args]
        name = last_name(func) or ""
        if qualified in torch_api.DIST_COLLECTIVES and name == qualified.rsplit(".", 1)[-1]:
            self._check_collective(node, qualified, arguments)  # (written under its own name, not an alias)
        if name in self.ctx.config.move_functions:
            return self._helper_move(node, arguments)
        if arguments and (
            qualified in torch_api.NUMPY_CONVERSIONS
            or (qualified in torch_api.NUMPY_LIST_REDUCTIONS and arguments[0].value.kind is Kind.CONTAINER)
        ):
            first = _element_on_device(arguments[0], self._on_device, self._named_value)
            if first is not None:
                self._emit(NumpyOnAccel(node, first, node.func), node)
            return NEUTRAL
        if qualified is not None:
            known = self._torch_call(node, qualified, arguments)
            if known is not None:
                return known
        if self.symbols.is_model_registry_entry(func):
            return self._new_module(node, stateful=True)
        if (qualified or "").startswith("math.") or (
            isinstance(func, cst.Name) and name in _NUMBER_BUILTINS and self._builtin(name)
        ):
            return NEUTRAL  # ``math.sqrt(d // h)``, ``len(batch)``, ``float(loss)``: a number
        if isinstance(func, cst.Name) and name in _CONTAINER_BUILTINS and self._builtin(name):
            built = _container_builtin(name, node, arguments)
            if built is not None:
                return built
        if isinstance(func, cst.Name) and name in ("iter", "next") and node.args and self._builtin(name):
            if name == "iter":
                return arguments[0].value
            # ``next(iter(loader))``, ``next(batches)``: one step of iterating it (a batch of a loader).
            iterated = node.args[0].value
            if isinstance(iterated, cst.Call) and dotted_name(iterated.func) == "iter" and iterated.args:
                iterated = iterated.args[0].value
            return self._iteration_value(iterated)
        if isinstance(func, cst.Name):
            if name == "getattr" and len(arguments) == 3 and not any(a.keyword or a.star for a in node.args):
                # ``getattr(obj, "name", default)``: the attribute, or the default where it is missing.
                attribute = patterns.string_value(node.args[1].value)
                held = self._attribute_of(arguments[0].value, attribute) if attribute is not None else UNKNOWN
                return union([held, arguments[2].value])
            if name in self.analysis.program.classes and patterns.keyword(node, "generator") is not None:
                self._check_sampler_subclass(node, name, arguments)
            if name in self.analysis.program.classes and self.analysis.optimizer_class(name):
                built = self._new_optimizer(node, name, arguments)  # an optimizer class of this file
                return replace(built, class_name=name) if built.optimizer is not None else built
            if name == "setattr" and len(node.args) >= 3:
                self._attach_call(node.args[0].value, node.args[2].value, arguments[2].value)
                return NEUTRAL
            if self.symbols.is_local_module_class(name):
                return self._instantiate(node, name, arguments, module=True)
            if name in self.analysis.program.classes and self.analysis.helpers.get(name) is None:
                return self._instantiate(node, name, arguments, module=False)
            if name[:1].isupper() and name not in self.analysis.program.classes and self.analysis.imported_layers(name):
                # A model (or a loss: ``MelSpectrogramLoss``) class of another module of the project.
                return self._new_module(node, stateful=True, compares=name.endswith("Loss"))
        if LOSS_FACTORY_NAME.search(name) and not (qualified or "").startswith("torch."):
            # ``get_loss(name, weight=class_weights)``: a loss built (elsewhere) with these weights,
            # on the device it is given, or where the weights are.
            weights = [w for w in (argument_at(node, arguments, None, k) for k in ("weight", "pos_weight")) if w]
            if weights and not self._names_a_device(node):
                return self._weighted_loss(node, weights)
        for argument in arguments:
            if argument.value.module is not False and argument.value.kind in (Kind.ACCEL, Kind.HOST):
                self._use(argument.expr)
            restores = RESTORE_NAME.search(name) and not (qualified or "").startswith("torch.")
            if argument.value.optimizer is not None and restores and not self._names_a_device(node):
                # ``restore_checkpoint(path, model, optimizer)``: loads the optimizer's state (where
                # the parameters are, unless it is given a device to put it on).
                self._optimizer_state_loaded(node, argument.expr, argument.value)
        if qualified is not None and callee.kind is Kind.UNKNOWN:
            followed = _follows_inputs(qualified, arguments)
            if followed is not None:
                self._handed_on(arguments)
                return followed
        return self._call_value(node, callee, arguments, name)

    def _named_value(self, node: cst.BaseExpression) -> Value | None:
        """What a name or an attribute path holds here (None for other expressions)."""
        path = path_of(node)
        return self.state.env.get(path) if path is not None else None

    def _passed_in(self, func: cst.BaseExpression) -> bool:
        """``func`` names a parameter of the running function (``model`` in ``evaluate(model, ...)``)."""
        function = self.function
        if function is None or not isinstance(func, cst.Name):
            return False
        params = function.params
        return any(p.name.value == func.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))

    def _builtin(self, name: str) -> bool:
        """``name`` is Python's own here: not bound in this scope, imported, or defined in the file."""
        return (
            name not in self.state.env
            and name not in self.symbols.imports
            and name not in self.analysis.program.functions
            and name not in self.analysis.program.classes
        )

    def _on_device(self, value: Value) -> Value | None:
        """A tensor inside ``value`` that NumPy cannot take: moved to an accelerator, or made by a layer
        with parameters of the module whose method this is (model code runs wherever the module is)."""
        for leaf in leaves(value):
            if tensorish(leaf) and (leaf.kind is Kind.ACCEL or self._layer_output(leaf)):
                return leaf
        return None

    def _layer_output(self, value: Value) -> bool:
        """An output of one of this module's own layers with parameters (``self.head(feats)``)."""
        origin = value.origin
        return (
            value.kind is Kind.INPUT
            and self.in_module_class
            and isinstance(origin, cst.Call)
            and isinstance(origin.func, cst.Attribute)
            and isinstance(origin.func.value, cst.Name)
            and origin.func.value.value == self.self_name
        )

    def _without_any_device_arguments(
        self,
        node: cst.Call,
        arguments: list[Operand],
        tensors: list[Operand],
        callee: Value | None = None,
        *,
        qualified: str | None = None,
    ) -> list[Operand]:
        """``tensors`` less the arguments this call takes wherever they are, whatever the device of
        the others (``torch_api.ANY_DEVICE_ARGUMENTS``: a CTC loss's targets and lengths, a count).
        A loss instance is known by its constructor, or by a name that says CTC (``self.ctc_loss``)."""
        spec = torch_api.ANY_DEVICE_ARGUMENTS.get(qualified or "")
        if spec is None and callee is not None and isinstance(callee.origin, cst.Call):
            spec = torch_api.ANY_DEVICE_ARGUMENTS.get(self.symbols.qualify(callee.origin.func) or "")
        if spec is None and callee is not None and CTC_NAME.search(last_name(node.func) or ""):
            spec = torch_api.CTC_ANY_DEVICE_ARGUMENTS
        if spec is None:
            return tensors
        allowed = [argument_at(node, arguments, position, keyword) for position, keyword in spec]
        return [t for t in tensors if not any(t is a for a in allowed)]

    def _own_attribute(self, func: cst.BaseExpression) -> str | None:
        """``attribute`` for ``self.<attribute>`` in a method; None for anything else."""
        owner, _, attribute = (path_of(func) or "").partition(".")
        if owner != self.self_name or not attribute or "." in attribute:
            return None
        return attribute

    def _foreign_submodule(self, func: cst.BaseExpression) -> bool:
        """``self.text_model`` of a module whose ``__init__`` built it from a class that is neither
        this file's nor one of ``torch.nn``'s."""
        attribute = self._own_attribute(func)
        if attribute is None or self.owner is None:
            return False
        info = self.ctx.class_info(self.owner)
        callee = info.init_calls.get(attribute, "") if info is not None else ""
        if not callee[:1].isupper() or callee in self.analysis.program.classes:
            return False
        qualified = self.symbols.qualify_dotted(callee)
        if qualified is not None:
            return not torch_api.is_nn_module_class(qualified)
        if callee in self.symbols.from_imports:
            return True  # (``from .modeling_blip_text import BlipTextModel``)
        # Written through a module (``nn.Linear``, ``blocks.Block``): one of torch.nn's by its name.
        return f"torch.nn.{callee}" not in _TORCH_NN_MODULES

    def _inert_in_layer(self, node: cst.Call, arguments: list[Operand]) -> frozenset[int] | None:
        """For a call of ``self.<layer>`` built from a module class of the project (this file's, or
        another module's): the arguments (by the identity of their expressions) that its
        ``forward`` never lets meet the layer's parameters or buffers; None where that is not known."""
        attribute = self._own_attribute(node.func)
        if attribute is None or self.owner is None:
            return None
        inert: frozenset[int] | None = None
        for name in self.analysis.layer_classes(self.owner.name.value, attribute):
            found = self._forward_of(name)
            bound = self._bind_call(node, found[1], arguments, bound=True) if found is not None else None
            if found is None or bound is None:
                return None
            own = inert_arguments(found[0], bound[0])
            if own is None:
                return None
            inert = own if inert is None else inert & own
        return inert

    def _forward_of(self, name: str) -> tuple[Summary, cst.FunctionDef] | None:
        """The summary of ``forward`` of the module class ``name`` (this file's, or one it imports
        from another module of the project), and its ``def``; None where it is not known."""
        program = self.analysis.program
        if name in program.classes:
            function = program.method(name, "forward")
            summary = self.analysis.summary(function) if function is not None else None
        else:
            found = self.analysis.imported_method(name, "forward")
            function = found[1] if found is not None else None
            summary = self.analysis.foreign_summary(*found) if found is not None else None
        return (summary, function) if summary is not None and function is not None else None

    def _handed_on(self, arguments: list[Operand]) -> None:
        """Arguments handed to code not seen here (``super().forward(x)`` of a library base, a
        helper object's method): in a summary of a module's method, they may meet its state there."""
        if self.summary_mode and self.in_module_class:
            for argument in arguments:
                self._record_state_meet(argument.value)

    def _call_value(self, node: cst.Call, callee: Value, arguments: list[Operand], name: str) -> Value:
        """Calling a value: a model, a loss, a metric, a transform, an optimizer class passed on, or
        something unknown."""
        if path_of(node.func) is not None:
            self._use(node.func)
        if callee.kind is Kind.MAYBE:
            return lift(callee, lambda alternative: self._call_value(node, alternative, arguments, name))
        if callee.constant is not None and callee.constant.startswith(OPTIMIZER_CLASS_PREFIX):
            return self._new_optimizer(node, callee.constant[len(OPTIMIZER_CLASS_PREFIX) :], arguments)
        if callee.instance_of is not None:
            self._check_helper(node, callee, "__call__", arguments)
            return UNKNOWN
        if callee.kind is Kind.UNKNOWN and not (isinstance(node.func, cst.Name) and self._builtin(name)):
            self._handed_on(arguments)
        tensors = [a for a in arguments if carries_tensor(a.value)]
        # A module held under a loss's name (``reg_loss = Regularizer()``) is a loss too.
        named_loss = callee.module is True and bool(LOSS_MODULE_NAME.search(name))
        if callee.compares or LOSS_NAME.search(name) or METRIC_NAME.search(name) or named_loss:
            self._check_unmoved_state(node, replace(callee, compares=True) if named_loss else callee, tensors)
            meeting = self._without_any_device_arguments(node, arguments, tensors, callee)
            self._meet(node, meeting, f"`{self.ctx.code_for(node.func)}(...)`", arithmetic=True)
            if callee.class_name:
                # A loss class of this file runs its own forward with these arguments.
                self._call_method(node, node.func, callee, "forward", arguments)
            return common_device(tensors)
        entry = "__call__"
        if callee.module and (
            callee.class_name is None or self.analysis.program.method(callee.class_name, "__call__") is None
        ):
            entry = "forward"  # (a module class that overrides ``__call__`` runs that instead)
        returned = self._call_method(node, node.func, callee, entry, arguments)
        if callee.module is True:
            self._check_device_choice(node, callee, arguments)
            if callee.kind is Kind.CONDITIONAL:
                # Its outputs are on the accelerator exactly when it is.
                return Value(Kind.CONDITIONAL, module=False, condition=callee.condition, device=callee.device)
        if callee.module is not True and returned is not None:
            return returned.value  # an instance of a class of this file, called
        if callee.module is None and callee.kind in (Kind.UNKNOWN, Kind.INPUT) and self._passed_in(node.func):
            # A model (or function) the caller passes, called with accelerator tensors only: its
            # output is made there (a module whose parameters are elsewhere fails instead).
            placed = _all_on_accelerator(arguments)
            if placed is not None:
                return Value(
                    Kind.ACCEL,
                    device=placed.device,
                    move=placed.move,
                    module=False,
                    origin=placed.origin,  # (where its inputs were placed: what a fix copies)
                    grad=self.no_grad == 0,
                    condition=placed.condition,
                )
        if callee.module is False or callee.kind not in (Kind.HOST, Kind.ACCEL, Kind.INPUT):
            return UNKNOWN
        # (arguments the method moves itself, or whose parameters never meet the module's state)
        accepts = returned.accepts | returned.inert if returned is not None else frozenset()
        if callee.kind is Kind.ACCEL and not callee.scatters_inputs:
            for argument in arguments:
                host = next(
                    (v for v in leaves(argument.value) if _unmoved_input(v) and compatible(v, callee)), None
                )
                if host is not None and id(argument.expr) not in accepts:
                    event = InputNotMoved(node, Operand(node.func, callee), Operand(argument.expr, host))
                    self._emit(event, argument.expr)
            if returned is not None and returned.value.kind is not Kind.UNKNOWN:
                return returned.value
            return Value(
                Kind.ACCEL,
                device=callee.device,
                move=callee.move,
                module=False,
                origin=callee.origin,
                grad=self.no_grad == 0,
                condition=callee.condition,
                guard=callee.guard,
                placed_by=callee.placed_by,
            )
        if callee.kind is Kind.HOST and callee.module is True and callee.stateful:
            self._meet(
                node,
                [Operand(node.func, replace(callee, module=False)), *tensors],
                f"`{self.ctx.code_for(node.func)}(...)`",
                arithmetic=False,
            )
            if not self._made_in_this_scope(callee.origin):
                return UNKNOWN  # (an object's layer: what else may move it is not all seen here)
            if any(leaf.kind is Kind.ACCEL for t in tensors for leaf in leaves(t.value) if tensorish(leaf)):
                return UNKNOWN  # (given device tensors, it fails: reported here, not again downstream)
            if returned is not None and returned.value.kind is not Kind.UNKNOWN:
                return returned.value
            # Made here and never moved: where it runs at all, its outputs are made on the host too.
            return Value(
                Kind.HOST,
                module=False,
                origin=callee.origin,
                grad=self.no_grad == 0,
                guard=callee.guard,
                placed_by=callee.placed_by,
            )
        if callee.kind is Kind.INPUT and callee.module is True:
            inert = self._inert_in_layer(node, arguments)
            if inert is not None:
                # A layer of a class of the project: its ``forward``'s summary says which arguments
                # meet its state (``num_mic`` only counted is no meeting).
                tensors = [t for t in tensors if id(t.expr) not in inert]
            if self.summary_mode and self.in_module_class and callee.source is None:
                for argument in tensors:
                    self._record_state_meet(argument.value)  # one of the module's own layers
            if inert is None and self._foreign_submodule(node.func):
                # A layer of a class from elsewhere (``BlipTextModel(config)``): what its forward
                # does with an argument given by keyword (a mask it moves, or only measures) is
                # not seen; its positional inputs meet its weights.
                keywords = {id(a.value) for a in node.args if a.keyword is not None or a.star}
                tensors = [t for t in tensors if id(t.expr) not in keywords]
            for argument in tensors:
                stale = next((v for v in leaves(argument.value) if v.held and tensorish(v) and not v.scalar), None)
                if stale is not None and id(argument.expr) not in accepts:
                    operation = f"`{self.ctx.code_for(node.func)}(...)`"
                    self._emit_held(Operand(argument.expr, stale), Operand(node.func, callee), operation)
                host = next(
                    (
                        v
                        for v in leaves(argument.value)
                        if v.kind is Kind.HOST and tensorish(v) and compatible(v, callee)
                    ),
                    None,
                )
                given = host is not None and self._given(host, node.func)
                if host is not None and not host.scalar and id(argument.expr) not in accepts and not given:
                    self._emit(
                        HostMeetsInput(
                            Operand(argument.expr, host),
                            Operand(node.func, callee),
                            f"`{self.ctx.code_for(node.func)}(...)`",
                            self.function,
                            self.building_module,
                        ),
                        argument.expr,
                    )
            if returned is not None and returned.value.kind is not Kind.UNKNOWN:
                return returned.value
            # The output of a layer with parameters is made where they are (see ``_layer_output``).
            return Value(Kind.INPUT, module=False, origin=node if callee.stateful else None)
        return UNKNOWN

    def _made_in_this_scope(self, origin: cst.CSTNode | None) -> bool:
        """``origin`` lies in the code this run interprets (the function, or the module's top level)."""
        if origin is None:
            return False
        if self.function is None:
            return True
        positions = self.ctx.positions
        made, scope = positions.get(origin), positions.get(self.function)
        return made is not None and scope is not None and scope.start.line <= made.start.line <= scope.end.line

    def _note_unseen_move(self, base: cst.BaseExpression, method: str, receiver: Value) -> None:
        """In a summary: a move of what the function cannot follow to its parameters (``part =
        getattr(obj, key); part.to(device)``) leaves where the objects it was given hold their parts
        unknown (see ``Summary.moves_unseen``)."""
        if not self.summary_mode or method == "cpu" or root_path(base) in self.parameters:
            return
        if receiver.kind in (Kind.UNKNOWN, Kind.NEUTRAL) or (
            receiver.source in self.parameters and receiver.module is True
        ):
            self.moves_unseen = True

    def _own_move(
        self, node: cst.Call, base: cst.BaseExpression, receiver: Value, method: str, arguments: list[Operand] | None
    ) -> Value | None:
        """``obj.to(...)`` (``cuda``, ``cpu``) of an instance of a class of this file, not a module,
        that defines that method (an audio signal moving its samples): the instance as the method
        leaves it (``obj`` itself is updated); None for anything else.  ``arguments``: the call's,
        evaluated here where not given."""
        if (
            receiver.class_name is None
            or receiver.module is True
            or self.analysis.program.method(receiver.class_name, method) is None
        ):
            return None
        if arguments is None:
            arguments = [Operand(a.value, self._eval(a.value)) for a in node.args]
        own = self._call_method(node, base, receiver, method, arguments)
        return own.value if own is not None and own.value.class_name == receiver.class_name else None

    def _method_call(self, node: cst.Call, base: cst.BaseExpression, method: str, receiver: Value) -> Value:
        arguments = [Operand(a.value, self._eval(a.value)) for a in node.args]
        if receiver.kind is Kind.UNKNOWN and not self._own_layer(node.func):
            self._handed_on(arguments)
        if method in ("log", "log_dict") and self.in_lightning_module and path_of(base) == self.self_name:
            self._check_synced_log(node, method)
        if method in ("to", "cuda", "cpu"):
            moved = self._move(node, receiver)
            own = self._own_move(node, base, receiver, method, arguments) if moved is not None else None
            if own is not None:
                moved = replace(moved, attributes=own.attributes)  # where its own ``to`` put them
            root = root_path(base)
            self._note_unseen_move(base, method, receiver)
            if self.summary_mode and method != "cpu" and root in self.parameters and moved is not None:
                # ``self.fc(batch["features"].to(device))``: callers may pass it from anywhere.
                self.moves_itself.add(root)
            path = path_of(base)
            if moved is not None and receiver.module is True and path is not None and path in self.state.env:
                # ``self.model = model.to(gpu)``: a module moves in place, ``model`` with it.
                self.state.env[path] = moved
                if receiver.source == path:
                    self.moved_in_place[path] = moved
            return moved if moved is not None else UNKNOWN
        if method == "load_state_dict" and self.moved_in_place and receiver.optimizer is None:
            # ``controller.optimizer.load_state_dict(...)`` after this function moved a model it was given.
            if OPTIMIZER_NAME.search(last_name(base) or ""):
                self.reloads_optimizers = True
        if method in self.ctx.config.move_functions:
            # ``device.batch_to_device(batch)`` (Composer's devices): the receiver is the device.
            named_device = DEVICE_NAME.search(dotted_name(base) or "") and len(arguments) == 1
            return self._helper_move(node, arguments, device=base if named_device else None)
        if len(arguments) == 1 and (
            method == "type_as" or (method == "type" and any(v.held for v in leaves(receiver)))
        ):
            # ``x.type_as(y)`` converts to ``y``'s tensor type, which names its device type: ``x``
            # goes there (to the current device of that type).
            return self._retyped(node, method, receiver, arguments[0])
        if method == "type" and len(arguments) == 1:
            cast = node.args[0].value
            if self._is_dtype(cast) or (isinstance(cast, cst.Call) and patterns.method_name(cast) == "type"):
                # ``x.type(torch.float16)``, ``x.type(y.type())``: a cast, followed like ``type_as``.
                return lift(receiver, lambda v: replace(v, origin=node) if tensorish(v) else UNKNOWN)
            return UNKNOWN
        if method in ATTACH_METHODS and len(node.args) >= 2:
            self._attach_call(base, node.args[1].value, arguments[1].value, method)
            return NEUTRAL
        if method in ("append", "insert", "extend", "add") and arguments:
            self._grow(base, receiver, method, arguments)
        if method == "update" and arguments:
            self._update_entries(base, node, arguments, keyed=receiver.kind is Kind.CONTAINER and bool(receiver.keys))
        if method in LIST_ATTACH_METHODS and node.args:
            root = root_path(base)
            if root is not None and isinstance(base, cst.Attribute):
                self._attach_call(base, node.args[-1].value, arguments[-1].value, method)
            return NEUTRAL
        return lift(receiver, lambda value: self._method_result(node, base, method, value, arguments))

    def _own_layer(self, func: cst.BaseExpression) -> bool:
        """``self.encoder(...)`` in a method, of a layer the instance holds: calling it is no hand-off
        to unseen code (its call says what meets the layer: see ``_call_value``)."""
        if not isinstance(func, cst.Attribute) or self._own_attribute(func) is None:
            return False
        held = self._attribute(func)
        return held.kind is Kind.INPUT and held.module is True

    def _retyped(self, node: cst.Call, method: str, receiver: Value, argument: Operand) -> Value:
        """``x.type_as(y)`` and ``x.type(y.type())`` go where ``y`` is (its tensor type names its
        device); ``x.type(torch.float16)`` stays; a type written out is not followed."""
        other: Value | None = None
        if method == "type_as":
            other = argument.value
        else:
            expr = argument.expr
            if isinstance(expr, cst.Call) and patterns.method_name(expr) == "type" and not expr.args:
                inner = patterns.receiver(expr)
                other = self._value_of(inner) if inner is not None else None
            elif self._is_dtype(expr):
                return receiver
        if other is None or other.kind is Kind.CONTAINER or not carries_tensor(other):
            return UNKNOWN
        return lift(
            other,
            lambda place: replace(
                place, module=False, scalar=receiver.scalar, grad=receiver.grad, batch=False, origin=node
            )
            if tensorish(place)
            else UNKNOWN,
        )

    def _update_entries(
        self, base: cst.BaseExpression, node: cst.Call, arguments: list[Operand], *, keyed: bool
    ) -> None:
        """``d.update({"ids": ids})``, and ``d.update(ids=ids)`` of a dict built here with string keys
        (``keyed``; a metric's ``update(preds=p)`` is no dict): each of those keys holds its new
        value (a dict whose keys are not known here changes nothing that is followed)."""
        path = path_of(base)
        if path is None or (not keyed and any(a.keyword is not None for a in node.args)):
            return
        pairs: list[tuple[str, Value]] = []
        for argument, operand in zip(node.args, arguments):
            given = operand.value
            if argument.keyword is not None:
                pairs.append((argument.keyword.value, given))
            elif not argument.star and given.kind is Kind.CONTAINER and given.keys:
                pairs.extend(zip(given.keys, given.elements))
            else:
                return
        for key, value in pairs:
            self.store_entry(path, key, value)

    def _grow(self, base: cst.BaseExpression, receiver: Value, method: str, arguments: list[Operand]) -> None:
        """``items.append(x)``, ``.insert(i, x)``, ``.extend(xs)``, ``.add(x)``: the container holds it too."""
        path = path_of(base)
        if path is None:
            return
        added = element_values(arguments[0].value) if method == "extend" else arguments[-1].value
        if receiver.kind is Kind.HOST and receiver.module is True and method != "add":
            # ``kept = nn.ModuleList(); kept.append(layers[i])``: a module container is where what it
            # holds is; given a module not made on the host here, that is not known.
            if any(leaf.kind is not Kind.HOST for leaf in leaves(added)):
                self.state.env[path] = Value(Kind.UNKNOWN, module=True, origin=receiver.origin)
            return
        if receiver.kind is not Kind.CONTAINER:
            return
        self.state.env[path] = container_of(receiver.container or "list", [*receiver.elements, added])

    def _method_result(
        self, node: cst.Call, base: cst.BaseExpression, method: str, receiver: Value, arguments: list[Operand]
    ) -> Value:
        """A method of ``receiver`` along one path (the calls that change state are handled before)."""
        returned = self._call_method(node, base, receiver, method, arguments)
        if returned is not None:
            return returned.value
        if receiver.kind is Kind.CONTAINER:
            return _container_method(receiver, method, node)
        if method == "numpy":
            accel = self._on_device(receiver)
            if accel is not None:
                self._emit(NumpyOnAccel(node, Operand(base, accel), node.func.attr), node)  # type: ignore[attr-defined]
                return NEUTRAL
        if receiver.instance_of is not None:
            self._check_helper(node, receiver, method, arguments)
            return UNKNOWN
        if receiver.generator:
            # ``torch.Generator(device=d).manual_seed(0)`` is the same generator.
            return receiver if method in ("manual_seed", "set_state") else NEUTRAL
        if receiver.distribution:
            if method in ("sample", "rsample", "sample_n"):
                # Its samples are where its parameters are (reported where it was built).
                return replace(receiver, distribution=False, module=False, grad=method == "rsample")
            return UNKNOWN
        if receiver.optimizer is not None:
            if method == "load_state_dict":
                self._optimizer_state_loaded(node, base, receiver)
            return NEUTRAL
        if method == "update" and (receiver.compares or METRIC_NAME.search(last_name(base) or "")):
            tensors = [a for a in arguments if carries_tensor(a.value)]
            self._check_unmoved_state(node, receiver, tensors)
            self._meet(node, tensors, f"`{self.ctx.code_for(node.func)}(...)`", arithmetic=True)
            return NEUTRAL
        if method in torch_api.RANDOM_METHODS and tensorish(receiver):
            self._check_generator(node, arguments, receiver, f"it fills `{self.ctx.describe(base)}`")
        index_operand = None
        index_spec = torch_api.INDEX_METHODS.get(method)
        if index_spec is not None and tensorish(receiver):
            index_operand = argument_at(node, arguments, index_spec[0], index_spec[1])
            if index_operand is not None:
                self._check_index_operation(node, Operand(base, receiver), index_operand, f"`.{method}()`")
        if method in ("eval", "train") and receiver.module is None and receiver.kind is not Kind.UNKNOWN:
            return replace(receiver, module=True)  # only a module has them; it returns itself
        if tensorish(receiver):
            if method in torch_api.NON_TENSOR_METHODS:
                return NEUTRAL
            if method in torch_api.NEW_METHODS:
                return replace(receiver, origin=node, scalar=False, grad=False, batch=False)
            if method in torch_api.DEVICE_PRESERVING_METHODS:
                others = [a for a in arguments if carries_tensor(a.value) and a is not index_operand]
                tensors = [Operand(base, receiver), *others]
                if method not in CROSS_DEVICE_METHODS:
                    self._meet(node, tensors, f"`.{method}()`", arithmetic=True)
                # (``keepdim=True`` keeps every dimension: what was not 0-dim is not now)
                reduces = (
                    method in torch_api.REDUCTION_METHODS and not _keeps_dims(node)
                ) or (method in ("argmax", "argmin") and not node.args)
                # (a 0-dim tensor given a dimension is no longer 0-dim: it meets tensors elsewhere)
                grows = method in _SHAPE_GROWING_METHODS
                return replace(
                    receiver,
                    scalar=(receiver.scalar and not grows) or reduces,
                    grad=receiver.grad and method not in ("detach",),
                    batch=False,
                )
        if (
            receiver.kind is Kind.CONDITIONAL
            and receiver.module is not True
            and method in torch_api.DEVICE_PRESERVING_METHODS
        ):
            return replace(receiver, origin=node)  # ``x.float()`` stays where ``x`` is
        if receiver.kind is Kind.HOST and receiver.batch:
            return UNKNOWN
        own = (
            self.in_module_class
            and receiver.kind is Kind.UNKNOWN
            and isinstance(base, cst.Name)
            and base.value == self.self_name
        )
        if own and method in ("parameters", "buffers", "named_parameters", "named_buffers"):
            receiver = Value(Kind.INPUT, module=True)  # a module's own weights: where it is
        if (
            receiver.module is True
            and receiver.stateful
            and method in ("parameters", "buffers", "named_parameters", "named_buffers")
            and receiver.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT)
        ):
            # A module's parameters and buffers are where the module is.
            tensor = Value(receiver.kind, device=receiver.device, move=receiver.move, module=False, origin=node)
            element = container_of("tuple", [NEUTRAL, tensor]) if method.startswith("named_") else tensor
            return container_of("list", [element])
        if receiver.module is True and method in (
            "eval",
            "train",
            "requires_grad_",
            "float",
            "half",
            "double",
            "bfloat16",
        ):
            return receiver  # modules return themselves
        # ``self.emb(pos)``, ``self.criterion(out, y)``: calling a module held in an attribute.
        callee = self._attribute(node.func, receiver) if isinstance(node.func, cst.Attribute) else UNKNOWN
        if (
            callee.module is True
            or (callee.module is None and callee.kind is Kind.ACCEL)  # moved and called: a model
            or callee.compares
            or callee.instance_of is not None
            or LOSS_NAME.search(method)
            or METRIC_NAME.search(method)
        ):
            return self._call_value(node, callee, arguments, method)
        return UNKNOWN

    @staticmethod
    def _names_a_device(node: cst.Call) -> bool:
        """An argument named like a device (``restore(path, model, opt, device)``, ``map_location=dev``)."""
        return any(
            (a.keyword is not None and a.keyword.value in ("device", "map_location"))
            or bool(DEVICE_NAME.search(dotted_name(a.value) or ""))
            for a in node.args
        )

    def _check_sampler_subclass(self, node: cst.Call, name: str, arguments: list[Operand]) -> None:
        """``SeedableRandomSampler(..., generator=g)``: a subclass of this file's of a sampler draws
        like it."""
        for entry in self.analysis.program.lineage(name):
            for base in entry.bases:
                qualified = self.symbols.qualify_dotted(base)
                if qualified in torch_api.HOST_GENERATOR_CONSUMERS:
                    target = self._random_target(node, qualified, arguments)
                    if target is not None:
                        self._check_generator(node, arguments, target[0], target[1], by_default=target[2])
                    return

    def _made_without_device(self, node: cst.Call, qualified: str, *, listed: bool) -> Value:
        """A tensor a factory makes without ``device=``: where the default device is (the host)."""
        scalar = patterns.maybe_zero_dim_factory(node, qualified) and not listed
        default = self._default_device_place(module=False)
        if default is not None and qualified not in torch_api.HOST_ONLY_FACTORIES:
            return replace(default, origin=node, scalar=scalar)
        return Value(Kind.HOST, module=False, origin=node, scalar=scalar)

    def _torch_call(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> Value | None:
        if patterns.keyword(node, "generator") is not None:
            target = self._random_target(node, qualified, arguments)
            if target is not None:
                self._check_generator(node, arguments, target[0], target[1], by_default=target[2])
        if qualified in torch_api.TENSOR_FACTORIES:
            device = patterns.keyword(node, "device")
            if device is not None:
                return self._device_value(device.value, node, module=False) or UNKNOWN
            if any(a.star == "**" for a in node.args):
                return UNKNOWN  # ``torch.as_tensor(x, **kwargs)``: the device may be among them
            if qualified == "torch.normal":
                # ``torch.normal(mean, std)`` of tensors samples where they are; of numbers, on the CPU.
                moments = [argument_at(node, arguments, i, k) for i, k in ((0, "mean"), (1, "std"))]
                placed = [leaf for a in moments if a is not None for leaf in leaves(a.value)]
                if any(leaf.kind is not Kind.NEUTRAL for leaf in placed):
                    tensors = [leaf for leaf in placed if tensorish(leaf)]
                    if tensors and len(tensors) == len(placed):
                        return replace(tensors[0], origin=node, scalar=False, grad=False)
                    return UNKNOWN
            given = arguments[0].value if arguments and node.args[0].keyword is None else None
            data = node.args[0].value if given is not None and qualified in torch_api.DATA_CONVERSIONS else None
            if self.summary_mode and isinstance(data, cst.Name) and data.value in self.parameters:
                # Of a parameter (a list, a number, or a tensor that stays where it is): settled by
                # what each caller passes (``substitute``).
                scalar = patterns.maybe_zero_dim_factory(node, qualified)
                return Value(Kind.HOST, module=False, origin=node, scalar=scalar, source=data.value, converted=True)
            if given is not None and qualified in torch_api.DATA_CONVERSIONS:
                places = alternatives(given)
                if places and all(tensorish(a) for a in places):
                    return replace(given, grad=False)  # a tensor given stays where it is
                if any(tensorish(a) for a in places):
                    # Along the paths where it is given a tensor, the result is where that one is.
                    # (each path's result goes with what that path gave: ``x = torch.tensor(x)``
                    # never pairs a moved ``x`` with one made here)
                    made = self._made_without_device(node, qualified, listed=False)
                    converted = union([replace(a, grad=False) if tensorish(a) else made for a in places])
                    return choices_of(self.ctx.code_for(node), converted)
            # ``torch.tensor(boxes)`` of a list built here is not 0-dim.
            listed = bool(arguments) and arguments[0].value.kind is Kind.CONTAINER and node.args[0].keyword is None
            return self._made_without_device(node, qualified, listed=listed)
        if qualified in torch_api.LIKE_FACTORIES:
            device = patterns.keyword(node, "device")
            if device is not None:
                return self._device_value(device.value, node, module=False) or UNKNOWN
            if arguments:
                return replace(arguments[0].value, origin=node, scalar=False, grad=False, batch=False)
            return UNKNOWN
        if qualified in torch_api.PARAMETER_CLASSES:
            return replace(arguments[0].value, grad=True, registers=True) if arguments else UNKNOWN
        if qualified in torch_api.BUFFER_CLASSES:
            return replace(arguments[0].value, registers=True) if arguments else UNKNOWN
        if qualified in ("torch.autograd.Variable", "torch.autograd.variable.Variable"):
            return arguments[0].value if arguments else UNKNOWN  # a no-op wrapper since PyTorch 0.4
        if qualified in torch_api.GENERATOR_CLASSES:
            device = patterns.keyword(node, "device") or patterns.positional(node, 0)
            if device is None:
                return Value(Kind.HOST, module=False, origin=node, generator=True)
            placed = self._device_value(device.value, node, module=False)
            return replace(placed, generator=True) if placed is not None else UNKNOWN
        if torch_api.is_optimizer_class(qualified):
            return self._new_optimizer(node, qualified, arguments)
        if qualified == "torch.utils.data.DataLoader" or qualified.endswith(".DataLoader"):
            return Value(Kind.LOADER, module=False)
        if qualified in ("torch.device",):
            # ``torch.device("cpu")`` bound to a name reads like the string itself (``x.to(device)``).
            first = patterns.positional(node, 0)
            literal = patterns.string_value(first.value) if first is not None and len(node.args) == 1 else None
            return neutral_constant(literal)
        if qualified.startswith("torch.distributions.") and qualified.rsplit(".", 1)[-1][:1].isupper():
            return self._new_distribution(node, arguments)
        if qualified.startswith(TRANSFORM_MODULES) and qualified.rsplit(".", 1)[-1][:1].isupper():
            return Value(Kind.HOST, module=True, stateful=False, transform=True, origin=node)
        if qualified in torch_api.INPUT_SCATTERING_WRAPPERS:
            inner = arguments[0].value if arguments else UNKNOWN
            # (Along some path: a model the file's calls pass on the host, whatever other callers pass.)
            unmoved = next((a for a in alternatives(inner) if a.kind is Kind.HOST and a.module is True), None)
            placed = any(a.kind in (Kind.ACCEL, Kind.CONDITIONAL) for a in alternatives(inner))
            if unmoved is not None and not placed and not node.args[0].star:
                operand = Operand(arguments[0].expr, unmoved)
                self._emit(WrappedUnmoved(node, operand, qualified, self.function, self.statement), node)
            return replace(inner, scatters_inputs=True) if inner.module is not False else UNKNOWN
        if torch_api.is_nn_module_class(qualified):
            is_loss = qualified.endswith("Loss")
            weights = [w for w in (argument_at(node, arguments, None, k) for k in ("weight", "pos_weight")) if w]
            if is_loss and weights:
                return self._weighted_loss(node, weights)
            stateful = not is_loss and qualified not in torch_api.STATELESS_NN_MODULES
            return self._new_module(node, stateful=stateful, compares=is_loss)
        if MODULE_FACTORIES.match(qualified):
            return self._new_module(node, stateful=True)
        if qualified.startswith("torchmetrics.") and qualified.rsplit(".", 1)[-1][:1].isupper():
            # Metrics with tensor state (summed in place by `update`) must be moved like modules.
            tensor_state = torch_api.is_tensor_state_metric(qualified) and not any(
                patterns.keyword(node, k) is not None for k in torch_api.LIST_STATE_METRIC_KEYWORDS
            )
            return Value(Kind.HOST, module=True, stateful=tensor_state, compares=True, origin=node)
        if qualified.startswith(("torch.", "torchmetrics.functional.")) and not qualified.startswith(
            ("torch.cuda.", "torch.distributed.", "torch.backends.", "torch._")
        ):
            # A list or tuple written in the call meets through its elements (reported where they are).
            tensors = [
                a for a in arguments if carries_tensor(a.value) and not isinstance(a.expr, (cst.List, cst.Tuple))
            ]
            listed = [
                Operand(e.value, self._value_of(e.value))
                for a in node.args
                if isinstance(a.value, (cst.List, cst.Tuple))
                for e in a.value.elements
            ]
            tensors += [o for o in listed if carries_tensor(o.value)]
            # An empty placeholder a test said was filled elsewhere is not what meets here.
            tensors = [t for t in tensors if not (t.value.kind is Kind.HOST and self._known_not_empty(t))]
            index_spec = torch_api.INDEX_FUNCTIONS.get(qualified)
            if index_spec is not None:
                indexed = argument_at(node, arguments, index_spec[0], "input")
                index = argument_at(node, arguments, index_spec[1], index_spec[2])
                if indexed is not None and index is not None:
                    self._check_index_operation(node, indexed, index, f"`{self.ctx.code_for(node.func)}`")
                    tensors = [t for t in tensors if t is not index]
            strict = qualified in torch_api.SAME_DEVICE_EVEN_FOR_SCALARS
            self._meet(
                node,
                self._without_any_device_arguments(node, arguments, tensors, qualified=qualified),
                f"`{self.ctx.code_for(node.func)}`",
                arithmetic=not strict,
                spread=qualified in torch_api.SEQUENCE_JOINS,
            )
            if qualified in torch_api.NON_TENSOR_FUNCTIONS or not tensors:
                return UNKNOWN
            # A torch function of tensors gives a tensor where they are (``F.interpolate(x, ...)``); a
            # sequence of tensors (``torch.stack(samples)``) counts through its elements.
            result = common_device(
                [Operand(t.expr, element_values(t.value)) if t.value.kind is Kind.CONTAINER else t for t in tensors]
            )
            alone = len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star
            if qualified in torch_api.FULL_REDUCTIONS and alone:
                # ``torch.max(t)``: a 0-dim tensor (which mixes with tensors anywhere when on the host).
                return lift(result, lambda v: replace(v, scalar=True) if tensorish(v) else v)
            return result
        return None

    def _new_distribution(self, node: cst.Call, arguments: list[Operand]) -> Value:
        """``torch.distributions.Uniform(low, high)`` samples where its parameters are: built from
        Python numbers, on the default device (the CPU unless the file sets another)."""
        sources = [leaf.source for a in arguments for leaf in leaves(a.value) if leaf.source]
        if self.summary_mode and sources:
            # Numbers or tensors, as the callers pass them: settled where the summary is applied.
            return Value(Kind.UNKNOWN, module=None, origin=node, distribution=True, source=sources[0])
        tensors = [a for a in arguments if carries_tensor(a.value)]
        # Numbers along the paths the file's calls take (a parameter's value may be unknown beside
        # them), or parameters whose default is a number.
        numbers = all(
            all(v.kind in (Kind.NEUTRAL, Kind.UNKNOWN) for v in alternatives(a.value))
            and (any(v.kind is Kind.NEUTRAL for v in alternatives(a.value)) or self._number_default(a.expr))
            for a in arguments
        )
        if tensors:
            place = common_device(tensors)
        elif numbers and arguments and self.analysis.default_device_is_cpu:
            place = Value(Kind.HOST)
        else:
            return UNKNOWN
        return lift(
            place,
            lambda v: replace(v, module=None, origin=node, distribution=True, scalar=False)
            if v.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT)
            else UNKNOWN,
        )

    def _looked_up(self, func: cst.BaseExpression) -> str | None:
        """``getattr(torch, window)`` with ``window`` a name known here (a literal, a string bound
        to a name, or a parameter's default: ``window="hann_window"``): ``torch.hann_window``."""
        if not (
            isinstance(func, cst.Call)
            and dotted_name(func.func) == "getattr"
            and len(func.args) == 2
            and not any(a.keyword or a.star for a in func.args)
            and self._builtin("getattr")
        ):
            return None
        owner = self.symbols.qualify(func.args[0].value)
        name = func.args[1].value
        text = patterns.string_value(name)
        if text is None and isinstance(name, cst.Name):
            bound = self.state.env.get(name.value)
            text = bound.constant if bound is not None and bound.kind is Kind.NEUTRAL else None
            if text is None and (bound is None or bound.source == name.value):  # (the parameter itself)
                default = self._parameter_default(name.value)
                text = patterns.string_value(default) if default is not None else None
        if owner is None or text is None or not text.isidentifier():
            return None
        return f"{owner}.{text}"

    def _parameter_default(self, name: str) -> cst.BaseExpression | None:
        """The default of this function's parameter ``name`` (None: no such parameter, or no default)."""
        if self.function is None:
            return None
        params = self.function.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params)
        return next((p.default for p in every if p.name.value == name), None)

    def _number_default(self, node: cst.BaseExpression) -> bool:
        """``low`` in ``def __init__(self, low=3.0)``: a parameter whose default is a number."""
        default = self._parameter_default(node.value) if isinstance(node, cst.Name) else None
        if isinstance(default, cst.UnaryOperation):
            default = default.expression
        return isinstance(default, (cst.Integer, cst.Float))

    def _new_module(self, node: cst.Call, *, stateful: bool, compares: bool = False) -> Value:
        placed = next(
            (patterns.keyword(node, k) for k in PLACEMENT_KEYWORDS if patterns.keyword(node, k) is not None), None
        )
        if placed is not None:
            device = self._device_value(placed.value, node, module=True)
            return device if device is not None else Value(Kind.UNKNOWN, module=True)
        default = self._default_device_place(module=True)
        if default is not None:
            return replace(default, stateful=stateful, origin=node, compares=compares)
        return Value(Kind.HOST, module=True, stateful=stateful, origin=node, compares=compares)

    def _default_device_place(self, *, module: bool) -> Value | None:
        """Where a factory without ``device=`` (or a module) allocates in code of a function of a file
        that sets an accelerator default device (``torch.set_default_device(device)``): there. (The
        file's script may run before the setting; a function runs after it is set up.)  Inside
        ``with torch.device(d):`` (not the CPU), where ``d`` is: not known."""
        if self.scoped_device:
            return Value(Kind.UNKNOWN, module=module)
        setting = self.analysis.default_device_setting
        if setting is None or self.function is None:
            return None
        return Value(Kind.ACCEL, device=setting.argument, module=module)

    # -- optimizers (DEV301) ---------------------------------------------------------------

    def _new_optimizer(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> Value:
        params = argument_at(node, arguments, 0, "params")
        owner = self._parameters_owner(params.expr) if params is not None else None
        if owner is None:
            return UNKNOWN
        eager = qualified in torch_api.EAGER_STATE_OPTIMIZERS or (
            qualified in self.analysis.program.classes and self.analysis.eager_optimizer(qualified)
        )
        built_by = node if eager and self._owner_on_host(owner) else None
        pending = node if eager and built_by is None and self.summary_mode else None
        state = OptimizerState(owner, built_by, self.statement, pending)
        # Kind HOST with an `optimizer`: never a tensor (see `_tensorish`), never a module.
        return Value(Kind.HOST, module=None, origin=node, optimizer=state)

    def _parameters_owner(self, node: cst.BaseExpression) -> str | None:
        """``model`` for ``model.parameters()``, ``filter(f, model.parameters())``, param groups and a
        model's own param-group method (``model.train_params(lrs)``); ``<param>`` for a parameter
        of a summarised function (``def make_optimizer(params): ...``), settled at its calls."""
        if isinstance(node, cst.Name) and self.summary_mode and node.value in self.parameters:
            return f"<{node.value}>"
        if isinstance(node, cst.Call):
            method = patterns.method_name(node)
            if method in ("parameters", "named_parameters"):
                base = patterns.receiver(node)
                return path_of(base) if base is not None and not node.args else None
            if method is not None and "param" in method.lower():
                base = patterns.receiver(node)
                value = self._value_of(base) if base is not None else UNKNOWN
                return path_of(base) if base is not None and value.module is True else None
            if dotted_name(node.func) in ("filter", "list", "tuple") and node.args and not node.args[-1].star:
                return self._parameters_owner(node.args[-1].value)
            return None
        if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements:
            return None
        owners: list[str | None] = []
        for element in node.elements:
            value = element.value
            if isinstance(value, cst.Dict):
                found = [
                    self._parameters_owner(e.value)
                    for e in value.elements
                    if isinstance(e, cst.DictElement) and patterns.string_value(e.key) == "params"
                ]
                owners.append(found[0] if len(found) == 1 else None)
            else:
                owners.append(self._parameters_owner(value))
        if any(o is None for o in owners):
            return None
        parts = [o.split(".") for o in owners if o is not None]
        common: list[str] = []
        for segments in zip(*parts):
            if len(set(segments)) != 1:
                break
            common.append(segments[0])
        return ".".join(common) or None

    def _weighted_loss(self, node: cst.Call, weights: list[Operand]) -> Value:
        """A loss with class weights keeps them (as a buffer) wherever the weights are."""
        values = [
            # A class-weight vector is never 0-dim (only `pos_weight` may be a single number).
            replace(v, scalar=False) if keyword_of(node, w) == "weight" else v
            for w in weights
            for v in alternatives(w.value)  # ``weight=None`` along some paths: no weights there
            if v.kind is not Kind.NEUTRAL
        ]
        if not values:
            return Value(Kind.HOST, module=True, stateful=False, compares=True, origin=node)
        accel = next((v for v in values if v.kind is Kind.ACCEL and tensorish(v)), None)
        if accel is not None:
            return Value(
                Kind.ACCEL,
                device=accel.device,
                move=accel.move,
                origin=node,
                module=True,
                compares=True,
                condition=accel.condition,
            )
        if all(v.kind is Kind.HOST and tensorish(v) for v in values):
            holds_tensors = any(not v.scalar for v in values)
            return Value(Kind.HOST, module=True, stateful=holds_tensors, compares=True, origin=node)
        return Value(Kind.UNKNOWN, module=True, compares=True)

    def _helper_instance(self, node: cst.BaseExpression) -> Value | None:
        """``norm = Normalize(...)``: an instance of a helper class keeping host constants.

        Only a constructor assigned as it is (the DEV307 marker, ``= Normalize(``, must hold)."""
        if not isinstance(node, cst.Call) or node.lpar or not isinstance(node.func, cst.Name):
            return None
        name = node.func.value
        if not name[:1].isupper() or self.analysis.helpers.get(name) is None:
            return None
        for argument in node.args:
            self._eval(argument.value)
        return Value(Kind.UNKNOWN, instance_of=name, origin=node)


# Tensor methods that give a 0-dim tensor dimensions (``t.unsqueeze(0)``, ``t.view(1)``).
_SHAPE_GROWING_METHODS = frozenset(
    {"unsqueeze", "view", "reshape", "expand", "repeat", "flatten", "expand_as", "view_as", "reshape_as"}
)

# Packages of host data or of Python itself: what their functions return is not a tensor made
# where its arguments are (torch's own functions are known one by one: ``_torch_call``).
_HOST_PACKAGES = frozenset(
    {
        "torch", "numpy", "np", "scipy", "sklearn", "pandas", "cv2", "PIL", "skimage", "imageio",
        "matplotlib", "networkx", "math", "random", "statistics", "os", "sys", "json", "pickle",
        "logging", "warnings", "time", "itertools", "functools", "collections", "re", "typing",
        "builtins", "operator", "wandb", "tensorboardX", "mlflow",
    }
)  # fmt: skip
_HOST_FUNCTION_NAME = re.compile(r"numpy|cpu|host|list|item|str|print|log|save|plot|show|len|size|shape|count")
# Python's own functions that always give a number (or a string): never a tensor.
_NUMBER_BUILTINS = frozenset({"len", "int", "float", "bool", "str", "hash", "id", "ord"})
_CONTAINER_BUILTINS = frozenset({"list", "tuple", "sorted", "reversed", "zip"})


def _container_builtin(name: str, node: cst.Call, arguments: list[Operand]) -> Value | None:
    """``list(xs)``, ``tuple(xs)``, ``sorted(xs, key=...)``, ``reversed(xs)``: the elements of
    ``xs``; ``zip(xs, ys)``: tuples of one element of each.  None where that is not known."""
    if name == "zip" and len(node.args) == 1 and node.args[0].star == "*":
        # ``zip(*rows)``: each column holds what the rows hold.
        cells = [
            cell
            for row in alternatives(element_of(arguments[0].value))
            if row.kind is Kind.CONTAINER
            for element in row.elements
            for cell in alternatives(element)
        ]
        return container_of("list", [container_of("list", list(dict.fromkeys(cells)))]) if cells else None
    if any(a.star for a in node.args):
        return None
    if not node.args and name in ("list", "tuple"):
        return container_of(name, [])  # ``list()``: empty, as ``[]`` is
    # (a dict gives its keys)
    given = [
        container_of("list", [NEUTRAL]) if o.value.container == "dict" else o.value
        for a, o in zip(node.args, arguments)
        if a.keyword is None
    ]
    if name == "zip":
        if not given or any(v.kind is Kind.UNKNOWN for v in given):
            return None
        return container_of("list", [container_of("tuple", [element_of(v) for v in given])])
    if len(given) != 1 or given[0].kind is Kind.UNKNOWN:
        return None
    if name == "tuple" and given[0].kind is Kind.CONTAINER and given[0].container == "tuple":
        return given[0]
    return container_of("list", [element_of(given[0])])


def _follows_inputs(qualified: str, arguments: list[Operand]) -> Value | None:
    """A function of a tensor library this file imports (``to_dense_adj(edge_index)``,
    ``rearrange(x, ...)``) given the function's inputs and nothing else placed: its tensors are made
    where those are, as tensor functions make theirs.  Not for classes (an object, not a tensor),
    packages of host data, or functions named for the host; None where that does not hold."""
    package, _, function = qualified.rpartition(".")
    if (
        not package
        or package.split(".")[0] in _HOST_PACKAGES
        or function[:1].isupper()
        or _HOST_FUNCTION_NAME.search(function)
    ):
        return None
    places = [leaf for a in arguments for leaf in leaves(a.value) if leaf.kind is not Kind.NEUTRAL]
    # (Along the paths where what it is given is not known, neither is what it makes.)
    known = [p for p in places if p.kind is not Kind.UNKNOWN]
    if not known or any(p.kind is not Kind.INPUT or not tensorish(p) for p in known):
        return None
    first = known[0]
    if any(p.source != first.source or p.condition != first.condition for p in known):
        return None
    made = replace(first, scalar=False)
    return union([made, UNKNOWN]) if len(known) < len(places) else made


def _all_on_accelerator(arguments: list[Operand]) -> Value | None:
    """The one accelerator place of every tensor among the arguments, along every path, where each
    other argument is known to be no tensor (a number, a string); None otherwise."""
    places = [leaf for a in arguments for leaf in leaves(a.value) if leaf.kind is not Kind.NEUTRAL]
    if not places or any(p.kind is not Kind.ACCEL or not tensorish(p) or p.scalar for p in places):
        return None
    first = places[0]
    same = all(p.device == first.device and p.condition == first.condition for p in places)
    return first if same else None


def _element_on_device(
    argument: Operand, on_device: Callable[[Value], Value | None], named: Callable[[cst.BaseExpression], Value | None]
) -> Operand | None:
    """The tensor of ``argument`` that NumPy cannot take, with its place: a name (or attribute)
    written in a list or tuple (``np.stack([a, b])``: ``b``), else the argument itself."""
    found = on_device(argument.value)
    if found is None:
        return None
    if isinstance(argument.expr, (cst.List, cst.Tuple)):
        for element in argument.expr.elements:
            held = named(element.value) if not isinstance(element, cst.StarredElement) else None
            placed = on_device(held) if held is not None else None
            if placed is not None:
                return Operand(element.value, placed)
    return Operand(argument.expr, found)


def _keeps_dims(call: cst.Call) -> bool:
    """``t.sum(0, keepdim=True)``: the result has as many dimensions as ``t``."""
    kept = patterns.keyword(call, "keepdim")
    return kept is not None and isinstance(kept.value, cst.Name) and kept.value.value == "True"
