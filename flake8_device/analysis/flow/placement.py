"""Moves and device expressions: where ``x.to(d)``, ``x.cuda()``, ``device=d`` put a value."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.flow.base import InterpreterBase
from flake8_device.analysis.flow.events import Operand
from flake8_device.analysis.flow.knowledge import (
    ACCELERATOR_WORDS,
    CONFIG_OWNER,
    DEVICE_NAME,
    DTYPE_NAME,
    names_accelerator,
    names_cpu,
)
from flake8_device.analysis.flow.syntax import parameters_of, path_of
from flake8_device.analysis.flow.values import (
    ALWAYS,
    UNKNOWN,
    Kind,
    Value,
    alternatives,
    carries_tensor,
    choices_of,
    union,
)
from flake8_device.analysis.symbols import dotted_name


class PlacementMixin(InterpreterBase):
    def _move(self, node: cst.Call, receiver: Value) -> Value | None:
        """The value of ``x.to(...)`` / ``x.cuda()`` / ``x.cpu()``; None when the target is unknown."""
        method = patterns.method_name(node)
        module = receiver.module
        if receiver.class_name is not None and receiver.attributes and module is not False:
            # An instance of this file's module class moves; its plain tensors stay where they are.
            held = self.analysis.held
            name = receiver.class_name
            receiver = replace(
                receiver, attributes=tuple((a, held(name, a, v, construction=True)) for a, v in receiver.attributes)
            )
        base = dict(
            module=module,
            stateful=receiver.stateful,
            grad=receiver.grad,
            scatters_inputs=receiver.scatters_inputs,
            compares=receiver.compares,
            transform=receiver.transform,
            # Moving keeps the shape: a 0-dim tensor stays one.
            scalar=receiver.scalar and module is not True,
            # An instance of this file's classes stays one, with its attributes.
            class_name=receiver.class_name,
            attributes=receiver.attributes,
        )
        if method == "cpu":
            return Value(Kind.HOST, origin=node, **base)  # type: ignore[arg-type]
        if method == "cuda":
            move = self._move_suffix(node)
            accel = Value(Kind.ACCEL, device="cuda", move=move, origin=node, **base)  # type: ignore[arg-type]
            return replace(accel, condition=ALWAYS)
        device = patterns.keyword(node, "device")
        target = device.value if device is not None else None
        if target is None:
            first = patterns.positional(node, 0)
            if first is None:
                return replace(receiver, origin=receiver.origin) if patterns.keyword(node, "dtype") else None
            target = first.value
        if self._is_dtype(target):
            return receiver
        placed = self._device_value(target, node, module=module)
        if placed is None:
            return None
        return replace(
            placed,
            stateful=receiver.stateful,
            grad=receiver.grad,
            scatters_inputs=receiver.scatters_inputs,
            compares=receiver.compares,
            transform=receiver.transform,
            scalar=receiver.scalar and module is not True,
            class_name=receiver.class_name,
            attributes=receiver.attributes,
        )

    def _helper_move(
        self, node: cst.Call, arguments: list[Operand], *, device: cst.BaseExpression | None = None
    ) -> Value:
        """``batch_to_device(batch, device)`` and its kin: where the batch goes (``device``: the
        device object whose method it is)."""
        keyword = patterns.keyword(node, "device")
        target = keyword.value if keyword is not None else (arguments[1].expr if len(arguments) > 1 else device)
        if target is None:
            return UNKNOWN
        placed = self._device_value(target, node, module=None)
        if placed is None:
            return UNKNOWN
        return replace(placed, module=None)

    def _move_suffix(self, node: cst.Call) -> str | None:
        whole = self.ctx.module.code_for_node(node)
        base = patterns.receiver(node)
        if base is None:
            return None
        head = self.ctx.module.code_for_node(base)
        if whole.startswith(head) and whole[len(head) :].lstrip().startswith("."):
            return whole[len(head) :].strip()
        return None

    def _casts_only(self, node: cst.Call) -> bool:
        """``x.to(torch.float32)`` / ``x.to(dtype=d)``: a cast that names no device."""
        if patterns.method_name(node) != "to" or patterns.keyword(node, "device") is not None:
            return False
        first = patterns.positional(node, 0)
        return self._is_dtype(first.value) if first is not None else patterns.keyword(node, "dtype") is not None

    def _is_dtype(self, node: cst.BaseExpression) -> bool:
        qualified = self.symbols.qualify(node)
        if qualified in torch_api.DTYPE_NAMES:
            return True
        name = dotted_name(node)
        return bool(name and DTYPE_NAME.search(name))

    def _device_value(self, node: cst.BaseExpression, origin: cst.Call, *, module: bool | None) -> Value | None:
        """Where ``device=<node>`` puts a value; None when it cannot be told.

        On the accelerator, the value also records the condition the device was chosen by
        (``torch.device("cuda" if use_cuda else "cpu")``), when it is known.
        """
        placed = self._device_value_as_written(node, origin, module=module)
        choice = self._device_choice(node)
        if choice is None:
            return placed
        if placed is None or placed.kind is Kind.MAYBE:  # chosen by a condition: on the device when it holds
            suffix = (
                self._move_suffix(origin)
                if patterns.method_name(origin) in ("to", "cuda")
                else f".to({self.ctx.code_for(node)})"
            )
            return Value(
                Kind.ACCEL, device=self.ctx.code_for(node), move=suffix, origin=origin, module=module, condition=choice
            )
        return replace(placed, condition=choice) if placed.kind is Kind.ACCEL else placed

    def _device_value_as_written(
        self, node: cst.BaseExpression, origin: cst.Call, *, module: bool | None
    ) -> Value | None:
        suffix = (
            self._move_suffix(origin)
            if patterns.method_name(origin) in ("to", "cuda")
            else f".to({self.ctx.code_for(node)})"
        )
        text = self.ctx.code_for(node)
        literal = patterns.string_value(node)
        if isinstance(node, cst.Name) and node.value == "None":
            return Value(Kind.HOST, origin=origin, module=module)  # the default device
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
            return self._device_fallback(node, origin, module=module)
        if isinstance(node, cst.Name) and node.value in self.cpu_defaults and node.value not in self.state.env:
            return None  # the CPU by default, anything a caller elsewhere gives: not known
        if literal is None and isinstance(node, (cst.Name, cst.Attribute)):
            bound = self.state.env.get(path_of(node) or "")
            if bound is not None and bound.kind is Kind.MAYBE and any(a.constant for a in bound.alternatives):
                return self._device_alternatives(node, bound, origin, module)
            if bound is not None and bound.constant is not None:
                literal = bound.constant
                if literal == "None":
                    return Value(Kind.HOST, origin=origin, module=module)
            if bound is not None and bound.device_of is not None:
                return self._same_device(bound.device_of, origin, module)  # ``device = x.device``
        if isinstance(node, cst.Call) and self._local_callee(node.func) is not None:
            given = self._value_of(node)  # (a helper of this file: ``x.to(device_of(model))``)
            if given.device_of is not None:
                return self._same_device(given.device_of, origin, module)
        if isinstance(node, cst.Call) and self.symbols.qualify(node.func) == "torch.device":
            first = patterns.positional(node, 0)
            if first is not None:
                literal = patterns.string_value(first.value)
                if literal is None:
                    return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
        if literal is not None:
            kind = literal.split(":")[0]
            if kind == "cpu":
                return Value(Kind.HOST, origin=origin, module=module)
            if kind in ACCELERATOR_WORDS:
                return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
            return None
        if isinstance(node, cst.Integer):
            return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
        if isinstance(node, cst.Attribute) and node.attr.value == "device":
            owner = node.value
            owner_name = dotted_name(owner)
            if self.self_name is not None and owner_name == self.self_name and self.in_module_class:
                # The module's own device (Lightning's `self.device`): where its inputs live.
                return Value(Kind.INPUT, origin=origin, module=module)
            if self.self_name is not None and owner_name == self.self_name and self.owner is not None:
                held = self.analysis.program.device_property(self.owner.name.value)
                if held is not None:
                    # A ``device`` property that returns where one of its tensors is.
                    found = self.state.env.get(f"{self.self_name}.{held}")
                    return self._same_device(found, origin, module) if found is not None else None
            same = self._value_of(owner)
            if carries_tensor(same) and same.kind is not Kind.CONTAINER:
                path = path_of(owner)
                if same.kind is Kind.MAYBE and path is not None and path in self.state.env:
                    # ``x`` keeps the choice each alternative is, so that what is made on its
                    # device meets ``x`` itself path by path.
                    same = self.state.env[path] = self._by_alternative(same)
                return self._same_device(same, origin, module)
            if same.module is True and same.kind in (Kind.ACCEL, Kind.INPUT):
                return replace(self._same_device(same, origin, module), module=module)  # a model's device
            if owner_name is not None and (
                CONFIG_OWNER.search(owner_name) or owner_name == self.self_name or self._imported_setting(owner)
            ):
                return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
            if isinstance(owner, cst.Call) and dotted_name(owner.func) == "next":
                # `next(model.parameters()).device`: where the model's weights are.  A model known
                # here is where it is; any other may be on an accelerator.
                weights = parameters_of(owner)
                model = self._value_of(weights) if weights is not None else UNKNOWN
                if model.module is not False and all(
                    a.kind in (Kind.HOST, Kind.ACCEL) or (a.kind is Kind.INPUT and a.source is not None)
                    for a in alternatives(model)
                ):
                    return replace(self._same_device(model, origin, module), module=module)
                return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
            return None
        if isinstance(node, (cst.Name, cst.Attribute)):
            same = self._value_of(node)
            if carries_tensor(same) and same.kind is not Kind.CONTAINER:
                return self._same_device(same, origin, module)  # ``x.to(other_tensor)``
        name = dotted_name(node)
        if name is not None and DEVICE_NAME.search(name):
            return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
        key = patterns.subscript_key(node)
        if key is not None and DEVICE_NAME.search(key):
            # ``cfg["device"]``: a setting, read like ``cfg.device``.
            return Value(Kind.ACCEL, device=text, move=suffix, origin=origin, module=module)
        return None

    def _imported_setting(self, owner: cst.BaseExpression) -> bool:
        """``ptu.device``: the ``device`` of a module (or object) the file imports, not torch's or
        NumPy's, and not rebound here: a process-wide setting, read like ``args.device``."""
        if not isinstance(owner, cst.Name) or owner.value in self.state.env:
            return False
        imported = self.symbols.imports.get(owner.value)
        return imported is not None and imported.split(".")[0] not in ("torch", "numpy", "jax")

    def _device_fallback(self, node: cst.BooleanOperation, origin: cst.Call, *, module: bool | None) -> Value | None:
        """``device or "cuda"``, ``device or ("cuda" if ok else "cpu")``: the fallback where the
        device is None, else either; on the accelerator when either may name one."""
        given = self._value_of(node.left)
        fallback = self._device_value(node.right, origin, module=module)
        if given.constant == "None":
            return fallback
        chosen = self._device_value(node.left, origin, module=module)
        places = [p for p in (chosen, fallback) if p is not None]
        if not any(a.kind is Kind.ACCEL for p in places for a in alternatives(p)):
            return places[0] if len(places) == 2 and union(places).kind is Kind.HOST else None
        suffix = self._move_suffix(origin) if patterns.method_name(origin) in ("to", "cuda") else None
        return Value(
            Kind.ACCEL,
            device=self.ctx.code_for(node),
            move=suffix or f".to({self.ctx.code_for(node)})",
            origin=origin,
            module=module,
        )

    def _device_alternatives(
        self, node: cst.BaseExpression, bound: Value, origin: cst.Call, module: bool | None
    ) -> Value | None:
        """A device variable that holds different devices along different paths (a ``device=None``
        default given a device by some callers)."""
        placed: list[Value] = []
        text = self.ctx.code_for(node)
        # Values placed by one device variable are on the CPU together along the paths where it is
        # the CPU: ``model.to(device)`` and ``x.to(device)`` never meet across its alternatives.
        for alternative in bound.alternatives:
            literal = alternative.constant
            if literal == "None" or names_cpu(literal):
                placed.append(
                    Value(Kind.HOST, origin=origin, module=module, guard=alternative.guard, placed_by=((text, "host"),))
                )
            elif names_accelerator(literal) or (
                literal is None and DEVICE_NAME.search(text)
            ):
                placed.append(
                    Value(
                        Kind.ACCEL,
                        device=text,
                        origin=origin,
                        module=module,
                        guard=alternative.guard,
                        placed_by=((text, "accel"),),
                    )
                )
            else:
                return None
        return union(placed)

    def _same_device(self, same: Value, origin: cst.Call, module: bool | None) -> Value:
        # Placed where ``x`` is, path by path: two values placed by one ``x.device`` never meet
        # across its alternatives (``torch.arange(n, device=x.device) - mean`` where ``mean`` was
        # made with ``device=x.device`` too).
        same = self._by_alternative(same)
        return replace(
            same,
            origin=same.origin if same.kind is Kind.HOST else origin,
            module=module,
            scalar=False,
            grad=False,
            batch=False,
        )

    def _by_alternative(self, value: Value) -> Value:
        """``value`` with each alternative tagged as one choice of a variable named by the
        alternatives' origins (the same tags each time it is asked, so that all it places follow
        it; named by the origins' places in the file, so that every run names them alike)."""
        if value.kind is not Kind.MAYBE:
            return value
        return choices_of("|".join(self.analysis.node_number(a.origin) for a in value.alternatives), value)
