"""DEV2xx: device flow — values on different devices meeting, and moves that go nowhere.

Every rule here reads the events of :mod:`flake8_device.analysis.flow`; none
of them looks at the code itself beyond building its fix.
"""

from __future__ import annotations

import libcst as cst

from flake8_device import markers as marker
from flake8_device.analysis.flow import events
from flake8_device.analysis import cuda_guards, patterns, torch_api
from flake8_device.analysis.flow import Kind, Value, tensor_inputs
from flake8_device.model import FixSafety, ReplaceNode
from flake8_device.rule import Rule


def describe_host(rule: Rule, value: Value) -> str:
    """How a host value got there, for messages: "`outputs.cpu()`", "a batch from `loader`"."""
    origin = value.origin
    if isinstance(origin, cst.Call):
        if patterns.method_name(origin) == "cpu":
            return f"moved by `{rule.ctx.describe(origin)}`"
        return f"made by `{rule.ctx.describe(origin.func)}(...)` without `device=`"
    if origin is not None:
        return f"from the data loader `{rule.ctx.describe(origin)}`"
    return "on the host"


def device_text(value: Value) -> str:
    return value.device or "the accelerator"


class MixedDevices(Rule):
    """Host and accelerator tensors meet in one operation.

    ## What it does
    Follows where each tensor lives and reports an operation (arithmetic, a
    `torch.*` or `F.*` call, a loss, a metric update, a model call) whose
    operands are certainly on different devices: one on the CPU, one moved to
    an accelerator.

    ## Why is this bad?
    The operation fails at run time with `Expected all tensors to be on the
    same device, but found at least two devices, cuda:0 and cpu!`, often deep
    into an evaluation loop. A common cause is a `.cpu()` added as a backend
    workaround on the model outputs while the targets stay on the device.

    ## Example
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 3).to(device)
    loss_fn = nn.CrossEntropyLoss()
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs).cpu()
        loss = loss_fn(outputs, targets)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 3).to(device)
    loss_fn = nn.CrossEntropyLoss()
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs).cpu()
        loss = loss_fn(outputs, targets.cpu())
    ```

    ## Fix safety
    Display-only. Which side should move (the host value to the device, or the
    device value to the host) depends on intent and cost; the message names
    both values and the move that would align them.
    """

    code = "DEV201"
    uses_flow = True
    name = "mixed-devices"
    message = "`{host}` is on the CPU ({why}) but `{accel}` is on `{device}`; they meet in {operation}"
    fix_title = "Align the devices, e.g. `{host}{move}` or `{accel}.cpu()`"
    fix_safety = FixSafety.DISPLAY_ONLY
    markers = (marker.ACCELERATOR_SOURCE, (marker.HOST_SOURCE, marker.MODULE_CONSTRUCTOR_CALL))

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.Mix):
            host = self.ctx.describe(event.host.expr)
            accel = self.ctx.describe(event.accel.expr)
            move = event.accel.value.move or f".to({device_text(event.accel.value)})"
            fix = self.make_fix(host=host, accel=accel, move=move)
            self.report(
                event.host.expr,
                fix=fix,
                host=host,
                accel=accel,
                why=describe_host(self, event.host.value),
                device=device_text(event.accel.value),
                operation=event.operation,
            )


