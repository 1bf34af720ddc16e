"""DEV5xx: frameworks and distributed training — Lightning, torchmetrics, torch.distributed, DDP.

Lightning's `.cuda()` / `device="cuda"` / `.to("cuda")` inside a
`LightningModule` is `DEV207` (hardcoded-cuda-in-module), whose fix uses
`self.device` there; it is not repeated here.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from flake8_device import markers as marker
from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.flow import Kind, events, functions_with_owners
from flake8_device.analysis.flow.values import Value, alternatives
from flake8_device.analysis.scope import device_variable
from flake8_device.model import Fix, FixSafety, ReplaceNode
from flake8_device.rule import Rule

_METRIC_BASES = frozenset({"torchmetrics.Metric", "torchmetrics.metric.Metric"})
_COLLECTIVE_NAMES = sorted({q.rsplit(".", 1)[1] for q in torch_api.DIST_COLLECTIVES})
COLLECTIVE_MARKER = rf"(?:{'|'.join(_COLLECTIVE_NAMES)})\s*\("


def initialises_nccl(tree: ast.Module | None) -> bool:
    """Does the file set up the NCCL backend?

    ``init_process_group("nccl")`` and ``backend="nccl"``; a backend read from a variable, an
    argument parser's option or a parameter whose default names NCCL (``backend=args.dist_backend``
    with ``--dist-backend`` defaulting to ``"nccl"``); ``init_process_group()`` with no backend in a
    file that uses CUDA (since PyTorch 2.6 that sets up the accelerator's backend only: NCCL); and
    Accelerate's ``Accelerator()``, which launches multi-GPU processes over NCCL."""
    if tree is None:
        return False
    named: dict[str, list[ast.expr]] | None = None
    uses_cuda = bare_init = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "cuda":
            uses_cuda = True
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name == "Accelerator" and not any(k.arg == "cpu" for k in node.keywords):
            return True
        values = [k.value for k in node.keywords if k.arg in ("backend", "process_group_backend", "dist_backend")]
        if name == "init_process_group" and node.args:
            values.append(node.args[0])
        elif name == "init_process_group" and not values and not any(k.arg is None for k in node.keywords):
            bare_init = True
        for value in values:
            if _names_nccl(value):
                return True
            if isinstance(value, (ast.Name, ast.Attribute)):
                named = _string_bindings(tree) if named is None else named
                key = value.id if isinstance(value, ast.Name) else value.attr
                if any(_names_nccl(bound) for bound in named.get(key, ())):
                    return True
    return bare_init and uses_cuda


def _names_nccl(node: ast.expr) -> bool:
    """``"nccl"``, or a choice that may give it (``"nccl" if torch.cuda.is_available() else "gloo"``,
    ``backend or "nccl"``): where CUDA is, that is the backend the tensors meet."""
    if isinstance(node, ast.IfExp):
        return _names_nccl(node.body) or _names_nccl(node.orelse)
    if isinstance(node, ast.BoolOp):
        return any(_names_nccl(value) for value in node.values)
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and "nccl" in node.value


def _string_bindings(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """What each name (or attribute name) may be bound to: assignments, parameter defaults and the
    defaults of argument-parser options (``--dist-backend`` is ``args.dist_backend``)."""
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, (ast.Name, ast.Attribute)):
                    key = target.id if isinstance(target, ast.Name) else target.attr
                    found.setdefault(key, []).append(node.value)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            positional = [*node.args.posonlyargs, *node.args.args]
            pairs = list(zip(positional[len(positional) - len(node.args.defaults) :], node.args.defaults))
            pairs += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
            for argument, default in pairs:
                found.setdefault(argument.arg, []).append(default)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            default = next((k.value for k in node.keywords if k.arg == "default"), None)
            dest = next((k.value for k in node.keywords if k.arg == "dest"), None)
            options = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if default is None:
                continue
            if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
                keys = [dest.value]
            else:
                longs = [o for o in options if o.startswith("--")] or options
                keys = [longs[0].lstrip("-").replace("-", "_")] if longs else []
            for key in keys:
                found.setdefault(key, []).append(default)
    return found


def _factory_device_fix(rule: Rule, origin: cst.CSTNode | None, device: str | None, **fields: str) -> Fix:
    """Create the host tensor on ``device`` when it was made by a factory without ``device=``; else display-only."""
    if (
        device is not None
        and isinstance(origin, cst.Call)
        and rule.ctx.symbols.qualify(origin.func) in torch_api.TENSOR_FACTORIES
        and rule.ctx.symbols.qualify(origin.func) not in torch_api.HOST_ONLY_FACTORIES
        and patterns.keyword(origin, "device") is None
    ):
        replaced, parts = patterns.keyword_added(origin, "device", device)
        return rule.make_fix(ReplaceNode(replaced, *parts), device=device, **fields)
    if device is None:
        reason = "no device variable is known to be bound where the tensor is made"
    else:
        reason = "the tensor is not made by a factory in sight (it may have been moved to the CPU)"
    return rule.make_fix(
        safety=FixSafety.DISPLAY_ONLY, reason=reason, device=device or "the device of this process", **fields
    )


class SyncDistOnHostTensor(Rule):
    """A host tensor logged with `sync_dist=True` in a Lightning module.

    ## What it does
    In a `LightningModule`, finds `self.log(name, value, sync_dist=True)` (and
    `self.log_dict({...}, sync_dist=True)`) where the value is a tensor on the
    CPU: made by a factory without `device=` (`torch.tensor(acc)`), or moved
    there with `.cpu()`.

    ## Why is this bad?
    Lightning reduces a logged tensor across processes where it lives. Under
    DDP on GPUs the backend is NCCL, which cannot reduce CPU tensors: the step
    fails with `No backend type associated with device type cpu`. A Python
    number is fine (Lightning puts it on `self.device`); a CPU tensor is not.

    ## Example
    ```python
    import torch
    import lightning.pytorch as pl


    class Classifier(pl.LightningModule):
        def validation_step(self, batch, batch_idx):
            accuracy = torch.tensor(self.score(batch))
            self.log("val_acc", accuracy, sync_dist=True)
    ```

    ## Use instead
    ```python
    import torch
    import lightning.pytorch as pl


    class Classifier(pl.LightningModule):
        def validation_step(self, batch, batch_idx):
            accuracy = torch.tensor(self.score(batch), device=self.device)
            self.log("val_acc", accuracy, sync_dist=True)
    ```

    ## Fix safety
    Safe when the tensor is made by a factory in sight: it is created on
    `self.device`, where Lightning can reduce it. A tensor moved to the CPU
    with `.cpu()` gets a display-only suggestion (log it before the move).
    """

    code = "DEV501"
    uses_flow = True
    name = "sync-dist-on-host-tensor"
    message = "`{tensor}` is a CPU tensor logged with `sync_dist=True`: NCCL cannot reduce it across processes"
    fix_title = "Create it on `{device}`"
    fix_safety = FixSafety.SAFE
    markers = (r"sync_dist\s*=\s*True", r"\.log(?:_dict)?\s*\(")

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.SyncedLogOnHost):
            fix = _factory_device_fix(self, event.tensor.value.origin, "self.device")
            self.report(event.tensor.expr, fix=fix, tensor=self.ctx.describe(event.tensor.expr))


