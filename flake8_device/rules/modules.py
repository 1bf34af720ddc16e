"""DEV1xx: module placement — state that does not follow ``module.to(device)``."""

from __future__ import annotations

import ast

import libcst as cst

from flake8_device import fixes
from flake8_device import markers as marker
from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.flow import Kind, Value, events
from flake8_device.analysis.flow.syntax import descendants
from flake8_device.analysis.flow.values import alternatives, carries_tensor, leaves, tensorish
from flake8_device.analysis.symbols import Symbols, ast_dotted_name, top_level_definition
from flake8_device.analysis.types import RESERVED_KEYS
from flake8_device.context import Place
from flake8_device.model import Fix, FixSafety, ReplaceNode
from flake8_device.rule import Rule


class SubmoduleAssignedAfterMove(Rule):
    """Submodule or parameter attached after the model was moved.

    ## What it does
    Finds a module that was moved (`model.to(device)`, `model =
    model.to(device)`, `model.cuda()`; a move in both arms of an `if`/`else`
    counts) and then given a new submodule, parameter, buffer or tensor that is
    not moved: `model.head = nn.Linear(...)`, `model.classifier[6] = ...`,
    `setattr(model, name, ...)`, `model.add_module(...)`,
    `model.blocks.append(...)`, `model.register_buffer(...)`,
    `model.w = nn.Parameter(...)`, or a method of the module's own class that
    assigns a new layer (`model.reset_classifier(n)` setting `self.head =
    nn.Linear(...)`); unless the module is moved again before it is used.

    ## Why is this bad?
    `.to()` moves what the module holds at that moment. Whatever is attached
    afterwards stays on the CPU, and the first forward fails with `Expected all
    tensors to be on the same device` (or, for an optimizer built from
    `model.parameters()`, the new layer trains on the wrong device).

    ## Example
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    model.to(device)
    model.out_head = nn.Linear(8, 2)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    model.to(device)
    model.out_head = nn.Linear(8, 2).to(device)
    ```

    ## Fix safety
    Safe: the fix moves a new submodule with the same expression the module
    was moved with, and a tensor to the module's device only (`Module.to`
    casts floating-point state only; `Tensor.to(device, dtype=...)` would cast
    indices too). A parameter stays a parameter: for `nn.Parameter(t)` the
    tensor inside is moved, and for a name bound to `nn.Parameter(t)` the
    tensor is moved where the parameter is made. The fix is withheld (shown,
    with the reason) when the device name was rebound since the module's move
    or is not bound where the fix runs, when a name may hold a parameter made
    in several places, when what is attached is not known to be a tensor, and
    when a method of the module makes it (move the module again after the call);
    when the earlier moves disagree (different devices in the two branches) no
    fix is offered.
    """

    code = "DEV101"
    uses_flow = True
    name = "submodule-assigned-after-move"
    message = "`{attached}` is attached to `{owner}`{how} after `{owner}` was moved{at}, so it stays on the CPU"
    fix_title = "Move it too: `{move}`"
    fix_safety = FixSafety.SAFE
    markers = (
        r"(?:\.\w+|\w\[[^\]\n]*\])\s*=[^=]|setattr\s*\("
        r"|\.(?:add_module|register_module|register_parameter|register_buffer|append|insert)\s*\(",
        # What is attached is made in the unit: a module, a parameter, a host tensor.
        (marker.MODULE_CONSTRUCTOR_CALL, marker.HOST_SOURCE, r"Parameter\s*\("),
    )
    # The move may be in another function (a helper, the caller, an earlier method).
    file_markers = (marker.MOVE_CALL,)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.AttachAfterMove):
            attached = event.attached
            fix = self._fix(event) if event.owner_value.move is not None else None
            move = event.owner_value.origin
            described, how = self.ctx.describe(attached), ""
            if event.made_in is not None:
                # A method of the module's class that makes a new layer (``reset_classifier``).
                described, how = f"{event.owner}.{event.attribute}", f" by `{event.made_in}(...)`"
            self.report(
                attached,
                fix=fix,
                related=[(move, f"`{event.owner}` is moved here")],
                attached=described,
                owner=event.owner,
                how=how,
                at=Place(move),
            )

    def _fix(self, event: events.AttachAfterMove) -> Fix:
        """Move what is attached like its owner: a module with the owner's whole move (``Module.to``
        casts floating-point state only), a tensor to the owner's device only, a parameter's
        tensor where the parameter is made (so it stays the same, registered, parameter)."""
        attached, owner = event.attached, event.owner_value
        if not event.definite:
            return self._withheld(f"`{event.owner}` is moved along some paths only: moving this on all is no repair")
        if event.made_in is not None:
            again = f"{event.owner}{owner.move}" if owner.move else f"{event.owner}.to(...)"
            reason = f"the layer is made inside `{event.made_in}`, which does not return it: call `{again}` after it"
            return self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, move=again)
        if event.value.module is True:
            move = owner.move or ""
            return self.make_fix(
                ReplaceNode(attached, *patterns.appended(attached, move)),
                source=owner.origin,
                subject=event.target_node,
                move=move,
            )
        device = fixes.device_move(owner.origin)
        if device is None:
            return self._withheld("the move of the module names no device to copy")
        target, reason = self._tensor_to_move(attached)
        if target is None:
            return self._withheld(reason or "what is attached is not known to be a tensor")
        return self.make_fix(
            fixes.moved(target, *device.parts),
            source=device.source,
            subject=event.target_node,
            move=device.text,
        )

    def _withheld(self, reason: str) -> Fix:
        return self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, move=".to(...)")

    def _tensor_to_move(self, attached: cst.BaseExpression) -> tuple[cst.BaseExpression | None, str | None]:
        """The plain tensor to move for ``attached``, or why there is none that is safe to move."""
        symbols = self.ctx.symbols
        if isinstance(attached, cst.Call) and symbols.qualify(attached.func) in torch_api.PARAMETER_CLASSES:
            first = patterns.positional(attached, 0)
            return (first.value, None) if first is not None else (None, "the parameter holds no tensor to move")
        if patterns.factory_expression(attached, symbols, host_only=False) is not None:
            return attached, None
        types, point = self.ctx.types, self.ctx.proof.point(attached)
        if not isinstance(attached, cst.Name) or types is None or point is None:
            return None, f"`{self.ctx.describe(attached)}` is not known to be a plain tensor"
        made = types.parameter_values(attached.value, point)
        if made:
            definitions = types.definitions(attached.value, point)
            inner = self.ctx.proof.node_at(made[0].args[0], cst.CSTNode) if made[0].args else None
            if len(definitions) == 1 and inner is not None and isinstance(inner, cst.BaseExpression):
                return inner, None  # move the tensor where the parameter is made
            return None, f"`{attached.value}` is an `nn.Parameter`: `.to()` would make it a plain tensor"
        if types.is_tensor(attached.value, point):
            return attached, None
        return None, f"`{attached.value}` is not known to be a plain tensor"


