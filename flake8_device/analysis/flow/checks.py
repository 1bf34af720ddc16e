"""The interpreter's checks that emit rule-specific events (attachments, optimizers, losses, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst

from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.flow.base import InterpreterBase
from flake8_device.analysis.flow.events import (
    AttachAfterMove,
    CollectiveOnHost,
    DeviceChoiceMismatch,
    GeneratorMismatch,
    HelperConstantsMeetAccel,
    IndexMismatch,
    Operand,
    OptimizerStateBeforeMove,
    SyncedLogOnHost,
    TransformBeforeMove,
    UnmovedLossOrMetric,
)
from flake8_device.analysis.flow.knowledge import TRANSFORM_NAME
from flake8_device.analysis.flow.syntax import (
    argument_at,
    compound_blocks,
    last_name,
    path_of,
    related_paths,
    root_path,
)
from flake8_device.analysis.flow.values import (
    ALWAYS,
    NEVER,
    UNKNOWN,
    Kind,
    Value,
    alternatives,
    placement_condition,
    tensorish,
)


class ChecksMixin(InterpreterBase):
    def _check_collective(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> None:
        positions, keywords = torch_api.DIST_COLLECTIVES[qualified]
        positional = [o for a, o in zip(node.args, arguments) if a.keyword is None and not a.star]
        chosen = [positional[i] for i in positions if i < len(positional)]
        chosen += [o for a, o in zip(node.args, arguments) if a.keyword is not None and a.keyword.value in keywords]
        for operand in chosen:
            value = operand.value
            # ``module is None`` too: ``x.cpu()`` of an unknown value is a tensor here (no module is reduced).
            if value.kind is Kind.HOST and value.module is not True and not value.batch:
                self._emit(CollectiveOnHost(node, operand, qualified, self.function), operand.expr)

    def _check_synced_log(self, node: cst.Call, method: str) -> None:
        """Lightning reduces a logged tensor where it is; a host tensor cannot be reduced over NCCL."""
        sync = patterns.keyword(node, "sync_dist")
        if sync is None or not (isinstance(sync.value, cst.Name) and sync.value.value == "True"):
            return
        index, keyword = (1, "value") if method == "log" else (0, "dictionary")
        given = patterns.keyword(node, keyword) or patterns.positional(node, index)
        if given is None:
            return
        logged = [given.value]
        if method == "log_dict" and isinstance(given.value, cst.Dict):
            logged = [e.value for e in given.value.elements if isinstance(e, cst.DictElement)]
        for expr in logged:
            value = self._value_of(expr)
            if value.kind is Kind.HOST and value.module is not True and not value.batch:
                self._emit(SyncedLogOnHost(node, Operand(expr, value)), expr)

    def _tracked_prefix(self, path: str) -> str | None:
        """The longest prefix of ``path`` the state knows (``model`` for ``model.backbone``)."""
        parts = path.split(".")
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            if prefix in self.state.env:
                return prefix
        return None

    def _owner_on_host(self, owner: str) -> bool:
        prefix = self._tracked_prefix(owner)
        value = self.state.env.get(prefix) if prefix is not None else None
        return value is not None and value.kind is Kind.HOST and value.module is True

    def _optimizer_state_loaded(self, node: cst.Call, base: cst.BaseExpression, receiver: Value) -> None:
        """``load_state_dict`` puts the state on the device the parameters are on right now."""
        path = path_of(base)
        optimizer = receiver.optimizer
        if path is None or optimizer is None:
            return
        if self._owner_on_host(optimizer.owner):
            loaded = replace(optimizer, built_by=node, line=self.statement)
        else:
            loaded = replace(optimizer, built_by=None, line=None)
        self.state.env[path] = replace(receiver, optimizer=loaded)

    def _check_optimizers(self, path: str, moved: Value, move_call: cst.Call) -> None:
        """A module moved to the accelerator leaves behind the host state its optimizers already built."""
        if moved.kind is not Kind.ACCEL:
            return
        for value in list(self.state.env.values()):
            optimizer = value.optimizer
            if optimizer is None or optimizer.built_by is None or not related_paths(optimizer.owner, path):
                continue
            adjacent = (
                optimizer.line is not None
                and self.statement is not None
                and self._adjacent(optimizer.line, self.statement)
            )
            self._emit(OptimizerStateBeforeMove(optimizer, move_call, self.statement, adjacent), optimizer.built_by)

    # -- losses and metrics holding host state (DEV302) -------------------------------------

    def _check_unmoved_state(self, node: cst.Call, holder: Value, tensors: list[Operand]) -> None:
        if not (
            holder.kind is Kind.HOST
            and holder.module is True
            and holder.stateful
            and holder.compares
            and isinstance(holder.origin, cst.Call)
        ):
            return
        argument = next((t for t in tensors if t.value.kind is Kind.ACCEL and not t.value.scalar), None)
        if argument is not None:
            holder_expr = patterns.receiver(node) if patterns.method_name(node) == "update" else node.func
            assert holder_expr is not None
            self._emit(UnmovedLossOrMetric(holder.origin, Operand(holder_expr, holder), argument, node), holder.origin)

    # -- random generators (DEV303) -----------------------------------------------------------

    def _random_target(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> tuple[Value, str] | None:
        """Where a random call given ``generator=`` draws, and what decided it; None when unknown."""
        if qualified in torch_api.HOST_GENERATOR_CONSUMERS:
            if not self.analysis.default_device_is_cpu:
                return None
            return Value(Kind.HOST, module=False), "its indices are drawn there"
        factory = qualified in torch_api.TENSOR_FACTORIES
        following = qualified in torch_api.RANDOM_FOLLOWING_INPUT or qualified in torch_api.LIKE_FACTORIES
        if not (factory or following):
            return None
        device = patterns.keyword(node, "device")
        if device is not None:
            placed = self._device_value(device.value, node, module=False)
            return (placed, f"`device={self.ctx.describe(device.value)}`") if placed is not None else None
        if following:
            first = argument_at(node, arguments, 0, "input", "tensor", "mean")
            if first is not None and tensorish(first.value):
                return first.value, f"it follows `{self.ctx.describe(first.expr)}`"
        if factory and self.analysis.default_device_is_cpu:
            return Value(Kind.HOST, module=False), "no `device=`"
        return None

    def _check_generator(self, node: cst.Call, arguments: list[Operand], target: Value, target_text: str) -> None:
        generator = argument_at(node, arguments, None, "generator")
        if generator is None or not generator.value.generator:
            return
        if {generator.value.kind, target.kind} == {Kind.HOST, Kind.ACCEL}:
            self._emit(GeneratorMismatch(node, generator, target, target_text), generator.expr)

    # -- indices and masks (DEV305) ------------------------------------------------------------

    def _check_index_operation(self, node: cst.Call, indexed: Operand, index: Operand, operation: str) -> None:
        """``gather``/``index_select``-style index arguments must be on the indexed tensor's device."""
        a, b = indexed.value, index.value
        if not (tensorish(a) and tensorish(b)) or {a.kind, b.kind} != {Kind.HOST, Kind.ACCEL}:
            return
        if b.kind is Kind.HOST and self._maybe_zero_dim(b):
            return
        self._emit(IndexMismatch(node, indexed, index, operation), index.expr)

    def _maybe_zero_dim(self, value: Value) -> bool:
        if value.scalar:
            return True
        origin = value.origin
        if isinstance(origin, cst.Call) and patterns.method_name(origin) in ("to", "cuda", "cpu"):
            origin = patterns.receiver(origin)
        if isinstance(origin, cst.Call):
            qualified = self.symbols.qualify(origin.func)
            return qualified in torch_api.TENSOR_FACTORIES and patterns.maybe_zero_dim_factory(origin, qualified)
        return False

    # -- device choices (DEV306) -----------------------------------------------------------------

    def _check_device_choice(self, node: cst.Call, callee: Value, arguments: list[Operand]) -> None:
        model_condition = placement_condition(callee, module=True)
        if model_condition is None or (callee.guard is not None and model_condition == ALWAYS):
            # (Moved along one path only, ``if args.device == "gpu": model.cuda()``: the device was
            # chosen by that branch's test, whose link to the input's condition is not known here.)
            return
        for argument in arguments:
            condition = placement_condition(argument.value, module=False)
            if condition is None or condition == model_condition:
                continue
            if {condition, model_condition} <= {ALWAYS, NEVER}:
                continue  # no device choice involved: the other DEV2xx rules cover these
            if model_condition == NEVER and argument.value.kind is Kind.ACCEL:
                continue  # a model never moved meets a moved input: DEV201 reports it
            self._emit(DeviceChoiceMismatch(node, Operand(node.func, callee), argument), argument.expr)
            return

    def _check_helper(self, node: cst.Call, holder: Value, method: str, arguments: list[Operand]) -> None:
        helper = self.analysis.helpers.get(holder.instance_of or "")
        info = helper.methods.get(method) if helper is not None else None
        if helper is None or info is None or any(a.star for a in node.args):
            return
        positional = [o for o, a in zip(arguments, node.args) if a.keyword is None]
        keywords = {a.keyword.value: o for o, a in zip(arguments, node.args) if a.keyword is not None}
        for index, parameter in enumerate(info.parameters):
            operand = positional[index] if index < len(positional) else keywords.get(parameter)
            if operand is None or parameter not in info.meetings:
                continue
            value = operand.value
            if value.kind is Kind.ACCEL and tensorish(value) and not self._maybe_zero_dim(value):
                constants = info.meetings[parameter]
                holder_expr = patterns.receiver(node) if method != "__call__" else node.func
                assert holder_expr is not None
                event = HelperConstantsMeetAccel(
                    node, Operand(holder_expr, holder), operand, helper.name, method, constants
                )
                self._emit(event, operand.expr)
                return

    # -- moves ----------------------------------------------------------------------------

    def _moved(self, path: str) -> None:
        """A move of ``path`` settles attachments made to it (or to its attributes) before."""
        for owner in list(self.state.pending):
            kept = tuple(e for e in self.state.pending[owner] if not (owner == path or e.target == path))
            if kept:
                self.state.pending[owner] = kept
            else:
                del self.state.pending[owner]

    # -- attachments after a move (DEV101) ----------------------------------------------------

    def _check_attach(
        self, target: cst.BaseAssignTargetExpression, value_node: cst.BaseExpression, value: Value
    ) -> None:
        if not isinstance(target, (cst.Attribute, cst.Subscript)):
            return
        self._attach_call(target, value_node, value)

    def _attach_call(
        self, owner_expr: cst.BaseExpression, value_node: cst.BaseExpression, value: Value, method: str = ""
    ) -> None:
        root = root_path(owner_expr)
        if root is None:
            return
        known = self.state.env.get(root)
        # The owner on the device along some path; what is attached on the host along every path.
        owner_value = next((a for a in alternatives(known) if a.kind is Kind.ACCEL), None) if known else None
        if owner_value is None or owner_value.module is False:
            return
        made = alternatives(value)
        if not all(v.kind is Kind.HOST and not v.batch and v.module is not None for v in made):
            return
        value = made[0]
        target = self.ctx.code_for(owner_expr)
        definite = known is not None and known.kind is Kind.ACCEL
        event = AttachAfterMove(root, owner_value, value_node, target, value, owner_expr, definite)
        if self.record:
            self.state.pending[root] = self.state.pending.get(root, ()) + (event,)

    def _use(self, node: cst.BaseExpression) -> None:
        """A module used (called, passed on, returned) settles its pending attachments as bugs."""
        path = path_of(node)
        if path is None:
            return
        root = path.split(".")[0]
        for owner in (path, root):
            for event in self.state.pending.pop(owner, ()):
                self._emit(event, event.attached)

    def _flush_pending(self) -> None:
        for events in self.state.pending.values():
            for event in events:
                self._emit(event, event.attached)
        self.state.pending = {}

    # -- batch transforms before the move (DEV206) ------------------------------------------------

    def _check_transform_then_move(
        self,
        target: cst.BaseAssignTargetExpression,
        value_node: cst.BaseExpression,
        value: Value,
        line: cst.SimpleStatementLine,
    ) -> None:
        if self.loop_depth == 0:
            return
        path = path_of(target)
        if path is None:
            return
        transformed = self.state.transformed
        if isinstance(value_node, cst.Call):
            if patterns.method_name(value_node) in ("to", "cuda") and value.kind is Kind.ACCEL:
                base = patterns.receiver(value_node)
                earlier = transformed.get(path)
                if earlier is not None and base is not None and path_of(base) == path:
                    statement, call, transform = earlier
                    adjacent = self._adjacent(statement, line)
                    self._emit(TransformBeforeMove(statement, line, path, adjacent, call, transform), call)
                transformed.pop(path, None)
                return
            callee = self._value_of(value_node.func)
            name = last_name(value_node.func) or ""
            first = patterns.positional(value_node, 0)
            is_transform = (
                callee.transform
                or bool(TRANSFORM_NAME.search(name))
                or (callee.kind is Kind.HOST and callee.module is True and callee.stateful)
            )
            if is_transform and first is not None:
                source = (
                    self._value_of(first.value) if path_of(first.value) != path else self.state.env.get(path, UNKNOWN)
                )
                if source.kind is Kind.HOST and source.module is not True and path_of(first.value) == path:
                    transformed[path] = (line, value_node, callee)
                    return
        transformed.pop(path, None)

    def _adjacent(self, first: cst.SimpleStatementLine, second: cst.SimpleStatementLine) -> bool:
        body = self._enclosing_body(first)
        if body is None:
            return False
        statements = list(body)
        return any(a is first and b is second for a, b in zip(statements, statements[1:]))

    def _enclosing_body(self, statement: cst.BaseStatement) -> Sequence[cst.BaseStatement] | None:
        stack: list[Sequence[cst.BaseStatement]] = [self.ctx.module.body]
        while stack:
            body = stack.pop()
            for item in body:
                if item is statement:
                    return body
                if isinstance(item, cst.BaseCompoundStatement):
                    stack.extend(compound_blocks(item))
        return None