class MetricStateNotAdded(Rule):
    """Plain tensor attribute in a torchmetrics `Metric`.

    ## What it does
    In `__init__` of a `torchmetrics.Metric` subclass, finds tensors stored as
    plain attributes (`self.correct = torch.tensor(0)`) instead of with
    `self.add_state(...)` (or, for a constant, `self.register_buffer(...)`).

    ## Why is this bad?
    A metric moves and synchronises only what it registered. A plain tensor
    stays on the CPU when the metric moves to the GPU (with its
    `LightningModule`, or `metric.to(device)`), so `update` fails with
    `Expected all tensors to be on the same device`; under DDP it is never
    reduced across processes, and `reset()` does not reset it.

    ## Example
    ```python
    import torch
    from torchmetrics import Metric


    class Hits(Metric):
        def __init__(self):
            super().__init__()
            self.hits = torch.tensor(0.0)

        def update(self, preds, target):
            self.hits += (preds == target).sum()

        def compute(self):
            return self.hits
    ```

    ## Use instead
    ```python
    import torch
    from torchmetrics import Metric


    class Hits(Metric):
        def __init__(self):
            super().__init__()
            self.add_state("hits", default=torch.tensor(0.0), dist_reduce_fx="sum")

        def update(self, preds, target):
            self.hits += (preds == target).sum()

        def compute(self):
            return self.hits
    ```

    ## Fix safety
    Display-only: `add_state` needs the reduction across processes (`"sum"`,
    `"mean"`, `"cat"`, ...), which cannot be guessed. A tensor the metric never
    changes is a constant: register it with `register_buffer(...,
    persistent=False)` instead.
    """

    code = "DEV502"
    name = "metric-state-not-added"
    message = "Tensor `{target}` in a `Metric` is a plain attribute: it is not moved with the metric nor synced"
    fix_title = "Register it: `{suggestion}`"
    fix_safety = FixSafety.DISPLAY_ONLY
    markers = (r"def __init__\b", marker.ATTRIBUTE_SET_TO_TENSOR)
    file_markers = (r"torchmetrics",)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        owner = self.ctx.current_class
        if node.name.value != "__init__" or owner is None or self.ctx.scopes[-1] is not node:
            return
        if not self.ctx.symbols.class_inherits(owner.name.value, _METRIC_BASES):
            return
        info = self.ctx.class_info(owner)
        if info is None or info.custom_move:
            return
        for assignment in patterns.attribute_assignments(node):
            attr, value, self_name = assignment.attr, assignment.value, assignment.self_name
            if info.holds_state(attr) or attr in info.added_states or attr in info.moved_by_hand:
                continue
            factory = patterns.factory_expression(value, self.ctx.symbols, host_only=False)
            if factory is None:
                continue
            changed = info.assignment_count.get(attr, 0) > info.init_assignment_count.get(attr, 0)
            qualified = self.ctx.symbols.qualify(factory.func) or ""
            if not changed and value is factory and patterns.maybe_zero_dim_factory(factory, qualified):
                continue  # a 0-dim constant mixes legally with device tensors and needs no syncing
            if changed:
                suggestion = f'{self_name}.add_state("{attr}", default=..., dist_reduce_fx=...)'
            else:
                suggestion = f'{self_name}.register_buffer("{attr}", ..., persistent=False)'
            name = f"{self_name}.{attr}"
            self.report(assignment.target, fix=self.make_fix(suggestion=suggestion), target=name)


