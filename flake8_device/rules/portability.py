"""DEV4xx: portability — code that only works on the machine (or the accelerator) it was written on."""

from __future__ import annotations

import ast
import re

import libcst as cst

from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.scope import device_variable
from flake8_device.model import FixSafety, InsertImport, ReplaceNode
from flake8_device.rule import Rule

# Device types whose tensors always carry an index (``cuda:0``), so ``torch.device("cuda")`` never equals theirs.
INDEXED_DEVICE_TYPES = frozenset({"cuda", "mps", "xpu", "hpu", "npu", "mlu", "mtia", "xla", "privateuseone"})
# Objects whose ``.device`` is usually a configured string, not a ``torch.device``.
_CONFIG_OWNER = re.compile(
    r"(?:^|\.)(?:args|arguments|cfg|config|conf|configs|opt|opts|options|hparams|hp|params|hyperparams|settings|"
    r"training_args|train_args|kwargs|flags|FLAGS|namespace|ns|cli_args|parsed_args)$"
)
_FLOAT64 = frozenset({"torch.float64", "torch.double"})
# Casts that replace a float64 dtype (``.double().float()`` is float32 again).
_OTHER_DTYPE_METHODS = frozenset({"float", "half", "bfloat16", "int", "long", "short", "bool", "byte", "char"})
# Files whose name says they hold no device tensors: LR-scheduler and grad-scaler states (Python
# numbers), RNG states (CPU byte tensors), checkpoint metadata (epochs, steps).
_NO_DEVICE_TENSORS = re.compile(r"sched|scaler|rng|random_state|metadata", re.I)
# Files about sharded (FSDP) or XLA training: code that cannot run on a CPU-only machine anyway.
_SHARDED_CODE = re.compile(r"FullyShardedDataParallel|torch\.distributed\.fsdp|\bfully_shard\b|torch_xla")
_AVAILABILITY_CHECK = re.compile(r"is_available\s*\(|device_count\s*\(|torch\.accelerator\b|is_built\s*\(")