class TensorCreatedWithoutDevice(Rule):
    """Tensor created without `device=` in model code.

    ## What it does
    In a module's methods (or any function taking tensors), finds tensors made
    by a factory (`torch.arange`, `torch.zeros`, `torch.ones`, ...) without
    `device=` that are then combined with the inputs or the module's own
    parameters, such as position ids or RNN hidden states.

    ## Why is this bad?
    The factory allocates on the CPU. The code works in CPU tests and fails as
    soon as the model runs on an accelerator: `Expected all tensors to be on
    the same device`.

    ## Example
    ```python
    import torch
    from torch import nn


    class PositionalEmbedding(nn.Module):
        def __init__(self, n, dim):
            super().__init__()
            self.emb = nn.Embedding(n, dim)

        def forward(self, x):
            pos = torch.arange(x.size(1))
            return x + self.emb(pos)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn


    class PositionalEmbedding(nn.Module):
        def __init__(self, n, dim):
            super().__init__()
            self.emb = nn.Embedding(n, dim)

        def forward(self, x):
            pos = torch.arange(x.size(1), device=x.device)
            return x + self.emb(pos)
    ```

    ## Fix safety
    Safe when the tensor meets a named input (`x + torch.zeros(n)` becomes
    `torch.zeros(n, device=x.device)`): it is created where its partner
    already is. When it meets the module's parameters (`self.emb(pos)`), the
    fix uses the device of the function's first tensor input, which is where a
    model's inputs normally are but not guaranteed; that fix is unsafe.
    """

    code = "DEV202"
    uses_flow = True
    name = "tensor-created-without-device"
    message = "`{factory}(...)` creates a tensor on the CPU that meets `{partner}` in {operation}"
    fix_title = "Create it with `device={device}`"
    fix_safety = FixSafety.SAFE
    markers = (marker.HOST_FACTORY_CALL,)

    @classmethod
    def wants_unit(cls, unit, contains):  # type: ignore[no-untyped-def]
        # Inputs exist only in functions; `__init__` runs before any move; outside a class a
        # function must mention a device to have inputs at all (see flow.tensor_inputs).
        if unit.kind in ("statements", "header") or unit.name == "__init__":
            return False
        return unit.kind != "function" or contains("device")

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.HostMeetsInput):
            factory = event.host.value.origin
            if not isinstance(factory, cst.Call):
                continue
            qualified = self.ctx.symbols.qualify(factory.func)
            if qualified not in torch_api.TENSOR_FACTORIES or patterns.keyword(factory, "device") is not None:
                continue  # an explicit `device="cpu"` is a decision, not an oversight
            fix = self._fix(factory, qualified, event)
            self.report(
                factory.func,
                fix=fix,
                factory=self.ctx.describe(factory.func),
                partner=self.ctx.describe(event.partner.expr),
                operation=event.operation,
            )

    def _fix(self, factory: cst.Call, qualified: str, event: events.HostMeetsInput):  # type: ignore[no-untyped-def]
        if qualified in torch_api.HOST_ONLY_FACTORIES or patterns.keyword(factory, "device") is not None:
            return None
        partner = event.partner.expr
        safety = FixSafety.SAFE
        if isinstance(partner, cst.Name) and event.partner.value.module is not True:
            device = f"{partner.value}.device"
        else:
            first = _first_tensor_input(event.function, self)
            if first is None:
                return None
            device, safety = f"{first}.device", FixSafety.UNSAFE
        replaced, parts = patterns.keyword_added(factory, "device", device)
        return self.make_fix(ReplaceNode(replaced, *parts), safety=safety, device=device)


def _first_tensor_input(function: cst.FunctionDef | None, rule: Rule) -> str | None:
    if function is None:
        return None
    params = [*function.params.posonly_params, *function.params.params]
    is_method = bool(params) and params[0].name.value in ("self", "cls")
    owner = rule.ctx.current_class
    in_module = owner is not None and rule.ctx.symbols.is_local_module_class(owner.name.value)
    inputs = tensor_inputs(function, rule.ctx, skip_first=is_method, in_module=in_module)
    return inputs[0] if inputs else None


class DiscardedMove(Rule):
    """A tensor move whose result is thrown away.

    ## What it does
    Finds `x.to(device)`, `x.cuda()` and `x.cpu()` used as a statement on a
    value known to be a tensor.

    ## Why is this bad?
    Modules move in place, tensors do not: `tensor.to(device)` returns a new
    tensor and leaves `tensor` where it was. The next line still uses the CPU
    copy. (Modules are never reported by this rule.)

    ## Example
    ```python
    import torch

    device = torch.device("cuda")
    for images, labels in loader:
        images.to(device)
        labels = labels.to(device)
    ```

    ## Use instead
    ```python
    import torch

    device = torch.device("cuda")
    for images, labels in loader:
        images = images.to(device)
        labels = labels.to(device)
    ```

    ## Fix safety
    Safe: the fix binds the moved tensor back to the same name, which is what
    the statement was written to do.
    """

    code = "DEV203"
    uses_flow = True
    name = "discarded-move"
    message = "`{call}` returns a moved copy that is thrown away; tensors are not moved in place"
    fix_title = "Assign the result: `{target} = {call}`"
    fix_safety = FixSafety.SAFE
    markers = (r"\.(?:to|cuda|cpu)\s*\(", r"(?m)^[ \t]*[\w.]+(?:\[[^\]\n]*\])*\.(?:to|cuda|cpu)\s*\(")

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.DiscardedMove):
            call = self.ctx.describe(event.call)
            target = self.ctx.describe(event.target)
            fix = None
            if isinstance(event.target, (cst.Name, cst.Attribute, cst.Subscript)):
                fix = self.make_fix(
                    ReplaceNode(event.statement, event.target, " = ", event.call), target=target, call=call
                )
            self.report(event.call.func.attr, fix=fix, call=call, target=target)  # type: ignore[attr-defined]


