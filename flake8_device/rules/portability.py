"""DEV4xx: portability — code that only works on the machine (or the accelerator) it was written on."""

from __future__ import annotations

import ast
import re

import libcst as cst

from flake8_device.analysis import patterns, serialization, torch_api
from flake8_device.analysis.symbols import ast_dotted_name, top_level_definition
from flake8_device.model import Fix, FixSafety, InsertImport, ReplaceNode
from flake8_device.rule import Rule

# Device types whose tensors always carry an index (``cuda:0``), so ``torch.device("cuda")`` never equals theirs.
INDEXED_DEVICE_TYPES = frozenset({"cuda", "mps", "xpu", "hpu", "npu", "mlu", "mtia", "xla", "privateuseone"})
# Objects whose ``.device`` is usually a configured string, not a ``torch.device`` (also below them:
# ``cfg.model.device``).
_CONFIG_OWNER = re.compile(
    r"(?:^|\.)(?:args|arguments|cfg|config|conf|configs|opt|opts|options|hparams|hp|params|hyperparams|settings|"
    r"training_args|train_args|kwargs|flags|FLAGS|namespace|ns|cli_args|parsed_args)(?:$|\.)"
)
_FLOAT64 = frozenset({"torch.float64", "torch.double"})
# Casts that replace a float64 dtype (``.double().float()`` is float32 again).
_OTHER_DTYPE_METHODS = frozenset({"float", "half", "bfloat16", "int", "long", "short", "bool", "byte", "char"})
_AVAILABILITY_CHECK = re.compile(r"is_available\s*\(|device_count\s*\(|torch\.accelerator\b|is_built\s*\(")


class TorchLoadWithoutMapLocation(Rule):
    """`torch.load` without `map_location`, where the file can hold accelerator tensors this code may lack.

    ## What it does
    Finds `torch.load(f)` without `map_location` where the file shows both that
    the loaded file can hold accelerator tensors and that the code can run
    elsewhere: the same file saves the `state_dict()` of a model moved to a
    device (with a matching path, or for a load into a model); the loaded state
    goes into a model moved to a device (here, in its class, or by the caller
    that receives the model; a move to the model's own device,
    `m.to(next(m.parameters()).device)`, is none) or is moved itself; another `torch.load` beside it
    passes `map_location`; or it is a training checkpoint (it holds optimizer
    state, the weights' moving average (`ema`), or Lightning's
    `hyper_parameters`). The message says which.

    It stays silent for files the code itself saved with host values only
    (`x.cpu()`, shapes, numbers), for state loaded into an LR scheduler or a
    gradient scaler (numbers), for in-memory bytes (`io.BytesIO`), for files
    shipped with the package (a path built from `__file__`) or downloaded (a URL,
    a download helper), in a branch that checked `torch.cuda.is_available()`,
    in FSDP code or XLA checkpoint code (a file importing `torch_xla`
    unconditionally; one importing it only where a TPU is found runs
    elsewhere too), and where the code around the load only
    moves to CUDA literals (`.cuda()`): there the load works on the one machine
    the code runs on. `DEV405` (off by default) reports every other
    `torch.load` without `map_location`.

    ## Why is this bad?
    `torch.load` restores every tensor on the device it was saved from. A
    checkpoint saved during GPU training then fails to load on a CPU-only
    machine or a Mac (`Attempting to deserialize object on a CUDA device but
    torch.cuda.is_available() is False`), and on a multi-GPU machine every
    process loads it onto `cuda:0`.

    ## Example
    ```python
    import torch

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(4, 2).to(device)
    model.load_state_dict(torch.load("checkpoint.pt"))
    ```

    ## Use instead
    ```python
    import torch

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(4, 2).to(device)
    model.load_state_dict(torch.load("checkpoint.pt", map_location=device))
    ```

    ## Fix safety
    Safe when it passes the device the evidence names (`map_location=device`)
    and that name is definitely bound at the load in its scope (a parameter, a
    local assigned on every path before it, a module-level name assigned before
    the function, `self.<attr>` set at the top of `__init__`); else safe with
    `map_location="cpu"` where the state is copied into a model
    (`load_state_dict`) or moved afterwards, which decides where it ends up.
    Otherwise unsafe: the device name is not provably bound there, or the loaded
    tensors would stay on the CPU where the code may expect the saved device.
    """

    code = "DEV401"
    name = "torch-load-without-map-location"
    message = (
        "`{call}` without `map_location` restores tensors on the device they were saved from "
        "({evidence}), and fails where that device is missing"
    )
    fix_title = "Pass `map_location={device}`{why}"
    fix_safety = FixSafety.SAFE
    markers = (r"load\s*\(", r"(?<![\w])load\s*\(")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._seen: dict[tuple[tuple[str, ...], str], int] = {}

    def facts(self, node: cst.Call) -> serialization.LoadFacts | None:
        """The serialisation facts of this ``torch.load`` call (None when it is not an unmapped one)."""
        if self.ctx.symbols.qualify(node.func) != "torch.load":
            return None
        if patterns.keyword(node, "map_location") is not None or any(a.star for a in node.args):
            return None
        if patterns.positional(node, 1) is not None:
            return None
        facts = serialization.facts_for(self.ctx)
        if facts is None:
            return None
        path = tuple(scope.name.value for scope in self.ctx.scopes)
        code = serialization.normalized(self.ctx.code_for(node))
        ordinal = self._seen.get((path, code), 0)
        self._seen[(path, code)] = ordinal + 1
        return facts.load(path, code, ordinal)

    def visit_Call(self, node: cst.Call) -> None:
        facts = self.facts(node)
        if facts is None or facts.evidence is None:
            return
        call = self.ctx.describe(node.func) + "(...)"
        self.report(node.func, fix=_map_location_fix(self, node, facts), call=call, evidence=facts.evidence.reason)