class TorchLoadWithoutMapLocation(Rule):
    """`torch.load` without `map_location`.

    ## What it does
    Finds `torch.load(f)` called without `map_location`; not in a branch that
    already checked `torch.cuda.is_available()`, not for a file the same
    function saved itself (a round trip) or bytes from `io.BytesIO(...)`, not
    for files named as scheduler, grad-scaler, RNG or metadata state, which
    hold no device tensors, and not in FSDP or XLA checkpoint code, which only
    runs on the accelerators that wrote the files.

    ## Why is this bad?
    `torch.load` restores every tensor on the device it was saved from. A
    checkpoint saved during GPU training then fails to load on a CPU-only
    machine or a Mac (`Attempting to deserialize object on a CUDA device but
    torch.cuda.is_available() is False`), and on a multi-GPU machine every
    process loads it onto `cuda:0`.

    ## Example
    ```python
    import torch

    state = torch.load("checkpoint.pt")
    model.load_state_dict(state)
    ```

    ## Use instead
    ```python
    import torch

    state = torch.load("checkpoint.pt", map_location="cpu")
    model.load_state_dict(state)
    ```

    ## Fix safety
    Safe: the fix passes the device variable in scope (`device`,
    `self.device` in a Lightning module, a module-level `device`), where the
    loaded tensors are going to be used, when it is certainly bound where the
    load runs (not a local assigned further down, not a module-level name
    defined after the module-level call that runs this code, not an attribute
    `__init__` sets after calling this method); or else `"cpu"`, from where
    `load_state_dict` copies them into the model wherever it lives.
    """

    code = "DEV401"
    name = "torch-load-without-map-location"
    message = (
        "`{call}` without `map_location` restores tensors on the device they were saved from: "
        "a checkpoint saved on CUDA fails on a CPU-only or MPS machine"
    )
    fix_title = "Pass `map_location={device}`"
    fix_safety = FixSafety.SAFE
    markers = (r"load\s*\(", r"(?<![\w])load\s*\(")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._guards: list[cst.If] = []

    def visit_If(self, node: cst.If) -> None:
        self._guards.append(node)

    def leave_If(self, node: cst.If) -> None:
        self._guards.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.symbols.qualify(node.func) != "torch.load" or patterns.last_name(node.func) != "load":
            return
        if patterns.keyword(node, "map_location") is not None or any(a.star for a in node.args):
            return
        first = patterns.positional(node, 0) or patterns.keyword(node, "f")
        if patterns.positional(node, 1) is not None or first is None:
            return
        if any("cuda.is_available" in self.ctx.code_for(guard.test) for guard in self._guards):
            return  # this branch only runs where CUDA exists
        if self._saved_here(first.value):
            return  # a round trip: saved and loaded on this very machine
        if _NO_DEVICE_TENSORS.search(self.ctx.code_for(first.value)):
            return  # scheduler, scaler, RNG state and metadata files hold no device tensors
        if isinstance(first.value, cst.Call) and patterns.last_name(first.value.func) == "BytesIO":
            return  # bytes serialised by this very run (e.g. sent between processes)
        if self._sharded_code():
            return  # FSDP / XLA checkpoint code only runs on the accelerators that saved the files
        owner = self.ctx.current_class if self.ctx.current_function is not None else None
        device = device_variable(self.ctx, self.ctx.current_function, owner, node)
        if device is None or self.ctx.proof.unbound(device, at=node) is not None:
            device = '"cpu"'  # always valid: `load_state_dict` copies into the model wherever it is
        replaced, parts = patterns.keyword_added(node, "map_location", device)
        fix = self.make_fix(ReplaceNode(replaced, *parts), device=device)
        self.report(node.func, fix=fix, call=self.ctx.describe(node.func) + "(...)")

    def _sharded_code(self) -> bool:
        cached: bool | None = getattr(self, "_sharded", None)
        if cached is None:
            text = self.ctx.index.text if self.ctx.index is not None else self.ctx.module.code
            cached = self._sharded = _SHARDED_CODE.search(text) is not None
        return cached

    def _saved_here(self, target: cst.BaseExpression) -> bool:
        scope = self.ctx.current_function or self.ctx.module
        wanted = self.ctx.code_for(target)
        for other in self.ctx.scope_nodes(scope):
            if isinstance(other, cst.Call) and self.ctx.symbols.qualify(other.func) == "torch.save":
                saved_to = patterns.positional(other, 1) or patterns.keyword(other, "f")
                if saved_to is not None and self.ctx.code_for(saved_to.value) == wanted:
                    return True
        return False


def _is_device_attribute(rule: Rule, node: cst.BaseExpression) -> bool:
    """``x.device`` that is certainly a ``torch.device`` (a tensor's, a module's), not a configured string."""
    if not (isinstance(node, cst.Attribute) and node.attr.value == "device"):
        return False
    owner = node.value
    owner_text = rule.ctx.code_for(owner)
    if _CONFIG_OWNER.search(owner_text):
        return False
    if isinstance(owner, cst.Name) and owner.value in ("self", "cls"):
        cls = rule.ctx.current_class
        if cls is None or not rule.ctx.symbols.is_local_module_class(cls.name.value):
            return False  # a plain class's ``self.device`` is often a string
        info = rule.ctx.class_info(cls)
        if info is not None and (info.assignment_count.get("device") or "device" in info.method_names):
            return False  # set (or computed) by the class itself: could be anything
    return True