class ModelInputNotMoved(Rule):
    """A batch fed unmoved to a model on the accelerator.

    ## What it does
    Finds a model that was moved to a device called with values that come
    straight from a data loader, never moved.

    ## Why is this bad?
    The first forward fails with `Input type (torch.FloatTensor) and weight
    type (torch.cuda.FloatTensor) should be the same` (or `Expected all
    tensors to be on the same device`). Models wrapped in `DataParallel` /
    `DistributedDataParallel`, which move their inputs themselves, are not
    reported.

    ## Example
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 3).to(device)
    for inputs, targets in loader:
        outputs = model(inputs)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 3).to(device)
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
    ```

    ## Fix safety
    Safe for a tensor argument: the fix moves it with the same expression the
    model was moved with (`.to(device)`), for this call. Whole batches (tuples,
    dicts, `**batch`) cannot be moved with `.to()`; there the fix is shown but
    not applied.
    """

    code = "DEV204"
    uses_flow = True
    name = "model-input-not-moved"
    message = "`{argument}` comes from the data loader on the CPU but `{model}` is on `{device}`"
    fix_title = "Move the input: `{argument}{move}`"
    fix_safety = FixSafety.SAFE
    markers = (marker.ACCELERATOR_SOURCE, marker.LOADER)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.InputNotMoved):
            argument = self.ctx.describe(event.argument.expr)
            model = self.ctx.describe(event.model.expr)
            move = event.model.value.move
            fix = None
            if move is not None:
                safety = None
                starred = any(a.value is event.argument.expr and a.star for a in event.call.args)
                if event.argument.value.module is not False or starred:
                    safety = FixSafety.DISPLAY_ONLY
                parts = patterns.appended(event.argument.expr, move)
                fix = self.make_fix(
                    ReplaceNode(event.argument.expr, *parts), safety=safety, argument=argument, move=move
                )
            self.report(
                event.argument.expr, fix=fix, argument=argument, model=model, device=device_text(event.model.value)
            )


class NumpyOnAccelerator(Rule):
    """`.numpy()` on a tensor that lives on the accelerator.

    ## What it does
    Finds `.numpy()`, `np.asarray(t)` and `np.array(t)` applied to a tensor
    that was moved to an accelerator (or is the output of a model there).

    ## Why is this bad?
    NumPy arrays live in host memory: the call fails with `can't convert
    cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to
    host memory first`, and for a tensor that requires grad, with `Can't call
    numpy() on Tensor that requires grad`.

    ## Example
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 3).to(device)
    with torch.no_grad():
        scores = model(torch.ones(2, 8, device=device)).numpy()
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 3).to(device)
    with torch.no_grad():
        scores = model(torch.ones(2, 8, device=device)).cpu().numpy()
    ```

    ## Fix safety
    Safe: `.cpu()` copies the values to host memory, which `.numpy()` needs;
    `.detach()` is added too where the tensor may require grad (a model output
    outside `torch.no_grad()`), which `.numpy()` also needs.
    """

    code = "DEV205"
    uses_flow = True
    name = "numpy-on-accelerator"
    message = "`{tensor}` lives on `{device}`; NumPy needs it on the CPU"
    fix_title = "Insert `{insert}` before converting"
    fix_safety = FixSafety.SAFE
    markers = (marker.ACCELERATOR_SOURCE, r"\.numpy\s*\(|np\.as|np\.array|numpy\.as|numpy\.array")

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.NumpyOnAccel):
            tensor = self.ctx.describe(event.tensor.expr)
            detached = ".detach()" in self.ctx.code_for(event.tensor.expr)
            insert = ".detach().cpu()" if event.tensor.value.grad and not detached else ".cpu()"
            fix = self.make_fix(
                ReplaceNode(event.tensor.expr, *patterns.appended(event.tensor.expr, insert)), insert=insert
            )
            self.report(event.anchor, fix=fix, tensor=tensor, device=device_text(event.tensor.value))