class TensorAttributeNotRegistered(Rule):
    """Plain tensor attribute in a module.

    ## What it does
    Finds tensors a module keeps in plain attributes instead of buffers or
    parameters, where the module then uses them with its inputs or its
    parameters (or returns them from `forward`): made in `__init__` or in a
    helper it calls (`self.mask = torch.tril(torch.ones(n, n))`), reset by
    another method (`init_hidden`, `reset`), or cached by `forward` from one
    call to the next (`self.cache = ...`, rebuilt only when the shape changes).
    A tensor moved where it is used (`self.mask.to(x.device)`,
    `.type_as(x)`), one overwritten before every read, a 0-dim constant, and
    the attributes of classes that move them themselves (`_apply`, `to`) are
    not reported.

    ## Why is this bad?
    `module.to(device)`, `.cuda()` and `.half()` only move registered state.
    A plain tensor attribute stays where it was made (usually the CPU, or
    wherever the inputs of the call that cached it were), and the first
    `forward` after the move fails with `Expected all tensors to be on the same
    device`. It is also missing from `state_dict()`.

    ## Example
    ```python
    import torch
    from torch import nn


    class CausalMask(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.mask = torch.tril(torch.ones(n, n))

        def forward(self, scores):
            return scores.masked_fill(self.mask == 0, float("-inf"))
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn


    class CausalMask(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)

        def forward(self, scores):
            return scores.masked_fill(self.mask == 0, float("-inf"))
    ```

    ## Fix safety
    Safe. The fix registers the tensor with `persistent=False`, so
    `state_dict()` and checkpoints stay exactly as they were; the tensor now
    follows `.to()`, `.cuda()` and (for floating-point tensors) dtype casts such
    as `.half()`, like every other buffer. A private `self.__mask` is
    registered under the name Python stores it as (`_Net__mask`). A cache
    whose `__init__` sets a `None` placeholder is registered there as a `None`
    buffer, which the later assignments fill. The fix is only offered where it
    is valid: after `super().__init__()`, for an attribute assigned once in
    `__init__`; it is withheld (shown, with the reason) where the class or a
    base class of the file already binds the name in its body
    (`register_buffer` refuses it) or where another method stores something
    else than a tensor there (a buffer cannot hold a list). A tensor made with
    `requires_grad=True` is trainable state: the fix makes it an
    `nn.Parameter` instead, which is unsafe (it joins `parameters()` and
    `state_dict()`). An attribute first assigned outside `__init__` gets no
    fix.
    """

    code = "DEV102"
    uses_flow = True
    name = "tensor-attribute-not-registered"
    message = (
        "Tensor attribute `{target}` is not a buffer, so it will not follow the module's `.to()`: {evidence}{at}"
    )
    fix_title = "Register `{target}` {how}"
    fix_safety = FixSafety.SAFE
    # A method assigning an attribute of ``self`` (where the tensor is kept); its whole class is
    # read, since any method may use it.
    markers = (r"self\.\w+\s*(?::[^=\n]+)?=(?!=)",)
    needs_whole_class = True

    @classmethod
    def wants_unit(cls, unit, contains):  # type: ignore[no-untyped-def]
        return unit.kind in ("method", "class")

    def visit_Module(self, node: cst.Module) -> None:
        flow = self.ctx.flow
        done: set[tuple[str, str]] = set()
        for event in flow.events_of(events.PlainAttributeMeets):
            if (event.owner, event.attribute) in done:
                continue
            done.add((event.owner, event.attribute))
            stores = flow.stores(event.owner, event.attribute)
            in_init = [s for s in stores if s.method.name.value == "__init__"]
            # (Not a store of an ``nn.Parameter``: the plain tensor is the one that stays behind.)
            made = [s for s in in_init if carries_tensor(s.value) and not _registered(s.value)]
            # Where the tensor is made in the construction; else its placeholder there (a cache
            # filled later); else where another method first stores it.
            chosen = made or in_init[:1] or [s for s in stores if carries_tensor(s.value)][:1]
            if event.partner is not None:
                partner = self.ctx.describe(event.partner.expr)
                evidence = f"it meets `{partner}` in {event.operation}"
                meeting, there = event.partner.expr, f"it meets `{partner}` here, in {event.operation}"
            else:
                evidence = f"`forward` returns it (`{self.ctx.describe(event.held.expr)}`)"
                meeting, there = event.held.expr, "`forward` returns it here"
            for store in chosen:
                target = self.ctx.describe(store.target)
                fix = self._store_fix(store, stores, target) if store.method.name.value == "__init__" else None
                self.report(
                    store.target,
                    fix=fix,
                    related=[(meeting, there)],
                    target=target,
                    evidence=evidence,
                    at=Place(meeting),
                )

    def _store_fix(self, store: events.AttributeStore, stores: list[events.AttributeStore], target: str) -> Fix | None:
        owner = self.ctx.flow.program.owner(store.method)
        info = self.ctx.classes.get(owner.node.name.value) if owner is not None else None
        if owner is None or info is None:
            return None
        assignment = next(
            (a for a in patterns.attribute_assignments(store.method) if a.target is store.target), None
        )
        if (
            assignment is None
            or not assignment.after_super_init
            or not isinstance(assignment.statement, cst.Assign)
            or info.init_assignment_count.get(assignment.attr, 0) != 1
        ):
            return None
        # What the other methods store there, whatever their callers give them (their summaries): a
        # buffer repairs a tensor made where the module or its inputs are, not a new CPU tensor.
        flow = self.ctx.flow
        later = {s.method: None for s in stores if s.method.name.value != "__init__"}
        values: list[tuple[cst.FunctionDef, Value]] = []
        for method in later:
            summary = flow.summary(method, seeded=False)
            value = summary.attributes.get(assignment.attr) if summary is not None else None
            values.append((method, value if value is not None else Value()))
        on_host = next((m for m, v in values if any(leaf.kind is Kind.HOST for leaf in leaves(v))), None)
        withheld = None
        if on_host is not None:
            withheld = (
                f"`{target}` is set to a new CPU tensor in `{on_host.name.value}`, which a buffer does not "
                "move either: make it where the module is"
            )
        elif any(leaf.registers is not False for leaf in leaves(store.value)):
            withheld = (
                f"`{target}` is an `nn.Parameter` along some paths, which a buffer would stop training: "
                "make it a parameter on every path, or register the plain tensor only"
            )
        elif self.ctx.symbols.module_by_evidence(owner.node.name.value):
            withheld = (
                f"`{owner.node.name.value}` is taken for a module by its `forward`; its base class is not "
                "seen here, so `register_buffer` cannot be proven to exist"
            )
        if withheld is not None:
            how = "with `self.register_buffer(..., persistent=False)`"
            return self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=withheld, target=target, how=how)
        proven = bool(values) and all(_buffer_value(v) for _, v in values)
        return self._fix(owner.node.name.value, assignment, tensors_stored=proven)

    def _fix(self, class_name: str, assignment: patterns.AttributeAssignment, *, tensors_stored: bool) -> Fix:
        """A buffer under the name Python stores the attribute as; a parameter for a tensor that
        requires grad (trainable state); nothing where the class already binds the name, or
        stores something else there later."""
        attr, value, self_name = assignment.attr, assignment.value, assignment.self_name
        target = f"{self_name}.{attr}"
        if _requires_grad(value):
            parameter, imports = self.ctx.spelling("torch.nn.Parameter")
            return self.make_fix(
                ReplaceNode(value, f"{parameter}(", value, ")"),
                *imports,
                safety=FixSafety.UNSAFE,
                reason="it requires grad, so it is trainable state: as a parameter it joins `parameters()` "
                "and `state_dict()`",
                target=target,
                how=f"as an `{parameter}`",
            )
        how = "with `self.register_buffer(..., persistent=False)`"
        types = self.ctx.types
        declared = types.class_declares(class_name, attr) if types is not None else None
        if declared is not None:
            reason = f"`{declared}` already binds `{attr}` in its class body: `register_buffer` would refuse it"
            return self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, target=target, how=how)
        # (Unless the flow shows every later assignment stores a tensor or None.)
        other = types.non_tensor_assignment(class_name, attr) if types is not None and not tensors_stored else None
        if other is not None:
            reason = f"the class also stores `{ast.unparse(other)}` in `{attr}`, which a buffer cannot hold"
            return self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, target=target, how=how)
        name = fixes.mangled(attr, class_name)
        return self.make_fix(
            ReplaceNode(assignment.statement, f'{self_name}.register_buffer("{name}", ', value, ", persistent=False)"),
            target=target,
            how=how,
        )