def _indexless_device(rule: Rule, node: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """``torch.device("cuda")``: the string node and its type, for an indexed device type without index."""
    if not isinstance(node, cst.Call) or rule.ctx.symbols.qualify(node.func) != "torch.device":
        return None
    if len(node.args) != 1:
        return None
    arg = node.args[0]
    if arg.keyword is not None and arg.keyword.value != "type":
        return None
    text = patterns.string_value(arg.value)
    if text is None or ":" in text or text not in INDEXED_DEVICE_TYPES:
        return None
    return arg.value, text


class DeviceComparedWithoutIndex(Rule):
    """A tensor's device compared with a string or an index-less device.

    ## What it does
    Finds `x.device == "cuda"`, `x.device == "cpu"` and `x.device ==
    torch.device("cuda")` (and `!=`), where `x.device` is a tensor's or a
    module's `torch.device`.

    ## Why is this bad?
    A `torch.device` never equals a string (`torch.device("cpu") == "cpu"` is
    `False`), and the device of a CUDA (or MPS, XPU, ...) tensor always carries
    an index: `cuda:0` is not equal to `torch.device("cuda")`. The comparison
    is always `False` (`!=` always `True`), so the branch meant for the GPU
    never runs, silently.

    ## Example
    ```python
    def to_numpy(x):
        if x.device == "cuda":
            x = x.cpu()
        return x.numpy()
    ```

    ## Use instead
    ```python
    def to_numpy(x):
        if x.device.type == "cuda":
            x = x.cpu()
        return x.numpy()
    ```

    ## Fix safety
    Safe: comparing the device type is what an index-less device means;
    a string with an index (`"cuda:1"`) is compared as `torch.device("cuda:1")`.
    The comparison becomes true where it was meant to be, which is the point.
    The fix needs `x.device` to be a `torch.device` (a configured `"cpu"`
    string has no `.type`): where `x` is not known to be a tensor (used or
    annotated as one, made by torch, `next(model.parameters())`, a Lightning
    module's `self`), the finding says so and the fix is shown, not applied.
    """

    code = "DEV402"
    name = "device-compared-without-index"
    message = "`{comparison}` is always {result}{condition}: {why}"
    fix_title = "Compare like this: `{fixed}`"
    fix_safety = FixSafety.SAFE
    # A `.device` on one side of `==`/`!=`, a string or a `...device(` call on the other.
    markers = (
        r"\.device",
        r"\.device\)*\s*[!=]=\s*(?:[rbuRBU]?[\"']|[\w.]*device\s*\()|(?:[\"']|\))\s*[!=]=\s*[\w.()\[\]]*\.device\b",
    )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return
        operator = "==" if isinstance(target.operator, cst.Equal) else "!="
        for device, other in ((node.left, target.comparator), (target.comparator, node.left)):
            if _is_device_attribute(self, device):
                self._check(node, device, other, operator)
                return

    def _check(
        self, node: cst.Comparison, device: cst.BaseExpression, other: cst.BaseExpression, operator: str
    ) -> None:
        result = "False" if operator == "==" else "True"
        text = patterns.string_value(other)
        device_code = self.ctx.describe(device)
        if text is not None:
            why = "a `torch.device` never equals a string"
            if ":" in text:
                torch_device, imports = self.ctx.spelling("torch.device")
                parts: tuple[str | cst.CSTNode, ...] = (device, f" {operator} {torch_device}(", other, ")")
                fixed = f"{device_code} {operator} {torch_device}({other.value})"  # type: ignore[attr-defined]
            else:
                imports = ()
                parts = (device, f".type {operator} ", other)
                fixed = f"{device_code}.type {operator} {other.value}"  # type: ignore[attr-defined]
        else:
            found = _indexless_device(self, other)
            if found is None:
                return
            string, kind = found
            why = f"a tensor's device always has an index (`{kind}:0`), which `{self.ctx.describe(other)}` lacks"
            imports = ()
            parts = (device, f".type {operator} ", string)
            fixed = f"{device_code}.type {operator} {string.value}"  # type: ignore[attr-defined]
        unproven = self._not_a_device(device)
        condition = f" if `{device_code}` is a `torch.device`" if unproven else ""
        fix = self.make_fix(
            ReplaceNode(node, *parts),
            *imports,
            safety=FixSafety.DISPLAY_ONLY if unproven else None,
            reason=unproven,
            fixed=fixed,
        )
        self.report(
            node, fix=fix, comparison=self.ctx.describe(node), result=result, condition=condition, why=why
        )

    def _not_a_device(self, device: cst.BaseExpression) -> str | None:
        """Why ``x.device`` may not be a ``torch.device`` (a configured string has no ``.type``)."""
        assert isinstance(device, cst.Attribute)
        types, point = self.ctx.types, self.ctx.proof.point(device)
        try:
            owner = ast.parse(self.ctx.code_for(device.value).strip(), mode="eval").body
        except SyntaxError:
            owner = None
        if types is None or point is None or owner is None:
            return f"`{self.ctx.describe(device)}` is not known to be a `torch.device`"
        cls = self.ctx.current_class
        lightning = cls is not None and self.ctx.symbols.is_lightning_module_class(cls.name.value)
        evidence = types.device_owner(owner, point, lightning=lightning)
        return None if evidence else evidence.reason


def _device_literal(node: cst.BaseExpression) -> str | None:
    text = patterns.string_value(node)
    return text.split(":")[0] if text is not None else None


class Float64OnMps(Rule):
    """A float64 tensor headed for an MPS device.

    ## What it does
    Finds float64 tensors placed on Apple's `mps` device in one expression:
    `torch.zeros(n, dtype=torch.float64, device="mps")`, `x.double().to("mps")`,
    `x.to("mps").double()`, `x.to("mps", torch.float64)`, where the device is
    `"mps"`, `torch.device("mps")`, a conditional choosing `"mps"`, or a name
    bound to one of these in the same function.

    ## Why is this bad?
    The MPS backend has no float64: the move fails with `Cannot convert a MPS
    Tensor to float64 dtype as the MPS framework doesn't support float64`, but
    only on a Mac, so CPU and CUDA tests never see it.

    ## Example
    ```python
    import torch

    device = torch.device("mps")
    weights = torch.ones(10, dtype=torch.float64, device=device)
    ```

    ## Use instead
    ```python
    import torch

    device = torch.device("mps")
    weights = torch.ones(10, dtype=torch.float32, device=device)
    ```

    ## Fix safety
    Display-only: float32 halves the precision, which may matter (accumulated
    sums, statistics); where it does, keep that computation on the CPU.
    """

    code = "DEV403"
    name = "float64-on-mps"
    message = "`{cast}` makes a float64 tensor for the `mps` device, which has no float64 support"
    fix_title = "Use `torch.float32` on MPS (or keep the float64 computation on the CPU)"
    fix_safety = FixSafety.DISPLAY_ONLY
    markers = (r"mps", r"float64|\bdouble\b")

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.symbols.qualify(node.func)
        if qualified in torch_api.TENSOR_FACTORIES or qualified in torch_api.LIKE_FACTORIES:
            dtype, device = patterns.keyword(node, "dtype"), patterns.keyword(node, "device")
            if dtype is not None and device is not None and self._float64(dtype.value) and self._mps(device.value):
                self._report(dtype.value)
            return
        method = patterns.method_name(node)
        if method == "to":
            dtype, device = self._to_arguments(node)
            if dtype is not None and device is not None and self._mps(device):
                self._report(dtype)
                return
            if device is not None and self._mps(device):
                found = self._float64_below(patterns.receiver(node))
                if found is not None:
                    self._report(found)
        if method == "double" or (method == "to" and self._to_arguments(node)[0] is not None):
            anchor = node.func.attr if method == "double" else self._to_arguments(node)[0]  # type: ignore[attr-defined]
            if self._mps_below(patterns.receiver(node)):
                self._report(anchor)

    def _report(self, anchor: cst.CSTNode) -> None:
        cast = (
            self.ctx.describe(anchor) if not isinstance(anchor, cst.Name) or anchor.value != "double" else ".double()"
        )
        self.report(anchor, fix=self.make_fix(), cast=cast)

    def _float64(self, node: cst.BaseExpression) -> bool:
        written = patterns.last_name(node) in ("float64", "double")  # what the marker finds, aliases aside
        return written and self.ctx.symbols.qualify(node) in _FLOAT64

    def _to_arguments(self, call: cst.Call) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None]:
        """The float64 dtype (if any) and the device argument of ``x.to(...)``."""
        dtype: cst.BaseExpression | None = None
        device: cst.BaseExpression | None = None
        for arg in call.args:
            if arg.star:
                continue
            if arg.keyword is not None:
                if arg.keyword.value == "dtype" and self._float64(arg.value):
                    dtype = arg.value
                elif arg.keyword.value == "device":
                    device = arg.value
            elif self._float64(arg.value):
                dtype = arg.value
            elif self.ctx.symbols.qualify(arg.value) not in torch_api.DTYPE_NAMES and device is None:
                device = arg.value
        return dtype, device

    def _float64_below(self, node: cst.BaseExpression | None) -> cst.CSTNode | None:
        """Where ``node`` (the receiver of a move to MPS) became float64, following device-preserving calls."""
        while isinstance(node, cst.Call):
            method = patterns.method_name(node)
            qualified = self.ctx.symbols.qualify(node.func)
            if method == "double":
                return node.func.attr  # type: ignore[attr-defined]
            if qualified in torch_api.TENSOR_FACTORIES:
                dtype = patterns.keyword(node, "dtype")
                return dtype.value if dtype is not None and self._float64(dtype.value) else None
            if method == "to":
                dtype, _ = self._to_arguments(node)
                if dtype is not None:
                    return dtype
                if any(self.ctx.symbols.qualify(a.value) in torch_api.DTYPE_NAMES for a in node.args):
                    return None  # cast to another dtype
            elif method in _OTHER_DTYPE_METHODS or method not in torch_api.DEVICE_PRESERVING_METHODS:
                return None
            node = patterns.receiver(node)
        return None

    def _mps_below(self, node: cst.BaseExpression | None) -> bool:
        """Is ``node`` (the receiver of a float64 cast) a tensor already moved to MPS?"""
        while isinstance(node, cst.Call):
            method = patterns.method_name(node)
            qualified = self.ctx.symbols.qualify(node.func)
            if qualified in torch_api.TENSOR_FACTORIES:
                device = patterns.keyword(node, "device")
                return device is not None and self._mps(device.value)
            if method == "to":
                _, device = self._to_arguments(node)
                if device is not None:
                    return self._mps(device)
            elif method not in torch_api.DEVICE_PRESERVING_METHODS:
                return False
            node = patterns.receiver(node)
        return False

    def _mps(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """Is this device expression ``mps`` (a literal, ``torch.device("mps")``, a conditional, a bound name)?"""
        if depth > 3:
            return False
        if _device_literal(node) == "mps":
            return True
        if isinstance(node, cst.Call) and self.ctx.symbols.qualify(node.func) == "torch.device" and node.args:
            return self._mps(node.args[0].value, depth + 1)
        if isinstance(node, cst.IfExp):
            return self._mps(node.body, depth + 1) or self._mps(node.orelse, depth + 1)
        if isinstance(node, cst.Name):
            scope = self.ctx.current_function or self.ctx.module
            for other in self.ctx.scope_nodes(scope):
                if isinstance(other, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == node.value for t in other.targets
                ):
                    if self._mps(other.value, depth + 1):
                        return True
        return False


class HardcodedCudaInScript(Rule):
    """Hard-coded CUDA in scripts, with no availability check.

    ## What it does
    Outside module code (which `DEV207` covers), finds `device = "cuda"`,
    `torch.device("cuda")`, `.to("cuda")`, `device="cuda"` and bare `.cuda()` in
    a function or script that never checks `torch.cuda.is_available()` (or
    `torch.backends.mps.is_available()`, `torch.accelerator`, `device_count()`).
    Off by default: it is a portability opinion, not a bug on a CUDA machine.

    ## Why is this bad?
    The script only runs where CUDA is: on a Mac it fails with `Torch not
    compiled with CUDA enabled` although MPS is there, and on a CPU-only CI
    runner it cannot even be smoke-tested.

    ## Example
    ```python
    import torch

    device = "cuda"
    model = build_model().to(device)
    ```

    ## Use instead
    ```python
    import torch

    device = torch.device(
        "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    )
    model = build_model().to(device)
    ```

    ## Fix safety
    Unsafe for a device assigned to a name: the fix selects CUDA, then MPS,
    then the CPU, so a machine without CUDA no longer fails but runs
    (possibly much slower) elsewhere. Inline uses (`.cuda()`,
    `device="cuda"`) are shown but not fixed: select the device once and use
    that variable.
    """

    code = "DEV404"
    name = "hardcoded-cuda-in-script"
    message = "`{code}` hard-codes CUDA with no availability check: the script fails on CPU-only and MPS machines"
    fix_title = "Select the device: {suggestion}"
    fix_safety = FixSafety.UNSAFE
    default_enabled = False
    markers = (r"\.cuda\s*\(|[\"']cuda(?::\d+)?[\"']",)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._checked: dict[int, bool] = {}
        self._handled: set[int] = set()

    def _applies(self) -> bool:
        if self.ctx.current_class is not None and self.ctx.symbols.is_local_module_class(
            self.ctx.current_class.name.value
        ):
            return False  # module code: DEV207
        function = self.ctx.current_function
        if function is not None and function.name.value in ("cuda", "to", "cpu", "_apply", "type"):
            return False  # implementing `.cuda()` / `.to()` is the one place CUDA belongs
        checked = self._checked.get(id(function))
        if checked is None:
            if function is not None:
                code = self.ctx.code_for(function)
            else:  # the script: its own statements only (functions are other units)
                code = "".join(
                    self.ctx.module.code_for_node(s)
                    for s in self.ctx.module.body
                    if not isinstance(s, (cst.FunctionDef, cst.ClassDef))
                )
            checked = self._checked[id(function)] = _AVAILABILITY_CHECK.search(code) is None
        return checked

    def _selection(self) -> tuple[str, tuple[InsertImport, ...]]:
        torch, imports = self.ctx.spelling("torch")
        return (
            f'{torch}.device("cuda" if {torch}.cuda.is_available() else "mps" '
            f'if {torch}.backends.mps.is_available() else "cpu")'
        ), imports

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        if not re.search(r"dev", node.targets[0].target.value, re.I) or not self._applies():
            return
        value = node.value
        literal = _device_literal(value)
        if literal is None and isinstance(value, cst.Call) and self.ctx.symbols.qualify(value.func) == "torch.device":
            first = patterns.positional(value, 0)
            literal = _device_literal(first.value) if first is not None and len(value.args) == 1 else None
        if literal != "cuda":
            return
        self._handled.add(id(value))
        string = value.args[0].value if isinstance(value, cst.Call) else value
        self._handled.add(id(string))
        if ":" in (patterns.string_value(string) or ""):
            self._display(value, value)  # a chosen GPU index: no generic replacement
            return
        selection, imports = self._selection()
        fix = self.make_fix(ReplaceNode(value, selection), *imports, suggestion=f"`{selection}`")
        self.report(value, fix=fix, code=self.ctx.describe(value))

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self._handled or not self._applies():
            return
        method = patterns.method_name(node)
        if method == "cuda":
            self._display(node.func.attr, node)  # type: ignore[attr-defined]
            return
        candidates: list[cst.BaseExpression] = []
        if method == "to":
            first = patterns.positional(node, 0)
            if first is not None:
                candidates.append(first.value)
        keyword = patterns.keyword(node, "device")
        qualified = self.ctx.symbols.qualify(node.func) or ""
        if keyword is not None and (method == "to" or qualified.startswith("torch.")):
            candidates.append(keyword.value)  # not any `device=` (a dataclass field, a config)
        if qualified == "torch.device" and node.args:
            candidates.append(node.args[0].value)
        for value in candidates:
            if id(value) not in self._handled and _device_literal(value) == "cuda":
                self._handled.add(id(value))
                self._display(value, value)

    def _display(self, anchor: cst.CSTNode, node: cst.CSTNode) -> None:
        fix = self.make_fix(
            safety=FixSafety.DISPLAY_ONLY,
            suggestion="choose CUDA, MPS or the CPU once (`device = ...`) and use `.to(device)`",
        )
        self.report(anchor, fix=fix, code=self.ctx.describe(node))


# The dtype each legacy typed constructor makes (``torch.Tensor``: the default dtype).
_LEGACY_DTYPES = {
    "torch.FloatTensor": "torch.float32",
    "torch.DoubleTensor": "torch.float64",
    "torch.HalfTensor": "torch.float16",
    "torch.BFloat16Tensor": "torch.bfloat16",
    "torch.LongTensor": "torch.int64",
    "torch.IntTensor": "torch.int32",
    "torch.ShortTensor": "torch.int16",
    "torch.CharTensor": "torch.int8",
    "torch.ByteTensor": "torch.uint8",
    "torch.BoolTensor": "torch.bool",
    "torch.Tensor": "torch.get_default_dtype()",
}


class LegacyConstructorWithDevice(Rule):
    """A legacy tensor constructor given a `device=` that may be an accelerator.

    ## What it does
    Finds the legacy typed constructors (`torch.LongTensor(...)`,
    `torch.FloatTensor(...)`, `torch.Tensor(...)`, ...) called with a
    `device=` argument that is not the CPU: a device variable, `x.device`, an
    accelerator literal.

    ## Why is this bad?
    These constructors make CPU tensors only: given any other device they fail
    with `legacy constructor expects device type: cpu but device type: cuda
    was passed`. The code runs on a CPU-only machine and breaks as soon as
    the device is a GPU.

    ## Example
    ```python
    import torch


    def edge_index(src, dst, device):
        return torch.LongTensor([src, dst], device=device)
    ```

    ## Use instead
    ```python
    import torch


    def edge_index(src, dst, device):
        return torch.tensor([src, dst], dtype=torch.int64, device=device)
    ```

    ## Fix safety
    Safe when the only positional argument is a list, tuple or comprehension
    written in the call (the data): `torch.tensor(data, dtype=..., device=...)`
    builds the same values with the constructor's dtype (`torch.Tensor`'s is
    the default dtype). Sizes (`torch.FloatTensor(3, 4, device=d)`, which
    makes uninitialised memory) become `torch.empty(3, 4, dtype=..., device=d)`,
    also safe. Any other argument (a name: data or a size?) leaves the fix
    shown but not applied.
    """

    code = "DEV405"
    name = "legacy-constructor-with-device"
    message = "`{call}` only makes CPU tensors, but is given `device={device}`, which may be an accelerator"
    fix_title = "Use `{replacement}` with the same dtype"
    fix_safety = FixSafety.SAFE
    markers = (r"Tensor\s*\(", r"device\s*=")

    def visit_Call(self, node: cst.Call) -> None:
        name = patterns.last_name(node.func) or ""
        if not name.endswith("Tensor"):
            return
        qualified = self.ctx.symbols.qualify(node.func)
        dtype = _LEGACY_DTYPES.get(qualified or "")
        device = patterns.keyword(node, "device")
        if dtype is None or device is None or self._cpu(device.value):
            return
        positional = [a for a in node.args if a.keyword is None]
        keywords = [a for a in node.args if a.keyword is not None]
        dtype_text, imports = self.ctx.spelling(dtype) if "(" not in dtype else self._default_dtype()
        data = len(positional) == 1 and isinstance(positional[0].value, (cst.List, cst.Tuple, cst.ListComp))
        sizes = bool(positional) and all(isinstance(a.value, cst.Integer) for a in positional)
        simple = not any(a.star for a in node.args) and all(
            a.keyword is not None and a.keyword.value == "device" for a in keywords
        )
        if simple and (data or sizes):
            factory, factory_imports = self.ctx.spelling("torch.tensor" if data else "torch.empty")
            parts: list[str | cst.CSTNode] = [f"{factory}("]
            for index, argument in enumerate(positional):
                parts += [", "] if index else []
                parts.append(argument.value)
            parts += [f", dtype={dtype_text}, device=", device.value, ")"]
            replacement = f"{factory}(..., dtype={dtype_text}, device=...)"
            fix = self.make_fix(ReplaceNode(node, *parts), *imports, *factory_imports, replacement=replacement)
        else:
            replacement = f"torch.tensor(..., dtype={dtype_text}, device=...)"
            reason = "the arguments may be data or sizes (`torch.tensor` or `torch.empty`)"
            fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, replacement=replacement)
        call = self.ctx.describe(node.func) + "(...)"
        self.report(node.func, fix=fix, call=call, device=self.ctx.describe(device.value))

    def _default_dtype(self) -> tuple[str, tuple[InsertImport, ...]]:
        torch, imports = self.ctx.spelling("torch")
        return f"{torch}.get_default_dtype()", imports

    def _cpu(self, node: cst.BaseExpression) -> bool:
        """``device="cpu"``, ``torch.device("cpu")``, ``device=None`` (the default, the CPU)."""
        if isinstance(node, cst.Name) and node.value == "None":
            return True
        if isinstance(node, cst.Call) and self.ctx.symbols.qualify(node.func) == "torch.device" and node.args:
            node = node.args[0].value
        return _device_literal(node) == "cpu"