class TransformBeforeMove(Rule):
    """Batch transform applied before the batch is moved.

    ## What it does
    In a loop over a data loader, finds a batched transform (a `kornia`
    augmentation, a `torchvision.transforms.v2` object, a callable named like
    `device_transforms`, or a module) applied to the batch, when the same batch
    is moved to the device only afterwards.

    ## Why is this bad?
    The transform was meant for the accelerator but runs on the CPU, often ten
    times slower, silently: nothing fails, the epoch just takes longer.

    ## Example
    ```python
    import torch
    import kornia.augmentation as K

    device = torch.device("cuda")
    augment = K.RandomHorizontalFlip()
    for images, labels in loader:
        images = augment(images)
        images = images.to(device)
    ```

    ## Use instead
    ```python
    import torch
    import kornia.augmentation as K

    device = torch.device("cuda")
    augment = K.RandomHorizontalFlip()
    for images, labels in loader:
        images = images.to(device)
        images = augment(images)
    ```

    ## Fix safety
    Safe when the two statements are adjacent and the transform has no
    parameters of its own (a kornia or torchvision v2 transform, or a
    transform-named callable): the fix swaps them. A module with weights would
    have to be moved too, and statements that are not adjacent may depend on
    what is between them; there the fix is shown but not applied.
    """

    code = "DEV206"
    uses_flow = True
    name = "transform-before-move"
    message = "`{transform}(...)` runs on the CPU: `{name}` is moved to the device only afterwards"
    fix_title = "Move `{name}` to the device before the transform"
    fix_safety = FixSafety.SAFE
    markers = (marker.MOVE_CALL, r"\bfor\b", marker.HOST_SOURCE)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.TransformBeforeMove):
            transform = self.ctx.describe(event.transform_call.func)
            first, second = event.transform_statement, event.move_statement
            swappable = event.adjacent and len(first.body) == 1 and len(second.body) == 1
            callee = event.transform
            parameter_free = callee.transform or callee.kind is Kind.UNKNOWN
            safety = None if swappable and parameter_free else FixSafety.DISPLAY_ONLY
            fix = self.make_fix(
                ReplaceNode(first.body[0], second.body[0]),
                ReplaceNode(second.body[0], first.body[0]),
                safety=safety,
                name=event.name,
            )
            self.report(event.transform_call.func, fix=fix, transform=transform, name=event.name)