class ModuleListNotRegistered(Rule):
    """Python list or dict of modules in a module.

    ## What it does
    Finds submodules or parameters kept in a plain Python `list`, `tuple` or
    `dict` attribute of a module (`self.layers = [nn.Linear(d, d) for _ in
    range(n)]`).

    ## Why is this bad?
    `nn.Module` only registers modules and parameters assigned directly or
    held by `nn.ModuleList` / `nn.ModuleDict` / `nn.ParameterList` /
    `nn.ParameterDict`. Modules in a plain list are not moved by
    `model.to(device)` (so the first forward on the accelerator fails), not
    returned by `model.parameters()` (so the optimizer never trains them), and
    not saved in `state_dict()`.

    ## Example
    ```python
    from torch import nn


    class Tower(nn.Module):
        def __init__(self, dim, depth):
            super().__init__()
            self.layers = [nn.Linear(dim, dim) for _ in range(depth)]

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x
    ```

    ## Use instead
    ```python
    from torch import nn


    class Tower(nn.Module):
        def __init__(self, dim, depth):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x
    ```

    ## Fix safety
    Unsafe. Wrapping the container registers its contents, which is the point,
    but it changes `parameters()`, `state_dict()` keys (old checkpoints no
    longer load without renaming) and what the optimizer trains. The fix is
    shown but not applied where the container is used in a way the wrapper
    does not support (`.index`, `.get`, `[x] + layers`, passed to a function
    expecting a `list`), and for a `dict` whose keys are not string literals
    that `nn.ModuleDict` accepts (no dots, not one of its own attributes such as
    `"train"` or `"eval"`).
    """

    code = "DEV103"
    name = "module-list-not-registered"
    message = "`{target}` keeps {what} in a plain Python {container}: they are not moved, trained or saved"
    fix_title = "Wrap the {container} in `{wrapper}`"
    fix_safety = FixSafety.UNSAFE
    markers = (marker.ATTRIBUTE_SET_TO_CONTAINER, marker.ATTRIBUTE_SET_TO_CONTAINER_OF_MODULES)

    @classmethod
    def wants_unit(cls, unit, contains):  # type: ignore[no-untyped-def]
        return unit.kind in ("method", "class")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self.ctx.in_method_of_module():
            return
        owner = self.ctx.current_class
        assert owner is not None
        info = self.ctx.class_info(owner)
        if info is not None and info.registers_by_hand:
            return  # e.g. `for i, layer in enumerate(self.layers): self.add_module(str(i), layer)`
        for assignment in patterns.attribute_assignments(node):
            if info is not None and info.assignment_count.get(assignment.attr, 0) > 1:
                continue  # assigned again (often wrapped) elsewhere
            self._check(owner.name.value, assignment)

    def _elements(self, value: cst.BaseExpression) -> tuple[list[cst.BaseExpression], str] | None:
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in ("list", "tuple")
            and len(value.args) == 1
            and isinstance(value.args[0].value, (cst.GeneratorExp, cst.ListComp))
            and self.ctx.symbols.imports.get(value.func.value) is None
        ):
            return [value.args[0].value.elt], value.func.value
        if isinstance(value, (cst.List, cst.Tuple)):
            items = [e.value for e in value.elements if isinstance(e, cst.Element)]
            if len(items) != len(value.elements):
                return None
            return items, "list" if isinstance(value, cst.List) else "tuple"
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            return [value.elt], "list"
        if isinstance(value, cst.Dict):
            items = [e.value for e in value.elements if isinstance(e, cst.DictElement)]
            if len(items) != len(value.elements):
                return None
            return items, "dict"
        if isinstance(value, cst.DictComp):
            return [value.value], "dict"
        return None

    def _kind(self, element: cst.BaseExpression) -> str | None:
        if not isinstance(element, cst.Call):
            return None
        if self.ctx.symbols.is_module_constructor(element.func):
            return "module"
        if self.ctx.symbols.qualify(element.func) in torch_api.PARAMETER_CLASSES:
            return "parameter"
        return None

    def _holds_nothing(self, element: cst.BaseExpression) -> bool:
        """A torch.nn module with no parameters or buffers: a stateless layer, or a loss given no
        tensor (``nn.CrossEntropyLoss(reduction="none")``, not ``nn.CrossEntropyLoss(weights)``)."""
        if not isinstance(element, cst.Call):
            return False
        qualified = self.ctx.symbols.qualify(element.func) or ""
        if qualified in torch_api.STATELESS_NN_MODULES:
            return True
        given = [a for a in element.args if a.keyword is None or a.keyword.value in ("weight", "pos_weight")]
        return qualified.startswith("torch.nn.") and qualified.endswith("Loss") and not given

    @staticmethod
    def _container_parts(value: cst.BaseExpression) -> tuple[str | cst.CSTNode, ...]:
        """The argument for ``nn.ModuleList(...)``: tuples become lists, ``list(g)`` becomes ``g``."""
        if isinstance(value, cst.Call):
            return (value.args[0].value,)
        return ("[", value, "]") if isinstance(value, cst.Tuple) else (value,)

    def _check(self, owner: str, assignment: patterns.AttributeAssignment) -> None:
        statement, value, attr = assignment.statement, assignment.value, assignment.attr
        target = f"{assignment.self_name}.{attr}"
        found = self._elements(value)
        if found is None:
            return
        elements, container = found
        kinds = {self._kind(e) for e in elements}
        if not elements or len(kinds) != 1 or None in kinds:
            return
        kind = kinds.pop()
        if kind == "module" and all(self._holds_nothing(e) for e in elements):
            return  # (``{"ce": nn.CrossEntropyLoss()}``: nothing to move, train or save)
        base = ("Module" if kind == "module" else "Parameter") + ("Dict" if container == "dict" else "List")
        wrapper, imports = self.ctx.spelling(f"torch.nn.{base}")
        reason = self._unfit(value, container, owner, attr, base)
        safety = FixSafety.DISPLAY_ONLY if reason is not None else None
        # The whole statement is rewritten so a parenthesised tuple loses its parentheses.
        if isinstance(statement, cst.Assign):
            head: tuple[str | cst.CSTNode, ...] = (statement.targets[0].target,)
        else:
            head = (statement.target, ": ", statement.annotation.annotation)
        fix = self.make_fix(
            ReplaceNode(statement, *head, f" = {wrapper}(", *self._container_parts(value), ")"),
            *imports,
            safety=safety,
            reason=reason,
            container=container,
            wrapper=wrapper,
        )
        what = "modules" if kind == "module" else "parameters"
        self.report(value, fix=fix, target=target, what=what, container=container)

    def _unfit(self, value: cst.BaseExpression, container: str, owner: str, attr: str, wrapper: str) -> str | None:
        """Why the wrapped container would not work where the plain one did, if it might not."""
        if container == "dict":
            bad = _bad_key(value)
            if bad is not None:
                return bad
        types = self.ctx.types
        if types is None or self.ctx.tree is None:
            return "its uses could not be read"
        uses = types.container_uses(self.ctx.tree, owner, attr, wrapper)
        return None if uses else uses.reason