def _map_location_fix(rule: Rule, node: cst.Call, facts: serialization.LoadFacts) -> Fix:
    if facts.device is not None and rule.ctx.proof.unbound(facts.device, at=node) is None:
        device, safety, why = facts.device, FixSafety.SAFE, ""  # bound on every path to the load
    elif facts.cpu_fits:
        device, safety, why = '"cpu"', FixSafety.SAFE, ""
    elif facts.device is not None and facts.device_visible:
        device, safety = facts.device, FixSafety.UNSAFE
        why = f" (unsafe: `{facts.device}` is not bound on every path to this call)"
    elif facts.device is not None:
        device, safety = facts.device, FixSafety.DISPLAY_ONLY
        why = f" (shown only: no `{facts.device}` is bound here; name the device this code runs on)"
    else:
        device, safety = '"cpu"', FixSafety.UNSAFE
        why = " (unsafe: the loaded tensors then stay on the CPU)"
    replaced, parts = patterns.keyword_added(node, "map_location", device)
    return rule.make_fix(ReplaceNode(replaced, *parts), safety=safety, device=device, why=why)


class TorchLoadWithoutAnyMapLocation(Rule):
    """Any `torch.load` without `map_location` (the opinionated check).

    ## What it does
    Finds every `torch.load(f)` without `map_location` that `DEV401` does not
    report (with both on, one load gets one finding), except in-memory bytes
    (`io.BytesIO`). Off by default: most such loads read files the code saved on
    the CPU itself, published weights or data; this is a house style that makes
    every load say where its tensors go.

    ## Why is this bad?
    Without `map_location`, where the tensors end up depends on where the file
    was written: a file that holds accelerator tensors fails to load on a
    machine without that accelerator, and loads onto `cuda:0` in every process
    of a multi-GPU job. Nothing in the call says which kind of file it is.

    ## Example
    ```python
    import torch

    def read_features(path):
        return torch.load(path)
    ```

    ## Use instead
    ```python
    import torch

    def read_features(path):
        return torch.load(path, map_location="cpu")
    ```

    ## Fix safety
    Safe where the loaded state is copied into a model (`load_state_dict`) or
    moved afterwards; otherwise unsafe, since the tensors then stay on the CPU
    where the code may expect the device they were saved from.
    """

    code = "DEV405"
    name = "torch-load-map-location-unspecified"
    message = "`{call}` without `map_location`: where its tensors land depends on where the file was written"
    fix_title = "Pass `map_location={device}`{why}"
    fix_safety = FixSafety.UNSAFE
    default_enabled = False
    markers = (r"load\s*\(", r"(?<![\w])load\s*\(")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._dev401 = TorchLoadWithoutMapLocation(ctx)

    def visit_Call(self, node: cst.Call) -> None:
        facts = self._dev401.facts(node)
        if facts is None or facts.evidence is not None:
            return  # DEV401's, or not an unmapped load
        if facts.quiet is not None and "BytesIO" in facts.quiet:
            return
        self.report(node.func, fix=_map_location_fix(self, node, facts), call=self.ctx.describe(node.func) + "(...)")


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
    torch.device("cuda")` (and `!=`, also inside a chain such as `a.device ==
    b.device == "cuda"`), where `x.device` is a tensor's or a module's
    `torch.device`, or a name bound to a `torch.device` (`torch.device(...)`,
    or a function of the file that returns only `torch.device(...)`) compared
    with a string, or a parameter whose annotation admits a `torch.device`
    (`device: Union[str, torch.device]`) compared with a device string (not a
    sentinel such as `"auto"`): false whenever a caller passes the
    `torch.device` the annotation allows. Also finds `device.index` of such a
    name ordered against a number (`device.index >= torch.cuda.device_count()`)
    with no check that the index is there.

    ## Why is this bad?
    A `torch.device` never equals a string (`torch.device("cpu") == "cpu"` is
    `False`), and the device of a CUDA (or MPS, XPU, ...) tensor always carries
    an index: `cuda:0` is not equal to `torch.device("cuda")`. The comparison
    is always `False` (`!=` always `True`), so the branch meant for the GPU
    never runs, silently. The index of `torch.device("cuda")` is `None`, so
    ordering it raises `TypeError`.

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
    Display-only inside a chain of comparisons and for an index (take the
    index as `device.index or 0`, or compare types, as the code means).
    The fix needs `x.device` to be a `torch.device` (a configured `"cpu"`
    string has no `.type`): where `x` is not known to be a tensor (used or
    annotated as one, made by torch, `next(model.parameters())`, a Lightning
    module's `self`), the fix is shown, not applied. A parameter that may be a
    string or a device is compared as `torch.device(device).type`.
    """

    code = "DEV402"
    name = "device-compared-without-index"
    message = "`{comparison}` {outcome}: {why}"
    fix_title = "Compare like this: `{fixed}`"
    fix_safety = FixSafety.SAFE
    # A device on one side of `==`/`!=`, a string or a `...device(` call on the other; or a device's index ordered.
    markers = (
        r"device",
        (
            r"\.device\)*\s*[!=]=\s*(?:[rbuRBU]?[\"']|[\w.]*device\s*\()|(?:[\"']|\))\s*[!=]=\s*[\w.()\[\]]*\.device\b",
            r"\w*device\w*\s*[!=]=\s*[rbuRBU]?[\"']|[\"']\s*[!=]=\s*\w*device",
            r"device\w*\.index\s*[<>]|[<>]=?\s*\w*device\w*\.index\b",
        ),
    )

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._names: dict[int, set[str]] = {}
        # Parameters annotated to admit a ``torch.device`` or a string, by scope (see ``_device_names``).
        self._either: dict[int, set[str]] = {}

    def visit_Comparison(self, node: cst.Comparison) -> None:
        chained = len(node.comparisons) > 1
        left = node.left
        for target in node.comparisons:
            right = target.comparator
            if isinstance(target.operator, (cst.Equal, cst.NotEqual)):
                operator = "==" if isinstance(target.operator, cst.Equal) else "!="
                for device, other in ((left, right), (right, left)):
                    if _is_device_attribute(self, device):
                        if self._check(node, device, other, operator, chained=chained):
                            return
                    elif self._device_name(device) and patterns.string_value(other) is not None:
                        if self._check(node, device, other, operator, chained=chained):
                            return
            elif not chained and isinstance(target.operator, _ORDERINGS):
                for index in (left, right):
                    if self._indexless_index(index):
                        self._report_index(node, index)
                        return
            left = right

    def _device_name(self, node: cst.BaseExpression) -> bool:
        """A name of this function bound only to ``torch.device(...)`` (directly or by a function of the file)."""
        return isinstance(node, cst.Name) and node.value in self._device_names()

    def _device_names(self) -> set[str]:
        scope = self.ctx.current_function or self.ctx.module
        names = self._names.get(id(scope))
        if names is None:
            bound: dict[str, list[cst.BaseExpression]] = {}
            elsewhere: set[str] = set()  # bound by a loop, a `with`, `:=`, `+=`: not only devices
            for other in self.ctx.scope_nodes(scope):
                if isinstance(other, cst.Assign):
                    for target in other.targets:
                        if isinstance(target.target, cst.Name):
                            bound.setdefault(target.target.value, []).append(other.value)
                elif isinstance(other, (cst.For, cst.CompFor)) and isinstance(other.target, cst.Name):
                    elsewhere.add(other.target.value)
                elif isinstance(other, cst.AsName) and isinstance(other.name, cst.Name):
                    elsewhere.add(other.name.value)
                elif isinstance(other, (cst.NamedExpr, cst.AugAssign, cst.AnnAssign)):
                    if isinstance(other.target, cst.Name):
                        elsewhere.add(other.target.value)
            params = set()
            annotated = set()
            if self.ctx.current_function is not None:
                fn = self.ctx.current_function.params
                every = (*fn.posonly_params, *fn.params, *fn.kwonly_params)
                params = {p.name.value for p in every}
                # ``device: Union[str, torch.device]``: the callers may pass a ``torch.device``.
                annotated = {
                    p.name.value
                    for p in every
                    if p.annotation is not None
                    and self.ctx.symbols.annotation_admits(self.ctx.code_for(p.annotation.annotation), "torch.device")
                }
            either = self._either[id(scope)] = {n for n in annotated if n not in bound and n not in elsewhere}
            names = self._names[id(scope)] = {
                name
                for name, values in bound.items()
                if name not in params | elsewhere and all(self._makes_device(v) for v in values)
            } | either
        return names

    def _makes_device(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        if self.ctx.symbols.qualify(value.func) == "torch.device":
            return True
        return isinstance(value.func, cst.Name) and _returns_devices(self.ctx, value.func.value)

    def _indexless_index(self, node: cst.BaseExpression) -> bool:
        """``device.index`` of a name built by ``torch.device(...)`` without an index, never checked for None.

        Reading ``.index`` means the name holds a device there; the name may be rebound to other
        things elsewhere (a parameter made into a device, a fallback string later on)."""
        if not (isinstance(node, cst.Attribute) and node.attr.value == "index" and isinstance(node.value, cst.Name)):
            return False
        name = node.value.value
        scope = self.ctx.current_function or self.ctx.module
        built = False
        for other in self.ctx.scope_nodes(scope):
            if isinstance(other, cst.Comparison) and any(
                isinstance(t.operator, (cst.Is, cst.IsNot)) for t in other.comparisons
            ):
                if f"{name}.index" in self.ctx.code_for(other):
                    return False  # the missing index is handled
            if isinstance(other, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in other.targets
            ):
                value = other.value
                if isinstance(value, cst.Call) and self._makes_device(value):
                    first = patterns.positional(value, 0)
                    literal = first is not None and isinstance(first.value, _STRINGS)
                    if len(value.args) > 1 or (literal and ":" in self.ctx.code_for(first.value)):  # type: ignore
                        return False  # built with an index
                    built = True
        return built

    def _report_index(self, node: cst.Comparison, index: cst.BaseExpression) -> None:
        owner = self.ctx.describe(index.value)  # type: ignore[attr-defined]
        why = f"`{owner}.index` is None for a device built without one (`torch.device(\"cuda\")`)"
        fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, fixed=f"({owner}.index or 0)")
        self.report(node, fix=fix, comparison=self.ctx.describe(node), outcome="raises TypeError", why=why)

    def _check(
        self,
        node: cst.Comparison,
        device: cst.BaseExpression,
        other: cst.BaseExpression,
        operator: str,
        *,
        chained: bool = False,
    ) -> bool:
        result = "False" if operator == "==" else "True"
        text = patterns.string_value(other)
        device_code = self.ctx.describe(device)
        scope = self.ctx.current_function or self.ctx.module
        either = isinstance(device, cst.Name) and device.value in self._either.get(id(scope), ())
        if either and (text is None or text.split(":")[0] not in _DEVICE_TYPES):
            return False  # (``device != "auto"``: a sentinel the string form may hold, not a device)
        if text is not None:
            why = "a `torch.device` never equals a string"
            torch_device, imports = self.ctx.spelling("torch.device")
            # (A parameter that may be either is made a device first: ``torch.device(device).type``.)
            placed: tuple[str | cst.CSTNode, ...] = (f"{torch_device}(", device, ")") if either else (device,)
            placed_code = f"{torch_device}({device_code})" if either else device_code
            if ":" in text:
                parts: tuple[str | cst.CSTNode, ...] = (*placed, f" {operator} {torch_device}(", other, ")")
                fixed = f"{placed_code} {operator} {torch_device}({other.value})"  # type: ignore[attr-defined]
            else:
                imports = imports if either else ()
                parts = (*placed, f".type {operator} ", other)
                fixed = f"{placed_code}.type {operator} {other.value}"  # type: ignore[attr-defined]
        else:
            found = _indexless_device(self, other)
            if found is None:
                return False
            string, kind = found
            why = f"a tensor's device always has an index (`{kind}:0`), which `{self.ctx.describe(other)}` lacks"
            imports = ()
            parts = (device, f".type {operator} ", string)
            fixed = f"{device_code}.type {operator} {string.value}"  # type: ignore[attr-defined]
        if chained:
            outcome = "is always False" if operator == "==" else "may be always True"
            fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, fixed=fixed)
        else:
            outcome = f"is always {result}"
            if either:
                why = "its annotation admits one, and a `torch.device` never equals a string"
                outcome = f"is {result} when `{device_code}` is a `torch.device`"
            unproven = self._not_a_device(device)
            fix = self.make_fix(
                ReplaceNode(node, *parts),
                *imports,
                safety=FixSafety.DISPLAY_ONLY if unproven else None,
                reason=unproven,
                fixed=fixed,
            )
        self.report(node, fix=fix, comparison=self.ctx.describe(node), outcome=outcome, why=why)
        return True

    def _not_a_device(self, device: cst.BaseExpression) -> str | None:
        """Why ``x.device`` may not be a ``torch.device`` (a configured string has no ``.type``)."""
        if not isinstance(device, cst.Attribute):
            return None  # a name bound to `torch.device(...)` (see the callers)
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


