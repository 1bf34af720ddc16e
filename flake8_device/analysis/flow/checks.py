"""The interpreter's checks that emit rule-specific events (attachments, optimizers, losses, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    HostMeetsInput,
    IndexMismatch,
    Operand,
    OptimizerStateBeforeMove,
    ParamGroupTensorsLoadedOnHost,
    SyncedLogOnHost,
    TransformBeforeMove,
    UnmovedLossOrMetric,
)
from flake8_device.analysis.flow.knowledge import TRANSFORM_NAME, names_cpu
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
    OptimizerState,
    Value,
    alternatives,
    leaves,
    map_leaves,
    placement_condition,
    tensorish,
)


def _backend_guard(guard: str | None) -> bool:
    """A path taken under a test of the backend (``if dist.get_backend() == "gloo":``) may be the
    CPU backend's own."""
    return guard is not None and ("backend" in guard or "gloo" in guard)


def _cpu_backend_branch(taken: str) -> bool:
    """A branch a value took that names the CPU backend, or the side of a test of NCCL where it
    failed (``if dist.get_backend() == "nccl": x = x.cuda()``, not taken)."""
    negated = taken.startswith("not ")
    return ("nccl" in taken and negated) or ("gloo" in taken and not negated)


class ChecksMixin(InterpreterBase):
    def _check_collective(self, node: cst.Call, qualified: str, arguments: list[Operand]) -> None:
        positions, keywords = torch_api.DIST_COLLECTIVES[qualified]
        positional = [o for a, o in zip(node.args, arguments) if a.keyword is None and not a.star]
        chosen = [positional[i] for i in positions if i < len(positional)]
        chosen += [o for a, o in zip(node.args, arguments) if a.keyword is not None and a.keyword.value in keywords]
        for operand in chosen:
            # Along some path (``total = mask.sum()`` in one arm, ``torch.tensor(n)`` in the other).
            # ``module is None`` too: ``x.cpu()`` of an unknown value is a tensor here (no module is reduced).
            host = next(
                (
                    v
                    for v in alternatives(operand.value)
                    if v.kind is Kind.HOST
                    and v.module is not True
                    and not v.batch
                    and not _backend_guard(v.guard)
                    and not any(_cpu_backend_branch(which) for _, which in v.placed_by)
                ),
                None,
            )
            if host is not None:
                self._emit(CollectiveOnHost(node, Operand(operand.expr, host), qualified, self.function), operand.expr)

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
        """The module at ``owner`` is on the host along some path."""
        prefix = self._tracked_prefix(owner)
        value = self.state.env.get(prefix) if prefix is not None else None
        return value is not None and any(a.kind is Kind.HOST and a.module is True for a in alternatives(value))

    def _optimizer_state_loaded(self, node: cst.Call, base: cst.BaseExpression, receiver: Value) -> None:
        """``load_state_dict`` puts the state on the device the parameters are on right now."""
        path = path_of(base)
        optimizer = receiver.optimizer
        if path is None or optimizer is None:
            return
        if self._owner_on_host(optimizer.owner):
            loaded = replace(optimizer, built_by=node, line=self.statement, loaded=True, pending=None)
        else:
            loaded = replace(optimizer, built_by=None, line=None, pending=None)
            if optimizer.built_by is not None:
                # Reloaded after the move (``opt.load_state_dict(opt.state_dict())``): the state
                # follows the parameters, and the move this function made left nothing behind.
                self.analysis.retract(OptimizerStateBeforeMove, optimizer.built_by, self.function)
            keys = self.analysis.param_group_tensors(receiver.class_name) if receiver.class_name else ()
            if keys and node.args and self._mapped_to_the_cpu(node.args[0].value):
                event = ParamGroupTensorsLoadedOnHost(node, Operand(base, receiver), receiver.class_name or "", keys)
                self._emit(event, node)
        self.state.env[path] = replace(receiver, optimizer=loaded)

    def _mapped_to_the_cpu(self, node: cst.BaseExpression) -> bool:
        """A state read by ``torch.load(..., map_location="cpu")`` (directly, or an item of a name
        bound to one in this scope)."""
        while isinstance(node, cst.Subscript):
            node = node.value
        if isinstance(node, cst.Name):
            scope = self.function if self.function is not None else self.ctx.module
            bound = [
                small.value
                for small in self.ctx.scope_nodes(scope)
                if isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value == node.value
            ]
            if len(bound) != 1:
                return False
            node = bound[0]
        if not isinstance(node, cst.Call) or self.symbols.qualify(node.func) != "torch.load":
            return False
        location = patterns.keyword(node, "map_location")
        where = location.value if location is not None else None
        if isinstance(where, cst.Call) and self.symbols.qualify(where.func) == "torch.device" and where.args:
            where = where.args[0].value
        if isinstance(where, cst.Lambda):  # ``lambda storage, loc: storage``: left where it was read, the CPU
            params = where.params.params
            return bool(params) and isinstance(where.body, cst.Name) and where.body.value == params[0].name.value
        return names_cpu(patterns.string_value(where) if where is not None else None)

    def _settle_optimizers(self, value: Value, rebase: Callable[[str], str | None]) -> Value:
        """Optimizers a call gives back (or leaves in attributes), in the caller's terms: their
        owner's path here (``rebase`` maps the callee's; None: no path here), and an eager one built
        over parameters that are on the host here has built its state there."""
        if not any(leaf.optimizer is not None for leaf in leaves(value)):
            return value

        def settle(leaf: Value) -> Value:
            optimizer = leaf.optimizer
            if optimizer is None:
                return leaf
            owner = rebase(optimizer.owner)
            if owner is None:
                return UNKNOWN
            state = replace(optimizer, owner=owner)
            if optimizer.pending is not None and self._owner_on_host(owner):
                state = OptimizerState(owner, optimizer.pending, self.statement)
            elif not self.summary_mode:
                state = replace(state, pending=None)
            return replace(leaf, optimizer=state)

        return map_leaves(value, settle)

    def _check_optimizers(self, path: str, moved: Value, move_call: cst.Call) -> None:
        """A module moved to the accelerator leaves behind the host state its optimizers already built
        (held in names, attributes, or containers: ``self.optimizers = [opt]``)."""
        if moved.kind is not Kind.ACCEL:
            return
        held = [leaf for value in list(self.state.env.values()) for leaf in leaves(value) if leaf.optimizer]
        for value in held:
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
        # (Only a 0-dim tensor on the *host* mixes with device tensors: a device one may not meet the weights.)
        argument = next(
            (
                Operand(t.expr, v)
                for t in tensors
                for v in alternatives(t.value)
                if v.kind is Kind.ACCEL and tensorish(v)
            ),
            None,
        )
        if argument is not None:
            holder_expr = patterns.receiver(node) if patterns.method_name(node) == "update" else node.func
            assert holder_expr is not None
            self._emit(UnmovedLossOrMetric(holder.origin, Operand(holder_expr, holder), argument, node), holder.origin)

    # -- random generators (DEV303) -----------------------------------------------------------

    def _random_target(
        self, node: cst.Call, qualified: str, arguments: list[Operand]
    ) -> tuple[Value, str, bool] | None:
        """Where a random call given ``generator=`` draws, what decided it, and whether that is the
        default device; None when unknown."""
        if qualified in torch_api.HOST_GENERATOR_CONSUMERS:
            # A sampler draws its permutation with ``torch.randperm(n, generator=g)``: on the default device.
            setting = self.analysis.default_device_setting
            if setting is not None:
                text = f"`{setting.text}` (line {setting.line}) makes its `randperm` run there"
                return Value(Kind.ACCEL, module=False, device=None), text, True
            if not self.analysis.default_device_is_cpu:
                return None
            return Value(Kind.HOST, module=False), "its indices are drawn there", False
        factory = qualified in torch_api.TENSOR_FACTORIES
        following = qualified in torch_api.RANDOM_FOLLOWING_INPUT or qualified in torch_api.LIKE_FACTORIES
        if not (factory or following):
            return None
        device = patterns.keyword(node, "device")
        if device is not None:
            placed = self._device_value(device.value, node, module=False)
            return (placed, f"`device={self.ctx.describe(device.value)}`", False) if placed is not None else None
        if following:
            first = argument_at(node, arguments, 0, "input", "tensor", "mean")
            if first is not None and tensorish(first.value):
                return first.value, f"it follows `{self.ctx.describe(first.expr)}`", False
        if factory and self.analysis.default_device_is_cpu:
            return Value(Kind.HOST, module=False), "no `device=`", False
        setting = self.analysis.default_device_setting
        if factory and setting is not None:
            text = f"no `device=`: `{setting.text}` (line {setting.line}) makes it allocate there"
            return Value(Kind.ACCEL, module=False), text, True
        return None

    def _check_generator(
        self, node: cst.Call, arguments: list[Operand], target: Value, target_text: str, *, by_default: bool = False
    ) -> None:
        """``by_default``: the target is where the default device is (a setting of the file's)."""
        generator = argument_at(node, arguments, None, "generator")
        if generator is None:
            return
        for value in alternatives(generator.value):  # ``generator=None`` along another path
            if value.generator and {value.kind, target.kind} == {Kind.HOST, Kind.ACCEL}:
                event = GeneratorMismatch(node, Operand(generator.expr, value), target, target_text, by_default)
                self._emit(event, generator.expr)
                return

    # -- indices and masks (DEV305) ------------------------------------------------------------

    def _check_index_operation(self, node: cst.Call, indexed: Operand, index: Operand, operation: str) -> None:
        """``gather``/``index_select``-style index arguments must be on the indexed tensor's device."""
        a, b = indexed.value, index.value
        if a.kind is Kind.MAYBE and b.kind is Kind.HOST:
            # Indexed along some path with what is where the inputs are: that path's finding.
            a = next((leaf for leaf in alternatives(a) if leaf.kind is Kind.INPUT and tensorish(leaf)), a)
        if not (tensorish(a) and tensorish(b)):
            return
        if (
            a.kind is Kind.INPUT
            and b.kind is Kind.HOST
            and b.condition is None
            and isinstance(b.origin, cst.Call)
            and not self._maybe_zero_dim(b)
        ):
            # A host index into what is where the inputs (or the module) are: made without `device=`.
            self._emit(HostMeetsInput(index, indexed, operation, self.function, self.building_module), b.origin)
            return
        if {a.kind, b.kind} != {Kind.HOST, Kind.ACCEL}:
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
            if qualified in torch_api.DATA_CONVERSIONS and self._of_a_list(origin):
                return False  # ``torch.tensor(keep)`` of a list the function builds is not 0-dim
            return qualified in torch_api.TENSOR_FACTORIES and patterns.maybe_zero_dim_factory(origin, qualified)
        return False

    def _of_a_list(self, call: cst.Call) -> bool:
        """``torch.tensor(keep)`` where every binding of ``keep`` in the function is a list (or
        tuple) written out or built by a comprehension."""
        first = patterns.positional(call, 0)
        if first is None or not isinstance(first.value, cst.Name) or self.function is None:
            return False
        name = first.value.value
        values = [
            node.value
            for node in self.ctx.scope_nodes(self.function)
            if isinstance(node, cst.Assign)
            and any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets)
        ]
        return bool(values) and all(isinstance(v, (cst.List, cst.Tuple, cst.ListComp)) for v in values)

    # -- device choices (DEV306) -----------------------------------------------------------------

    def _check_device_choice(self, node: cst.Call, callee: Value, arguments: list[Operand]) -> None:
        if callee.scatters_inputs:
            return  # DataParallel / DistributedDataParallel move their inputs themselves
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
        self,
        owner_expr: cst.BaseExpression,
        value_node: cst.BaseExpression,
        value: Value,
        method: str = "",
        *,
        made_in: tuple[str, str] | None = None,
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
        if made_in is not None:
            event = replace(event, made_in=made_in[0], attribute=made_in[1])
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
                on_host = all(a.kind is Kind.HOST and a.module is not True for a in alternatives(source))
                if on_host and path_of(first.value) == path:  # (along every path)
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