def _buffer_value(value: Value) -> bool:
    """What a buffer may hold along every path: tensors, or None."""
    return all(
        (leaf.kind in (Kind.HOST, Kind.ACCEL, Kind.INPUT) and leaf.module is False and tensorish(leaf))
        or (leaf.kind is Kind.NEUTRAL and leaf.constant == "None")
        for leaf in alternatives(value)
    )


def _requires_grad(value: cst.BaseExpression) -> bool:
    """``torch.ones(n, requires_grad=True)`` or ``....requires_grad_()``: state meant to be trained."""
    node: cst.BaseExpression | None = value
    while isinstance(node, cst.Call):
        flag = patterns.keyword(node, "requires_grad")
        if flag is not None and isinstance(flag.value, cst.Name) and flag.value.value == "True":
            return True
        if patterns.method_name(node) == "requires_grad_" and not node.args:
            return True
        node = patterns.receiver(node)
    return False


def _bad_key(value: cst.BaseExpression) -> str | None:
    """Why a dict's keys cannot be ``nn.ModuleDict`` keys (which must be names that are not attributes)."""
    if not isinstance(value, cst.Dict):
        return "its keys are not known (`nn.ModuleDict` needs string keys)"
    for element in value.elements:
        key = patterns.string_value(element.key) if isinstance(element, cst.DictElement) else None
        if key is None:
            return "its keys are not all string literals (`nn.ModuleDict` needs string keys)"
        if not key or "." in key or key in RESERVED_KEYS:
            return f'`nn.ModuleDict` refuses the key "{key}" (empty, dotted, or an attribute it already has)'
    return None