_STRINGS = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
_ORDERINGS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def _returns_devices(ctx, name: str) -> bool:  # type: ignore[no-untyped-def]
    """Is ``name`` a function of this file, or one it imports from the project's modules, whose
    every ``return`` gives ``torch.device(...)``?"""
    cache = ctx.__dict__.setdefault("_device_returning_functions", {})
    found = cache.get(name)
    if found is None:
        found = False
        definition = top_level_definition(ctx.tree, name, _FUNCTIONS) if ctx.tree is not None else None
        symbols = ctx.symbols
        if definition is None and name in symbols.from_imports:
            imported = ctx.project_function(*symbols.from_imports[name])
            if imported is not None:
                definition = top_level_definition(imported[0].tree, imported[1], _FUNCTIONS)
                symbols = imported[0].symbols
        if definition is not None:
            returns = [n.value for n in ast.walk(definition) if isinstance(n, ast.Return) and n.value is not None]
            found = bool(returns) and all(
                isinstance(r, ast.Call) and symbols.qualify_dotted(ast_dotted_name(r.func)) == "torch.device"
                for r in returns
            )
        cache[name] = found
    return found


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _device_literal(node: cst.BaseExpression) -> str | None:
    text = patterns.string_value(node)
    return text.split(":")[0] if text is not None else None