class CollectiveOnHostTensor(Rule):
    """A `torch.distributed` collective on a CPU tensor with the NCCL backend.

    ## What it does
    In a file that initialises the `nccl` backend (`init_process_group("nccl")`,
    a backend option whose default is `"nccl"`, a choice that gives `"nccl"` where
    CUDA is (`"nccl" if torch.cuda.is_available() else "gloo"`),
    `init_process_group()` with no backend in CUDA code, Accelerate's
    `Accelerator()`), finds a collective
    (`all_reduce`, `all_gather`, `broadcast`, `reduce`, `reduce_scatter`,
    `gather`, `scatter`, `all_to_all_single`, `send`/`recv`, ...) given a tensor
    that lives on the CPU along some path: made by a factory without
    `device=`, moved there, or a parameter of a model left on the CPU.

    ## Why is this bad?
    NCCL only communicates GPU tensors: the call fails with `No backend type
    associated with device type cpu` (or hangs, with older releases), often
    only at the end of an epoch, when the metrics are reduced. Since PyTorch
    2.6, `init_process_group()` without a backend sets up the accelerator's
    backend only, so CPU tensors fail there too.

    ## Example
    ```python
    import torch
    import torch.distributed as dist


    def average(value, device):
        dist.init_process_group("nccl")
        total = torch.tensor([value])
        dist.all_reduce(total)
        return total.item() / dist.get_world_size()
    ```

    ## Use instead
    ```python
    import torch
    import torch.distributed as dist


    def average(value, device):
        dist.init_process_group("nccl")
        total = torch.tensor([value], device=device)
        dist.all_reduce(total)
        return total.item() / dist.get_world_size()
    ```

    ## Fix safety
    Safe when the tensor is made by a factory in sight and a device variable
    is certainly bound where it is made (`device`, `self.device` in a
    Lightning module, a module-level `device` defined before the code runs):
    the tensor is created there. Otherwise the fix is shown but not applied.
    """

    code = "DEV503"
    uses_flow = True
    name = "collective-on-host-tensor"
    message = "`{tensor}` is on the CPU but `{collective}` runs over NCCL, which only communicates GPU tensors"
    fix_title = "Create it on `{device}`"
    fix_safety = FixSafety.SAFE
    markers = (COLLECTIVE_MARKER,)
    # The backend may be named elsewhere (an option's default) or not at all (see ``initialises_nccl``).
    file_markers = (r"nccl|init_process_group\s*\(\s*\)|Accelerator\s*\(",)

    def visit_Module(self, node: cst.Module) -> None:
        found = self.ctx.flow.events_of(events.CollectiveOnHost)
        if not found or not initialises_nccl(self.ctx.tree):
            return
        owners = functions_with_owners(self.ctx.module)
        for event in found:
            owner = owners.get(event.function) if event.function is not None else None
            origin = event.tensor.value.origin
            # The device must be known where the tensor is made, not only at the collective.
            place = origin if isinstance(origin, cst.Call) else event.call
            device = device_variable(self.ctx, event.function, owner, place)
            fix = _factory_device_fix(self, origin, device)
            self.report(
                event.tensor.expr,
                fix=fix,
                tensor=self.ctx.describe(event.tensor.expr),
                collective=self.ctx.describe(event.call.func),
            )