class ModuleCreatedInForward(Rule):
    """A module built inside `forward`.

    ## What it does
    Finds layers with parameters or buffers (`nn.Linear`, `nn.Conv2d`,
    `nn.BatchNorm2d`, ..., or a module class of the file whose `__init__`
    builds such layers) constructed inside a module's `forward`, or in a
    method that `forward` calls on `self`, such as `nn.BatchNorm2d(c)(x)`.

    ## Why is this bad?
    A module built in `forward` is created on the CPU at every call, so on an
    accelerator the call fails with `Input type (torch.cuda.FloatTensor) and
    weight type (torch.FloatTensor) should be the same`. Even where it runs, its
    weights are fresh random values each step, never trained or saved.

    ## Example
    ```python
    from torch import nn


    class Head(nn.Module):
        def forward(self, x):
            return nn.BatchNorm2d(x.shape[1])(x)
    ```

    ## Use instead
    ```python
    from torch import nn


    class Head(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.norm = nn.BatchNorm2d(channels)

        def forward(self, x):
            return self.norm(x)
    ```

    ## Fix safety
    Display-only. Moving the layer to `__init__` needs its constructor
    arguments there, which often depend on the input's shape; the fix is
    described, never applied.
    """

    code = "DEV104"
    name = "module-created-in-forward"
    message = "`{call}` builds a new layer with its parameters on the CPU at every `forward` call"
    fix_title = "Build `{call}` once in `__init__` and call the stored layer in `forward`"
    fix_safety = FixSafety.DISPLAY_ONLY
    # A layer built in a method (``{modules}`` spells torch's layers as the file imports them, and
    # the file's module classes); the whole class is read, since `forward` may call that method.
    markers = (marker.MODULE_CONSTRUCTOR_CALL,)
    needs_whole_class = True

    @classmethod
    def wants_unit(cls, unit, contains):  # type: ignore[no-untyped-def]
        return unit.kind in ("method", "class")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._moved: set[cst.Call] = set()
        self._per_call: dict[cst.ClassDef, frozenset[str]] = {}
        self._bound: dict[cst.Call, str] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self._bound[node.value] = node.targets[0].target.value

    def visit_Call(self, node: cst.Call) -> None:
        base = patterns.receiver(node)
        if isinstance(base, cst.Call) and patterns.method_name(node) in ("to", "cuda"):
            self._moved.add(base)  # ``nn.Linear(a, b).to(x.device)``: placed, if wasteful
            return
        if node in self._moved or patterns.keyword(node, "device") is not None:
            return
        function, owner = self.ctx.current_function, self.ctx.current_class
        if function is None or owner is None or not self.ctx.in_method_of_module():
            return
        if function.name.value not in self._run_per_call(owner):
            return
        if function.name.value != "forward" and function.decorators:
            return  # (a builder behind a decorator, such as a cache, may run once)
        if self.ctx.symbols.qualify(node.func) not in torch_api.STATEFUL_NN_MODULES and not self._layered(node.func):
            return
        name = self._bound.get(node)
        if name is not None and _moves_name(function, name):
            return  # ``projector = MLP(...)``, then ``projector.to(hidden)``: placed
        call = self.ctx.describe(node.func) + "(...)"
        self.report(node.func, fix=self.make_fix(call=call), call=call)

    def _run_per_call(self, owner: cst.ClassDef) -> frozenset[str]:
        """``forward`` and the methods of the class that its ``forward`` calls on ``self``."""
        found = self._per_call.get(owner)
        if found is None:
            names = {"forward"}
            forward = next(
                (m for m in owner.body.body if isinstance(m, cst.FunctionDef) and m.name.value == "forward"), None
            )
            params = forward.params.params if forward is not None else ()
            if forward is not None and params:
                self_name = params[0].name.value
                # (Not one called under ``if self.trace is None:``: a set-up that runs once.)
                lazy = {
                    id(sub)
                    for branch in descendants(forward.body)
                    if isinstance(branch, cst.If) and _tests_for_none(branch.test)
                    for sub in descendants(branch.body)
                }
                for sub in descendants(forward.body):
                    if (
                        isinstance(sub, cst.Call)
                        and id(sub) not in lazy
                        and isinstance(sub.func, cst.Attribute)
                        and isinstance(sub.func.value, cst.Name)
                        and sub.func.value.value == self_name
                    ):
                        names.add(sub.func.attr.value)
            names.discard("__init__")
            found = self._per_call[owner] = frozenset(names)
        return found

    def _layered(self, func: cst.BaseExpression) -> bool:
        """A module class of this file whose ``__init__`` builds layers with parameters or buffers
        (``MBConvBlock``), directly or through another such class of the file."""
        tree = self.ctx.tree
        return isinstance(func, cst.Name) and tree is not None and _builds_layers(tree, self.ctx.symbols, func.value, 3)