class Float64OnMps(Rule):
    """A float64 tensor headed for an MPS device.

    ## What it does
    Finds float64 tensors placed on Apple's `mps` device in one expression:
    `torch.zeros(n, dtype=torch.float64, device="mps")`, `x.double().to("mps")`,
    `x.to("mps").double()`, `x.to("mps", torch.float64)`, where the device is
    `"mps"`, `torch.device("mps")`, a conditional choosing `"mps"`, a device
    that is MPS on Apple machines (Accelerate's `accelerator.device`,
    `torch.accelerator.current_accelerator()`), or a name bound to one of these
    in the same function.

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
    message = "`{cast}` makes a float64 tensor for {where}, and MPS has no float64 support"
    fix_title = "Use `torch.float32` on MPS (or keep the float64 computation on the CPU)"
    fix_safety = FixSafety.DISPLAY_ONLY
    markers = (r"mps|accelerator\.device|current_accelerator\s*\(", r"float64|\bdouble\b")

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
        where = self._where or "the `mps` device"
        self.report(anchor, fix=self.make_fix(), cast=cast, where=where)

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

    _where: str | None = None

    def _mps(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """Is this device expression ``mps`` (a literal, ``torch.device("mps")``, a conditional, a bound name), or
        one that is MPS on Apple machines (Accelerate's ``accelerator.device``,
        ``torch.accelerator.current_accelerator()``)?"""
        if depth == 0:
            self._where = None
        if depth > 3:
            return False
        if _device_literal(node) == "mps":
            return True
        if isinstance(node, cst.Attribute) and node.attr.value == "device" and (
            patterns.last_name(node.value) == "accelerator"
        ):
            self._where = f"`{self.ctx.describe(node)}`, which is `mps` on Apple machines"
            return True
        qualified = self.ctx.symbols.qualify(node.func) if isinstance(node, cst.Call) else None
        if qualified == "torch.accelerator.current_accelerator":
            self._where = f"`{self.ctx.describe(node)}`, which is `mps` on Apple machines"
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

    code = "DEV408"
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


# Device types a fallback chooses between (``"cuda"``, ``"cpu"``, ``"mps:0"``).
_DEVICE_TYPES = frozenset({"cpu", *INDEXED_DEVICE_TYPES, "meta"})


class DeviceFallbackPrecedence(Rule):
    """A device fallback whose `or` binds tighter than its conditional.

    ## What it does
    Finds a device chosen with `requested or "cuda" if condition else "cpu"`:
    a conditional expression whose first branch is an unparenthesized `or`
    fallback, where the fallback and the other branch are devices.

    ## Why is this bad?
    Python reads it as `(requested or "cuda") if condition else "cpu"`, not
    as `requested or ("cuda" if condition else "cpu")`: wherever the
    condition fails (no CUDA, on a Mac or a CPU-only runner), the device the
    caller asked for (`"mps"`, `"meta"`, `"cuda:1"`) is dropped for the CPU.
    The object placed this way ends up away from the rest of the program,
    which honours the request, and fails with `Expected all tensors to be on
    the same device`, or silently runs on the CPU.

    ## Example
    ```python
    import torch
    from torch import nn


    def build_head(device=None):
        device = device or "cuda" if torch.cuda.is_available() else "cpu"
        return nn.Linear(8, 2).to(device)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn


    def build_head(device=None):
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        return nn.Linear(8, 2).to(device)
    ```

    ## Fix safety
    Unsafe: the fix adds the parentheses the fallback means, which changes the
    device chosen wherever the condition fails and a device was requested.
    """

    code = "DEV406"
    name = "device-fallback-precedence"
    message = (
        "`{code}` reads as `({left} or {fallback}) if ...`: where the condition fails, "
        "`{left}` is dropped for `{other}`"
    )
    fix_title = "Parenthesize the conditional: `{left} or ({fallback} if ... else {other})`"
    fix_safety = FixSafety.UNSAFE
    # (``or`` first, its word boundary checked after it: a pattern that starts with a literal is
    # scanned for much faster than one that starts with ``\b``.)
    markers = (r"or(?<!\wor)\b[^\n]*\bif\b[^\n]*\belse\b",)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        chosen = node.body
        if not (
            isinstance(chosen, cst.BooleanOperation)
            and isinstance(chosen.operator, cst.Or)
            and not chosen.lpar
            and self._device(chosen.right)
            and self._device(node.orelse)
        ):
            return
        left, fallback, other = (self.ctx.describe(n) for n in (chosen.left, chosen.right, node.orelse))
        fix = self.make_fix(
            ReplaceNode(
                node,
                chosen.left,
                " or (",
                chosen.right,
                " if ",
                node.test,
                " else ",
                node.orelse,
                ")",
            ),
            left=left,
            fallback=fallback,
            other=other,
        )
        self.report(node, fix=fix, code=self.ctx.describe(node), left=left, fallback=fallback, other=other)

    def _device(self, node: cst.BaseExpression) -> bool:
        """A device written out: a device string, ``torch.device`` of one, or a conditional of them."""
        if isinstance(node, cst.IfExp):
            return self._device(node.body) and self._device(node.orelse)
        if isinstance(node, cst.Call) and self.ctx.symbols.qualify(node.func) == "torch.device" and node.args:
            node = node.args[0].value
        text = patterns.string_value(node)
        return text is not None and text.split(":")[0] in _DEVICE_TYPES


# Calls that pin the whole process (or a block) to one GPU.
_GPU_PINS = frozenset({"torch.cuda.set_device", "torch.cuda.device"})
_GPU_INDEX = re.compile(r"(?:cuda:)?(\d+)")


class HardcodedGpuIndex(Rule):
    """The process pinned to a non-zero GPU written as a literal.

    ## What it does
    Finds `torch.cuda.set_device(...)` and `torch.cuda.device(...)` given a
    literal GPU index other than 0: `set_device(6)`, `set_device("cuda:6")`,
    `set_device(torch.device("cuda:2"))`.

    ## Why is this bad?
    The index is the author's machine: anywhere with fewer GPUs the call fails
    with `CUDA error: invalid device ordinal`, and on a machine without CUDA
    it fails even when the script was asked to run on the CPU. The GPU to use
    belongs to the launcher (`LOCAL_RANK`, `CUDA_VISIBLE_DEVICES`) or to a
    command-line option.

    ## Example
    ```python
    import torch

    torch.cuda.set_device("cuda:6")
    ```

    ## Use instead
    ```python
    import os

    import torch

    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
    ```

    ## Fix safety
    Unsafe for a device string: the fix names the first visible GPU
    (`set_device("cuda:0")`, since CUDA refuses `set_device("cuda")`) or, for
    the context manager, CUDA without an index (the current GPU), which
    changes the GPU used on the author's machine. A bare index is shown but
    not fixed.
    """

    code = "DEV407"
    name = "hardcoded-gpu-index"
    message = "`{call}` pins GPU {index}: it fails with `invalid device ordinal` on machines with fewer GPUs"
    fix_title = "Let the launcher or an option choose the GPU{suggestion}"
    fix_safety = FixSafety.UNSAFE
    markers = (r"set_device|cuda\.device\s*\(",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.symbols.qualify(node.func) not in _GPU_PINS or len(node.args) != 1:
            return
        argument = node.args[0].value
        if isinstance(argument, cst.Call) and self.ctx.symbols.qualify(argument.func) == "torch.device":
            if len(argument.args) != 1:
                return
            argument = argument.args[0].value
        text = argument.value if isinstance(argument, cst.Integer) else patterns.string_value(argument)
        match = _GPU_INDEX.fullmatch(text or "")
        if match is None or int(match.group(1)) == 0 or (isinstance(argument, cst.SimpleString) and ":" not in text):
            return
        call = self.ctx.describe(node)
        if isinstance(argument, cst.SimpleString):
            quote = argument.quote
            # set_device needs an index (CUDA refuses a bare "cuda"); the context manager takes none
            name = "cuda:0" if self.ctx.symbols.qualify(node.func) == "torch.cuda.set_device" else "cuda"
            fix = self.make_fix(ReplaceNode(argument, f"{quote}{name}{quote}"), suggestion=f": `{quote}{name}{quote}`")
        else:
            fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, suggestion="")
        self.report(argument, fix=fix, call=call, index=match.group(1))