class WrappedModuleNotMoved(Rule):
    """`DataParallel` / `DistributedDataParallel` wrapping a module still on the CPU.

    ## What it does
    Finds a module built in the same function (or script), never moved, and
    wrapped by `DistributedDataParallel` with `device_ids` (or in a file that
    initialises `nccl`), or by `DataParallel` and not moved afterwards either.
    A job that may run on the `gloo` backend (named in the same function or
    script), with no literal `device_ids`, is a CPU job: not reported, unless
    the `DistributedDataParallel` wrapper is moved to the accelerator
    afterwards (`net = DDP(net); net.to(device)`), which DDP does not follow. Device
    ids given only where CUDA is available (`[rank] if
    torch.cuda.is_available() else None`) are reported: on a GPU machine that
    path is taken, and the module is still on the CPU.

    ## Why is this bad?
    `DistributedDataParallel` checks the module's device when it is built:
    with `device_ids` it fails with `DistributedDataParallel device_ids and
    output_device arguments only work with single-device/multiple-device GPU
    modules or CPU modules`, and without them NCCL cannot broadcast CPU
    parameters. `DataParallel` fails at the first forward with `module must
    have its parameters and buffers on device cuda:0 (device_ids[0])`.

    ## Example
    ```python
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    def setup(local_rank):
        dist.init_process_group("nccl")
        model = nn.Linear(10, 10)
        return DDP(model, device_ids=[local_rank])
    ```

    ## Use instead
    ```python
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    def setup(local_rank):
        dist.init_process_group("nccl")
        model = nn.Linear(10, 10)
        return DDP(model.to(local_rank), device_ids=[local_rank])
    ```

    ## Fix safety
    Safe with a literal `device_ids` list: the module is moved to its first
    entry, the device the wrapper expects (shown only, where the list is given
    under a condition: a move on every path would break the CPU job). Without
    `device_ids` the right GPU is the process's own, which the code does not
    name; the fix is shown but not applied.
    """

    code = "DEV504"
    uses_flow = True
    name = "wrapped-module-not-moved"
    message = "`{module}` is still on the CPU when `{wrapper}` wraps it: {why}"
    fix_title = "Move it first: `{module}{move}`"
    fix_safety = FixSafety.SAFE
    # A wrapper call, and a module built (or moved back to the CPU) in the same unit.
    markers = ("{wrappers}", (marker.MODULE_CONSTRUCTOR_CALL, r"\.cpu\s*\("))

    def visit_Module(self, node: cst.Module) -> None:
        found = self.ctx.flow.events_of(events.WrappedUnmoved)
        if not found:
            return
        nccl: bool | None = None
        for event in found:
            if not re.search(r"DataParallel|^DDP$", patterns.last_name(event.call.func) or ""):
                continue  # an alias the marker cannot see
            wrapper = event.wrapper.rsplit(".", 1)[-1]
            device_ids = patterns.keyword(event.call, "device_ids") or patterns.positional(event.call, 1)
            ids = device_ids.value if device_ids is not None else None
            if isinstance(ids, cst.Name) and ids.value == "None":
                ids = None
            # device_ids=[rank] if torch.cuda.is_available() else None: the GPU path is this job's too
            ids, condition = self._ids_on_one_path(event.function, ids)
            if wrapper == "DistributedDataParallel" and self._wrapper_moved_after(event):
                why = (
                    "it is moved to the device only after the wrap, and DDP registers its gradient "
                    "reduction for the parameters as they are when it wraps them"
                )
                self._report(event, wrapper, ids, why, condition)
                continue
            if wrapper == "DistributedDataParallel" and not isinstance(ids, (cst.List, cst.Tuple)):
                if self._may_use_gloo(event.function):
                    continue  # a CPU job (gloo) wraps CPU modules, with no device ids
            if wrapper == "DistributedDataParallel":
                if ids is None:
                    nccl = initialises_nccl(self.ctx.tree) if nccl is None else nccl
                    if not nccl:
                        continue  # a CPU module under gloo is legitimate
                    why = "NCCL cannot broadcast its CPU parameters"
                elif condition is not None:
                    where = self.ctx.describe(condition)
                    why = f"where `{where}` holds, `device_ids={self.ctx.describe(ids)}` needs it on that GPU"
                else:
                    why = f"`device_ids={self.ctx.describe(ids)}` needs it on that GPU already"
            else:
                if not self._never_moved_after(event):
                    continue
                why = "`DataParallel` needs it on `device_ids[0]` at the first forward, and it is never moved"
            self._report(event, wrapper, ids, why, condition)

    def _ids_on_one_path(
        self, function: cst.FunctionDef | None, ids: cst.BaseExpression | None
    ) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None]:
        """The device ids and the condition they are given under, where they are (or a name assigned
        once in the function is) ``[...] if condition else None``; else ``(ids, None)``."""
        choice = ids
        if isinstance(ids, cst.Name):
            choice = patterns.single_binding(self.ctx.module if function is None else function, ids.value)
        if (
            isinstance(choice, cst.IfExp)
            and isinstance(choice.body, (cst.List, cst.Tuple))
            and isinstance(choice.orelse, cst.Name)
            and choice.orelse.value == "None"
        ):
            return choice.body, choice.test
        return ids, None

    def _may_use_gloo(self, function: cst.FunctionDef | None) -> bool:
        """Does the wrapping function (or the script) name the ``gloo`` backend (``"nccl" if ... else
        "gloo"``)? Such a job may run on CPUs, where a module on the CPU is what DDP expects."""
        scopes: list[cst.CSTNode] = [self.ctx.module] if function is None else [function, self.ctx.module]
        return any(
            isinstance(node, cst.SimpleString) and patterns.string_value(node) == "gloo"
            for scope in scopes
            for node in self.ctx.scope_nodes(scope)
        )

    def _wrapper_final_places(self, event: events.WrappedUnmoved) -> tuple[cst.CSTNode, str, tuple[Value, ...]] | None:
        """For ``model = Wrapper(model)``: its scope, the name, and where that name's value is at the
        end of the scope."""
        statement = event.statement
        if statement is None:
            return None
        for small in statement.body:
            if isinstance(small, cst.Assign) and small.value is event.call and len(small.targets) == 1:
                target = small.targets[0].target
                if isinstance(target, cst.Name):
                    scope = event.function if event.function is not None else self.ctx.module
                    final = self.ctx.flow.final_env.get(scope, {}).get(target.value)
                    return scope, target.value, alternatives(final) if final is not None else ()
        return None

    def _never_moved_after(self, event: events.WrappedUnmoved) -> bool:
        """``model = DataParallel(model)`` whose name still holds a host module at the end of its scope."""
        found = self._wrapper_final_places(event)
        if found is None:
            return False
        scope, name, places = found
        unmoved = any(p.kind is Kind.HOST and p.module is True for p in places) and not any(
            p.kind is Kind.ACCEL for p in places
        )
        # (It fails at its first forward: a wrapper only used for its state dict never does.)
        return unmoved and self._run_or_returned(scope, name)

    def _wrapper_moved_after(self, event: events.WrappedUnmoved) -> bool:
        """``net = DistributedDataParallel(net)`` and then ``net.to(device)``: the wrapper (and the
        module in it) is on an accelerator at the end of its scope, along every path."""
        found = self._wrapper_final_places(event)
        places = found[2] if found is not None else ()
        return bool(places) and all(p.kind in (Kind.ACCEL, Kind.CONDITIONAL) and p.module is True for p in places)

    def _run_or_returned(self, scope: cst.CSTNode, name: str) -> bool:
        """Is ``name`` called in ``scope`` (``model(x)``), or returned for its caller to run?"""
        return any(
            (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name)
            or (isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == name)
            for node in self.ctx.scope_nodes(scope)
        )

    def _report(
        self,
        event: events.WrappedUnmoved,
        wrapper: str,
        ids: cst.BaseExpression | None,
        why: str,
        condition: cst.BaseExpression | None = None,
    ) -> None:
        module_expr = event.module.expr
        module = self.ctx.describe(module_expr)
        first = None
        if isinstance(ids, (cst.List, cst.Tuple)) and ids.elements and isinstance(ids.elements[0], cst.Element):
            first = ids.elements[0].value
        if first is not None and condition is not None:
            reason = f"only where `{self.ctx.describe(condition)}` holds; a move on every path would break the other"
            move = f".to({self.ctx.describe(first)})"
            fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, module=module, move=move)
        elif first is not None:
            move = f".to({self.ctx.describe(first)})"
            fix = self.make_fix(
                ReplaceNode(module_expr, *patterns.appended(module_expr, ".to("), first, ")"), module=module, move=move
            )
        else:
            fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, module=module, move=".to(<this process's GPU>)")
        self.report(module_expr, fix=fix, module=module, wrapper=wrapper, why=why)