def _tests_for_none(test: cst.BaseExpression) -> bool:
    """``x is None``, ``not self.ready``, ``not hasattr(self, "table")``: a test for what is not set up yet."""
    for sub in descendants(test):
        if isinstance(sub, cst.Name) and sub.value in ("None", "hasattr"):
            return True
        if isinstance(sub, cst.UnaryOperation) and isinstance(sub.operator, cst.Not):
            return True
    return False


def _moves_name(function: cst.FunctionDef, name: str) -> bool:
    """Does ``function`` call ``<name>.to(...)`` or ``<name>.cuda(...)``?"""
    return any(
        isinstance(sub, cst.Call)
        and isinstance(sub.func, cst.Attribute)
        and sub.func.attr.value in ("to", "cuda")
        and isinstance(sub.func.value, cst.Name)
        and sub.func.value.value == name
        for sub in descendants(function.body)
    )


def _builds_layers(tree: ast.Module, symbols: Symbols, name: str, depth: int) -> bool:
    """Does ``__init__`` of the module class ``name`` of this file build a layer with state (a
    torch layer, an ``nn.Parameter``, or such a class of the file)?"""
    node = top_level_definition(tree, name, (ast.ClassDef,))
    if depth == 0 or not isinstance(node, ast.ClassDef) or not symbols.is_local_module_class(name):
        return False
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    for sub in ast.walk(init) if init is not None else ():
        if not isinstance(sub, ast.Call):
            continue
        called = ast_dotted_name(sub.func) or ""
        qualified = symbols.qualify_dotted(called) or ""
        if qualified in torch_api.STATEFUL_NN_MODULES or qualified in torch_api.PARAMETER_CLASSES:
            return True
        if "." not in called and called != name and _builds_layers(tree, symbols, called, depth - 1):
            return True
    return False


def _registered(value: Value) -> bool:
    """Every tensor ``value`` may be is an ``nn.Parameter`` (or buffer)."""
    return all(leaf.registers is True for leaf in leaves(value) if tensorish(leaf))