class HardcodedCudaInModule(Rule):
    """Hard-coded CUDA inside module code.

    ## What it does
    Finds `.cuda()`, `.to("cuda")`, `device="cuda"`, `torch.device("cuda")` and
    the legacy CUDA tensor constructors (`torch.cuda.FloatTensor(...)`) inside
    the methods of an `nn.Module` (including Lightning modules). Code that only
    runs for CUDA is not hard-coding it: a branch taken only for CUDA values or
    by the module's own CUDA switch (`x.cuda() if y.is_cuda else x`, `if
    self.use_cuda:`), a `torch.cuda.*` query behind an availability check, a
    throwaway probe tensor behind an availability check, and the module's own
    `cuda`/`to`/`_apply` methods.

    ## Why is this bad?
    Module code runs wherever the module was moved: on the CPU in tests, on
    Apple's `mps`, on another GPU of a multi-GPU job. A hard-coded `cuda`
    breaks all of these (`Torch not compiled with CUDA enabled`, or tensors on
    `cuda:0` meeting a module on `cuda:1`).

    ## Example
    ```python
    import torch
    from torch import nn


    class Scorer(nn.Module):
        def forward(self, x):
            weights = torch.ones(x.shape[-1]).cuda()
            return x * weights
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn


    class Scorer(nn.Module):
        def forward(self, x):
            weights = torch.ones(x.shape[-1]).to(x.device)
            return x * weights
    ```

    ## Fix safety
    Unsafe: the fix uses the device of the method's first tensor input (or
    `self.device` in a Lightning module), which is where the module's inputs
    live in ordinary use but can differ from what the code forced before.
    Where no such input exists (e.g. in `__init__`) the fix is shown but not
    applied.
    """

    code = "DEV207"
    name = "hardcoded-cuda-in-module"
    message = "Hard-coded CUDA device in module code: `{code}`"
    fix_title = "Use `{device}` instead"
    fix_safety = FixSafety.UNSAFE
    markers = (r"cuda", r"\.cuda\s*\(|[\"']cuda|cuda\.\w+Tensor\b")

    @classmethod
    def wants_unit(cls, unit, contains):  # type: ignore[no-untyped-def]
        return unit.kind in ("method", "class")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._handled: set[int] = set()
        self._regions_by_function: dict[int, cuda_guards.CudaRegions] = {}

    def _device(self) -> str | None:
        """What to use instead of CUDA here: the module's own or an input's device."""
        owner = self.ctx.current_class
        if owner is not None and self.ctx.symbols.is_lightning_module_class(owner.name.value):
            return "self.device"
        first = _first_tensor_input(self.ctx.current_function, self)
        return f"{first}.device" if first else None

    def _regions(self, function: cst.FunctionDef) -> cuda_guards.CudaRegions:
        regions = self._regions_by_function.get(id(function))
        if regions is None:
            regions = self._regions_by_function[id(function)] = cuda_guards.cuda_only_regions(
                function, self.ctx.symbols
            )
        return regions

    def _decided(self, node: cst.CSTNode, value: cst.CSTNode, call: cst.Call) -> bool:
        """Does this CUDA placement only run for CUDA (see ``analysis.cuda_guards``)?"""
        function = self.ctx.current_function
        if function is None:
            return False
        regions = self._regions(function)
        if id(node) in regions.cuda_values or id(value) in regions.cuda_values:
            return True  # a branch taken only for CUDA values, or by the module's CUDA switch
        if regions.current_device:
            return True  # written for `torch.cuda.current_device()`, which `.cuda()` means too
        if id(node) not in regions.available:
            return False
        if id(value) in regions.query_arguments or id(node) in regions.query_arguments:
            return True  # a question about CUDA, where CUDA exists
        return cuda_guards.is_probe(call, function, self.ctx.scope_nodes(function))

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self._handled or not self.ctx.in_method_of_module():
            return
        function = self.ctx.current_function
        if function is not None and function.name.value in _DEVICE_METHODS:
            return  # implementing `.cuda()` / `.to()` / `_apply` is the one place CUDA belongs
        qualified = self.ctx.symbols.qualify(node.func) or ""
        if qualified.startswith("torch.cuda.") and qualified.endswith("Tensor"):
            if not self._decided(node, node, node):
                fix = self.make_fix(
                    safety=FixSafety.DISPLAY_ONLY,
                    device="`torch.tensor(data, device=...)` on an input's or the module's device",
                )
                self.report(node.func, fix=fix, code=self.ctx.describe(node))
            return
        method = patterns.method_name(node)
        if method == "cuda":
            base = patterns.receiver(node)
            assert base is not None
            if self._decided(node, node, node):
                return
            device = self._device()
            replacement = patterns.appended(base, f".to({device})") if device else None
            self._report(node.func.attr, node, replacement, device)  # type: ignore[attr-defined]
            return
        candidates: list[cst.BaseExpression] = []
        if method == "to":
            first = patterns.positional(node, 0)
            if first is not None:
                candidates.append(first.value)
        keyword = patterns.keyword(node, "device")
        if keyword is not None:
            candidates.append(keyword.value)
        if self.ctx.symbols.qualify(node.func) == "torch.device" and _is_cuda_device(node, self):
            candidates.append(node)
        for value in candidates:
            if _is_cuda_device(value, self) or _is_cuda_literal(value):
                self._handled.add(id(value))
                if self._decided(node, value, node):
                    continue
                device = self._device()
                self._report(value, value, (device,) if device else None, device)

    def _report(
        self,
        anchor: cst.CSTNode,
        replaced: cst.CSTNode,
        replacement: tuple[str | cst.CSTNode, ...] | None,
        device: str | None,
    ) -> None:
        if replacement is not None and device is not None:
            fix = self.make_fix(ReplaceNode(replaced, *replacement), device=device)
        else:
            fix = self.make_fix(
                safety=FixSafety.DISPLAY_ONLY, device="an input's `.device` or `next(self.parameters()).device`"
            )
        self.report(anchor, fix=fix, code=self.ctx.describe(replaced))


_DEVICE_METHODS = frozenset({"cuda", "to", "cpu", "_apply", "type"})


def _is_cuda_literal(node: cst.BaseExpression) -> bool:
    value = patterns.string_value(node)
    return value is not None and value.split(":")[0] == "cuda"


def _is_cuda_device(node: cst.BaseExpression, rule: Rule) -> bool:
    if _is_cuda_literal(node):
        return True
    if isinstance(node, cst.Call) and rule.ctx.symbols.qualify(node.func) == "torch.device":
        first = patterns.positional(node, 0)
        return first is not None and _is_cuda_literal(first.value)
    return False
