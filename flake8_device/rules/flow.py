"""DEV2xx: device flow — values on different devices meeting, and moves that go nowhere.

Every rule here reads the events of :mod:`flake8_device.analysis.flow`; none
of them looks at the code itself beyond building its fix.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import libcst as cst

from flake8_device import fixes
from flake8_device import markers as marker
from flake8_device.analysis import cuda_guards, patterns, torch_api
from flake8_device.analysis.flow import Kind, Value, events, tensor_inputs
from flake8_device.analysis.flow.syntax import target_paths
from flake8_device.analysis.flow.knowledge import names_cpu
from flake8_device.analysis.symbols import dotted_name
from flake8_device.analysis.types import Evidence
from flake8_device.context import Place
from flake8_device.model import Fix, FixSafety, ReplaceNode, SwapStatements
from flake8_device.rule import Rule
from flake8_device.walk import children

if TYPE_CHECKING:
    from flake8_device.context import FileContext


def describe_host(rule: Rule, value: Value) -> str:
    """How a host value got there, for messages: "`outputs.cpu()`", "a batch from `loader`"."""
    origin = value.origin
    if isinstance(origin, cst.Call):
        if patterns.method_name(origin) == "cpu":
            return f"moved by `{rule.ctx.describe(origin)}`"
        if patterns.method_name(origin) == "to":  # `.to("cpu")`, or a device that is None or "cpu" there
            return f"`{rule.ctx.describe(origin)}` puts it on the CPU"
        if _built_and_never_moved(rule, value):
            return f"built by `{rule.ctx.describe(origin.func)}(...)` and never moved"
        return f"made by `{rule.ctx.describe(origin.func)}(...)` without `device=`"
    if origin is not None:
        return f"from the data loader `{rule.ctx.describe(origin)}`"
    return "on the host"


def _built_and_never_moved(rule: Rule, value: Value) -> bool:
    """Is the host ``value`` a module as its construction left it (not moved by ``.cpu()``/``.to()``)?"""
    origin = value.origin
    return (
        isinstance(origin, cst.Call)
        and patterns.method_name(origin) not in ("cpu", "to")
        and (value.module is True or rule.ctx.symbols.is_module_constructor(origin.func))
    )


def _scopes_of(
    module: cst.Module, nodes: tuple[cst.CSTNode, ...]
) -> dict[int, tuple[cst.ClassDef | None, cst.FunctionDef | None]]:
    """The innermost class and function holding each of ``nodes`` (by id; absent: not in ``module``).
    (A walk with a stack of its own: a file nested deeper than Python's recursion limit is walked too.)"""
    wanted = {id(n) for n in nodes}
    found: dict[int, tuple[cst.ClassDef | None, cst.FunctionDef | None]] = {}
    todo: list[tuple[cst.CSTNode, cst.ClassDef | None, cst.FunctionDef | None]] = [(module, None, None)]
    while todo and len(found) < len(wanted):
        node, owner, function = todo.pop()
        if id(node) in wanted:
            found[id(node)] = (owner, function)
        if isinstance(node, cst.ClassDef):
            owner = node
        elif isinstance(node, cst.FunctionDef):
            function = node
        todo.extend((child, owner, function) for child in reversed(children(node)))
    return found


def _grouped(code: str) -> str:
    """``code`` ready for a method call after it: ``(mask == 0)`` for ``mask == 0``."""
    try:
        expression = ast.parse(code, mode="eval").body
    except SyntaxError:
        return code
    primary = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict)
    return code if isinstance(expression, primary) else f"({code})"


def device_text(value: Value) -> str:
    """Where an accelerator value lives, for messages: the device as the code writes it, in
    backticks (`device`, `"cuda:1"`, `0`), CUDA for a `.cuda()` move, else "the accelerator"."""
    if value.device is None:
        return "the accelerator"
    if (value.move or "").startswith(".cuda"):  # `.cuda()` names no device: the analysis says "cuda"
        return "CUDA"
    return f"`{value.device}`"


def _made_where_fixed(
    rule: Rule,
    host: Value,
    meeting: cst.CSTNode,
    scopes: dict[int, tuple[cst.ClassDef | None, cst.FunctionDef | None]],
) -> cst.Call | None:
    """The call that made a host value, where the fix goes: a tensor factory without ``device=`` of
    this file, or the construction of a module never moved in the function (or the class) where
    it meets the device value (a model a caller or a helper builds may be used elsewhere as it is:
    there the use is what to fix)."""
    origin = host.origin
    if not isinstance(origin, cst.Call) or patterns.keyword(origin, "device") is not None:
        return None
    module = _built_and_never_moved(rule, host)
    if not module and rule.ctx.symbols.qualify(origin.func) not in torch_api.TENSOR_FACTORIES:
        return None
    made, met = scopes.get(id(origin)), scopes.get(id(meeting))
    if made is None or met is None:
        return None  # (made in another module of the project: reported where it meets)
    if module and not (made[1] is met[1] or (made[0] is not None and made[0] is met[0])):
        return None
    return origin


class MixedDevices(Rule):
    """Host and accelerator tensors meet in one operation.

    ## What it does
    Follows where each tensor lives and reports an operation (arithmetic, a
    `torch.*` or `F.*` call, a loss, a metric update, a model call) whose
    operands are certainly on different devices: one on the CPU, one moved to
    an accelerator. Arguments an operation takes wherever they are (the CTC
    loss's targets and lengths, the count of `torch.multinomial`) meet
    nothing.

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

    Where the host value is made by a tensor factory without `device=`
    (`torch.zeros(n)`) or is a module built and never moved, the finding is
    reported where it is made, the line a fix changes, and the message names
    the line where it meets the device tensor; what meets device tensors in
    several places is one finding.

    ## Fix safety
    Display-only. Which side should move (the host value to the device, or the
    device value to the host) depends on intent and cost; the message names
    both values and the move that would align them.
    """

    code = "DEV201"
    uses_flow = True
    name = "mixed-devices"
    message = "`{host}` is on the CPU ({why}) but `{accel}` is on {device}; they meet in {operation}{at}"
    fix_title = "Align the devices, e.g. `{host}{move}` or `{accel}.cpu()`"
    fix_safety = FixSafety.DISPLAY_ONLY
    # One side of the meeting shows where it is reported; the other may come from a caller, the
    # class or a helper elsewhere in the file.
    markers = (marker.MEETING_SIDE,)
    file_markers = (marker.ACCELERATOR_SOURCE, (marker.HOST_SOURCE, marker.MODULE_CONSTRUCTOR_CALL))

    def visit_Module(self, node: cst.Module) -> None:
        mixes = [
            event
            for event in self.ctx.flow.events_of(events.Mix)
            # (DEV209 reports a host tensor made from NumPy under a default device where the array
            # becomes a tensor; DEV102 a module's plain tensor attribute where it is kept.)
            if from_numpy_under_default_device(self, event.host.value) is None and event.host.value.held is None
        ]
        # Where each value was made and where it meets: one walk of the file for all of them.
        places = [n for e in mixes if e.host.value.origin is not None for n in (e.host.value.origin, e.host.expr)]
        scopes = _scopes_of(node, tuple(places))
        made: set[int] = set()  # the factories reported (one finding each, wherever their tensors meet)
        for event in mixes:
            host = self.ctx.describe(event.host.expr)
            accel = self.ctx.describe(event.accel.expr)
            operation = event.operation
            if host == accel:
                # Two elements of one container (``parts = [x, y]; torch.cat(parts)``): named by
                # where each was made, where that is known.
                operation = f"{operation} (both in `{host}`)"
                if event.host.value.origin is not None:
                    host = self.ctx.describe(event.host.value.origin)
                if event.accel.value.origin is not None:
                    accel = self.ctx.describe(event.accel.value.origin)
            move = event.accel.value.move or f".to({event.accel.value.device or 'device'})"
            fix = self.make_fix(host=_grouped(host), accel=_grouped(accel), move=move)
            factory = _made_where_fixed(self, event.host.value, event.host.expr, scopes)
            if factory is not None and id(factory) in made:
                continue
            if factory is not None:
                made.add(id(factory))
            self.report(
                event.host.expr if factory is None else factory.func,
                fix=fix,
                related=[
                    (event.host.value.origin, f"`{host}` gets its place on the CPU here"),
                    (event.accel.value.origin, f"`{accel}` gets its place on {device_text(event.accel.value)} here"),
                ],
                host=host,
                accel=accel,
                why=describe_host(self, event.host.value),
                device=device_text(event.accel.value),
                operation=operation,
                at=Place(event.host.expr),
            )


# A ``torch.distributions`` class built (its parameters decide where it samples): by its module, or
# by one of the names it is usually imported as.
_DISTRIBUTION_NAMES = ("Uniform", "Normal", "Bernoulli", "Beta", "Gamma", "Exponential", "Laplace")
_DISTRIBUTION = rf"distributions\.[A-Z]\w*\s*\(|\b(?:{'|'.join(_DISTRIBUTION_NAMES)})\s*\("


class TensorCreatedWithoutDevice(Rule):
    """Tensor created without `device=` in model code.

    ## What it does
    In a module's methods (or any function taking tensors), finds tensors made
    by a factory (`torch.arange`, `torch.zeros`, `torch.ones`, ...) without
    `device=` that are then combined with the inputs or the module's own
    parameters, such as position ids or RNN hidden states; and the samples of
    a `torch.distributions` object built from Python numbers
    (`Uniform(low=3.0, high=30.0)`, reported where it is built). A private
    method (`_rel_shift`) gets only what the file's calls give it: a branch
    under a flag that every call leaves `False` never runs.

    ## Why is this bad?
    The factory allocates on the CPU (a distribution built from numbers samples
    there). The code works in CPU tests and fails as soon as the model runs on
    an accelerator: `Expected all tensors to be on the same device`.

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
    Safe when the tensor meets a named input that is already bound where the
    tensor is made (`x + torch.zeros(n)` becomes `torch.zeros(n,
    device=x.device)`): it is created where its partner already is. When it
    meets the module's parameters (`self.emb(pos)`), or a partner bound only
    later, the fix uses the device of the function's first tensor input, which
    is where a model's inputs normally are but not guaranteed; that fix is
    unsafe, and withheld when the input was rebound before that line. Where a
    plain helper of the file makes the tensor (`return torch.zeros(t.shape[:2])
    < p`), the finding is at its call and the fix goes in the helper: its
    factory gets `device=` of the helper's first tensor parameter, so each
    call's result follows what that call passes (unsafe: every caller changes).
    """

    code = "DEV202"
    uses_flow = True
    name = "tensor-created-without-device"
    message = "`{factory}(...)` creates a tensor on the CPU that meets `{partner}` in {operation}{at}"
    distribution_message = (
        "`{factory}(...)` is built from Python numbers, so it samples on the CPU, and its samples meet "
        "`{partner}` in {operation}{at}"
    )

    helper_message = (
        "`{helper}(...)` returns a tensor it makes on the CPU (`{inner}(...)`), which meets `{partner}` in "
        "{operation}{at}"
    )

    @classmethod
    def format_message(cls, fields: dict[str, Any]) -> str:
        if fields.get("helper"):
            return cls.helper_message.format(**fields)
        return (cls.distribution_message if fields.get("distribution") else cls.message).format(**fields)

    fix_title = "Create it with `device={device}`"
    fix_safety = FixSafety.SAFE
    # A factory (with or without `device=`: `device=device` is the CPU where that parameter's
    # default `None` reaches it), or the samples of a distribution (built elsewhere, from numbers).
    markers = (marker.FILE_FACTORY_CALL + r"|\.r?sample\s*\(|" + _DISTRIBUTION,)

    @classmethod
    def wants_unit(cls, unit, contains):  # type: ignore[no-untyped-def]
        # Inputs exist only in functions; `__init__` runs before any move (but a distribution it
        # builds is reported there, where its samples are used).  (Outside a class, a function that
        # never mentions a device has inputs only where the file's calls pass them: see
        # flow.tensor_inputs.)
        if unit.kind in ("statements", "header"):
            return False
        if unit.name == "__init__":
            return unit.kind == "method" and any(contains(name) for name in ("istributions", "Uniform", "Normal"))
        return True

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.HostMeetsInput):
            factory = event.host.value.origin
            if not isinstance(factory, cst.Call) or event.host.value.held is not None:
                continue
            if event.building:
                continue  # (run by a module's ``__init__`` only, before anything moves it: as ``__init__``)
            qualified = self.ctx.symbols.qualify(factory.func) or ""
            device = patterns.keyword(factory, "device")
            if qualified.startswith("torch.distributions."):
                # Built from Python numbers, it samples on the CPU: its parameters need the device.
                fix = Fix(
                    title="Build its parameters as tensors on the inputs' device",
                    safety=FixSafety.DISPLAY_ONLY,
                    edits=(),
                    reason="which device the samples belong on is known where they are used",
                )
                self._report(factory, event, fix, distribution=True)
                continue
            if device is not None and self._cpu_named_in(device.value, event.function):
                continue  # an explicit `device="cpu"` is a decision, not an oversight
            if qualified in torch_api.TENSOR_FACTORIES:
                fix = self._fix(factory, qualified, event)
            elif self._makes_host_tensors(factory):
                made = self._made_in_helper(factory)
                if made is not None:
                    self._report_helper(factory, event, *made)
                    continue
                fix = None  # a function of this file returns it: where to place it is the caller's choice
            else:
                continue
            self._report(factory, event, fix)

    def _made_in_helper(self, call: cst.Call) -> tuple[cst.Call, str, str] | None:
        """The factory (without ``device=``) at the root of the one value a helper of this file returns
        (``torch.zeros(shape).uniform_(0, 1) < p``), the helper's first tensor parameter, which the
        call gives (the tensor whose device the result should follow), and the helper's name."""
        helper = self.ctx.flow.program.functions.get(call.func.value) if isinstance(call.func, cst.Name) else None
        if helper is None or not call.args:
            return None
        returns = [n for n in self.ctx.scope_nodes(helper) if isinstance(n, cst.Return)]
        if len(returns) != 1 or returns[0].value is None:
            return None
        root: cst.BaseExpression = returns[0].value
        while True:
            if isinstance(root, cst.Comparison):
                root = root.left
                continue
            if not isinstance(root, cst.Call):
                return None
            qualified = self.ctx.symbols.qualify(root.func)
            if qualified in torch_api.TENSOR_FACTORIES:
                break
            if not isinstance(root.func, cst.Attribute):
                return None
            root = root.func.value  # the receiver of a method: `.float()`, `.uniform_(0, 1)`
        if qualified in torch_api.HOST_ONLY_FACTORIES or patterns.keyword(root, "device") is not None:
            return None
        inputs = tensor_inputs(helper, self.ctx, skip_first=False, in_module=True)
        positional = [p.name.value for p in (*helper.params.posonly_params, *helper.params.params)]
        if not inputs or inputs[0] not in positional or positional.index(inputs[0]) >= len(call.args):
            return None
        if self.ctx.proof.rebound_since_entry(inputs[0], at=root):
            return None
        return root, inputs[0], helper.name.value

    def _report_helper(
        self, call: cst.Call, event: events.HostMeetsInput, inner: cst.Call, parameter: str, helper: str
    ) -> None:
        """At the call of a helper of this file that makes the tensor; the fix goes in the helper, where
        the result is then made where the helper's tensor input is."""
        device = f"{parameter}.device"
        replaced, parts = patterns.keyword_added(inner, "device", device)
        reason = f"each call's result then follows its `{parameter}`, which is where this call needs it"
        fix = self.make_fix(ReplaceNode(replaced, *parts), safety=FixSafety.UNSAFE, reason=reason, device=device)
        made = (inner.func, f"`{helper}` makes it here, without `device=`")
        self._report(call, event, fix, extra=(made,), helper=helper, inner=self.ctx.describe(inner.func))

    def _report(
        self,
        factory: cst.Call,
        event: events.HostMeetsInput,
        fix: Fix | None,
        extra: tuple[tuple[cst.CSTNode, str], ...] = (),
        **fields: Any,
    ) -> None:
        """At the factory (where `device=` goes), naming where its tensor meets the partner."""
        partner = self.ctx.describe(event.partner.expr)
        self.report(
            factory.func,
            fix=fix,
            related=[*extra, (event.partner.expr, f"the tensor meets `{partner}` here, in {event.operation}")],
            factory=self.ctx.describe(factory.func),
            partner=partner,
            operation=event.operation,
            at=Place(event.partner.expr),
            **fields,
        )

    def _cpu_named_in(self, node: cst.BaseExpression, function: cst.FunctionDef | None) -> bool:
        """``"cpu"``, ``torch.device("cpu")``, or a name of ``function`` bound once, to one of them
        (``host = torch.device("cpu")``)."""
        if _names_the_cpu(node):
            return True
        if not isinstance(node, cst.Name) or function is None:
            return False
        bound = [
            n.value
            for n in self.ctx.scope_nodes(function)
            if isinstance(n, (cst.Assign, cst.AnnAssign, cst.AugAssign))
            and any(
                node.value in target_paths(target)
                for target in ([t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target])
            )
        ]
        parameters = function.params
        named = {p.name.value for p in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params)}
        return node.value not in named and len(bound) == 1 and bound[0] is not None and _names_the_cpu(bound[0])

    def _makes_host_tensors(self, call: cst.Call) -> bool:
        """A call of a function of this file (which returned the host tensor)."""
        name = call.func.value if isinstance(call.func, cst.Name) else None
        return name is not None and name in self.ctx.flow.program.functions

    def _fix(self, factory: cst.Call, qualified: str, event: events.HostMeetsInput):  # type: ignore[no-untyped-def]
        if qualified in torch_api.HOST_ONLY_FACTORIES or patterns.keyword(factory, "device") is not None:
            return None
        partner = event.partner.expr
        proof = self.ctx.proof
        if isinstance(partner, cst.Name) and event.partner.value.module is not True:
            device = f"{partner.value}.device"
            unbound = proof.unbound(device, at=factory)
            if unbound is None:
                replaced, parts = patterns.keyword_added(factory, "device", device)
                return self.make_fix(ReplaceNode(replaced, *parts), device=device)
        else:
            unbound = None
        held = dotted_name(partner) if isinstance(partner, cst.Attribute) else None
        if held is not None and event.partner.value.module is False and proof.unbound(held, at=factory) is None:
            # An attribute (``self.emb.weight``): where it is at the meeting, unless rebound between.
            device = f"{held}.device"
            reason = f"`{held}` is read where they meet, and could be rebound after this line"
            replaced, parts = patterns.keyword_added(factory, "device", device)
            return self.make_fix(ReplaceNode(replaced, *parts), safety=FixSafety.UNSAFE, reason=reason, device=device)
        # Where the function's inputs are: right for ordinary model code, but not proven.
        first = _first_tensor_input(event.function, self)
        if first is None:
            return None
        device = f"{first}.device"
        if proof.rebound_since_entry(first, at=factory):
            reason = f"`{first}` is rebound before this line, so its device is not known here"
            return self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, device=device)
        reason = "the input's device is where model inputs normally are, not where this partner is proven to be"
        if unbound is not None:
            reason = f"{unbound}; the function's input is used instead"
        replaced, parts = patterns.keyword_added(factory, "device", device)
        return self.make_fix(ReplaceNode(replaced, *parts), safety=FixSafety.UNSAFE, reason=reason, device=device)


def _enclosing_function(ctx: FileContext, node: cst.CSTNode) -> cst.FunctionDef | None:
    """The innermost function around ``node`` (rules reading flow events run outside the walk's scopes)."""
    from flake8_device.analysis.flow import functions_with_owners

    point = ctx.proof.point(node)
    best = None
    for function in functions_with_owners(ctx.module):
        where = ctx.positions.get(function)
        if where is None or point is None:
            continue
        start, end = (ctx.original_line(where.start.line), 0), (ctx.original_line(where.end.line), where.end.column)
        if start <= point <= end:
            best = function  # functions come outer before inner
    return best


def _owner_class(ctx: FileContext, function: cst.FunctionDef | None) -> cst.ClassDef | None:
    from flake8_device.analysis.flow import functions_with_owners

    return functions_with_owners(ctx.module).get(function) if function is not None else None


def _names_the_cpu(node: cst.BaseExpression) -> bool:
    """``"cpu"``, ``torch.device("cpu")``: the CPU written out (``device=device`` holding None is not)."""
    if isinstance(node, cst.Call) and node.args:
        node = node.args[0].value
    return names_cpu(patterns.string_value(node))


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
    value known to be a tensor. A cast that names no device
    (`x.to(torch.float32)`) is not a move, and a parameter named for a model
    (`module`, `model`, `net`, ...) is not taken for a tensor by its `.device`.

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
    the statement was written to do. It is withheld (shown, with the reason)
    where the assignment might fail or change more than the tensor: an item of
    a container not known to be a list or dict (a tuple batch), a field of an
    object not known to accept it (a named tuple), a registered parameter (its
    moved copy is a plain tensor), or a name the function does not bind
    (assigning it would make a global local).
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
                reason = self._unassignable(event.target)
                fix = self.make_fix(
                    ReplaceNode(event.statement, event.target, " = ", event.call),
                    safety=FixSafety.DISPLAY_ONLY if reason else None,
                    reason=reason,
                    subject=event.target,
                    target=target,
                    call=call,
                )
            self.report(event.call.func.attr, fix=fix, call=call, target=target)  # type: ignore[attr-defined]

    def _unassignable(self, target: cst.BaseExpression) -> str | None:
        """Why ``target = <moved>`` might fail: a tuple item, a frozen object's field, a parameter."""
        if isinstance(target, cst.Name):
            return None  # the proof checks it does not turn a global into a local
        types, point = self.ctx.types, self.ctx.proof.point(target)
        root = patterns.root_name(target)
        if types is None or point is None or root is None:
            return f"`{self.ctx.describe(target)}` is not known to accept an assignment"
        if isinstance(target, cst.Subscript):
            evidence = types.mutable_container(root, point)
            return None if evidence else evidence.reason
        function = self.ctx.current_function or _enclosing_function(self.ctx, target)
        self_name = patterns.first_param_name(function) if function is not None else None
        attr = patterns.self_attribute(target, self_name)
        owner = _owner_class(self.ctx, function)
        if attr is not None and owner is not None:
            info = self.ctx.class_info(owner)
            module = self.ctx.symbols.is_local_module_class(owner.name.value)
            if info is not None and attr in info.parameters and module:
                return f"`{self.ctx.describe(target)}` is a registered parameter: a moved copy is a plain tensor"
            return None
        return f"`{root}` is not known to accept attribute assignment (a named tuple or frozen object does not)"


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

    Where the input is a tensor a factory of this file made without `device=`
    in another function (state that `__init__` makes on the CPU and a later
    method feeds to the model), the finding is reported at that factory, the
    line a fix changes, and the message names the line of the call; state fed
    to the model in several places is one finding.

    ## Fix safety
    Safe for an argument known to be a tensor (used like one, or given to a
    `torch.nn` layer or to a model whose `forward` uses its input like one):
    the fix moves it to the model's device, with the device expression the
    model was moved with and nothing else (a dtype in the model's move is not
    copied onto token ids), for this call. It is shown but not applied for
    whole batches (tuples, dicts, `**batch`), for arguments not known to be
    tensors (strings a model tokenises itself), and where the device name was
    rebound since the model's move. Reported at the factory, the fix is shown
    only: the model's device is named in another function.
    """

    code = "DEV204"
    uses_flow = True
    name = "model-input-not-moved"
    message = "`{argument}` is on the CPU but `{model}` is on {device}{at}"
    # Said only where the analysis knows the input comes from a data loader (the report's ``loader``).
    loader_message = "`{argument}` comes from the data loader `{loader}` on the CPU but `{model}` is on {device}{at}"
    fix_title = "Move the input: `{argument}{move}`"
    fix_safety = FixSafety.SAFE
    markers = (marker.HOST_SOURCE,)
    file_markers = (marker.ACCELERATOR_SOURCE,)

    @classmethod
    def format_message(cls, fields: dict[str, Any]) -> str:
        return (cls.loader_message if fields.get("loader") else cls.message).format(**fields)

    def visit_Module(self, node: cst.Module) -> None:
        found = self.ctx.flow.events_of(events.InputNotMoved)
        places = [n for e in found for n in (e.argument.value.origin, e.argument.expr) if n is not None]
        scopes = _scopes_of(node, tuple(places))
        made: set[int] = set()  # the factories reported (one finding each, wherever their tensors go)
        for event in found:
            argument = self.ctx.describe(event.argument.expr)
            model = self.ctx.describe(event.model.expr)
            origin = event.argument.value.origin
            factory = self._state_factory(event, scopes)
            if factory is not None:
                if id(factory) in made:
                    continue
                made.add(id(factory))
                fix: Fix | None = Fix(
                    title=f"Create it where `{model}` is (`device=`)",
                    safety=FixSafety.DISPLAY_ONLY,
                    edits=(),
                    reason="the model's device is named where they meet, in another function",
                )
            else:
                fix = self._fix(event, argument) if event.model.value.move is not None else None
            # As in `describe_host`: a host value whose origin is not a call came from a data loader.
            from_loader = origin is not None and not isinstance(origin, cst.Call)
            related = [(event.model.value.origin, f"`{model}` is placed on {device_text(event.model.value)} here")]
            if factory is not None:
                related.append((event.argument.expr, f"`{argument}` is given to `{model}` here"))
            self.report(
                event.argument.expr if factory is None else factory.func,
                fix=fix,
                related=related,
                argument=argument,
                model=model,
                device=device_text(event.model.value),
                loader=self.ctx.describe(origin) if from_loader and origin is not None else None,
                at=Place(event.argument.expr),
            )

    def _state_factory(
        self,
        event: events.InputNotMoved,
        scopes: dict[int, tuple[cst.ClassDef | None, cst.FunctionDef | None]],
    ) -> cst.Call | None:
        """The factory without ``device=`` that made the input in another function of this file
        (state an ``__init__`` makes on the CPU and a later method feeds to the model): where the
        fix goes.  (Made in the function that feeds it, moving the input there is the fix.)"""
        factory = _made_where_fixed(self, event.argument.value, event.argument.expr, scopes)
        if factory is None or scopes[id(factory)][1] is scopes[id(event.argument.expr)][1]:
            return None
        return factory

    def _fix(self, event: events.InputNotMoved, argument: str) -> Fix:
        """The input moved to the model's device (its dtype is the input's own business), where it
        is known to be a tensor."""
        expr = event.argument.expr
        move = fixes.device_move(event.model.value.origin)
        if move is None:
            return self._withheld(argument, "the model's move names no device to copy")
        starred = any(a.value is expr and a.star for a in event.call.args)
        if event.argument.value.module is not False or starred:
            return self._withheld(argument, "a whole batch (a tuple, a dict, `**batch`) has no `.to()`")
        evidence = self._tensor_evidence(event)
        if not evidence:
            return self._withheld(argument, evidence.reason or f"`{argument}` is not known to be a tensor")
        return self.make_fix(
            fixes.moved(expr, *move.parts),
            source=move.source,
            subject=expr,
            argument=argument,
            move=move.text,
        )

    def _withheld(self, argument: str, reason: str) -> Fix:
        return self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, argument=argument, move=".to(...)")

    def _tensor_evidence(self, event: events.InputNotMoved) -> Evidence:
        """The input is a tensor: used like one, or fed to a model that only takes tensors."""
        types, proof = self.ctx.types, self.ctx.proof
        point = proof.point(event.argument.expr)
        if types is None or point is None:
            return Evidence(False, "the input's type is not known")
        expr = event.argument.expr
        if isinstance(expr, cst.Name) and types.is_tensor(expr.value, point):
            return Evidence(True)
        origin = event.model.value.origin
        where = proof.point(origin) if origin is not None else None
        model_class = types.class_of(self.ctx.code_for(origin), where) if origin is not None and where else None
        evidence = types.takes_tensors(model_class)
        if evidence:
            return evidence
        return Evidence(False, f"`{self.ctx.describe(expr)}` is not known to be a tensor ({evidence.reason})")


class NumpyOnAccelerator(Rule):
    """`.numpy()` on a tensor that lives on the accelerator.

    ## What it does
    Finds `.numpy()`, `np.asarray(t)`, `np.array(t)` and the NumPy functions
    that convert what they are given (`np.concatenate`, `np.stack`,
    `np.percentile`, `np.exp`, ...; `np.sum`, `np.mean` and the other
    reductions over a list of tensors) applied to a tensor that was moved to
    an accelerator (or is the output of a model there), and, in a module's
    methods, to the output of the module's own layers with parameters, which
    is wherever the module is.

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
    outside `torch.no_grad()`), which `.numpy()` also needs. For
    `np.asarray(x)` the value must be known to be a tensor (made by torch, or
    the output of a `torch.nn` layer); a model output of another kind (a dict)
    gets the fix shown, not applied.
    """

    code = "DEV205"
    uses_flow = True
    name = "numpy-on-accelerator"
    message = "`{tensor}` lives on {device}; NumPy needs it on the CPU"
    fix_title = "Insert `{insert}` before converting"
    fix_safety = FixSafety.SAFE
    markers = (
        r"\.numpy\s*\(|(?:np|numpy)(?<!\wnp)(?<!\wnumpy)\.(?:as\w*array|array|concatenate|\w?stack|percentile"
        r"|quantile|median|unique|exp|log|abs|sqrt|isnan|isfinite|clip|round|sum|mean|max|min|std|var|average|prod)\b",
    )
    # A tensor moved to an accelerator, or the output of a layer the file builds (model code runs
    # wherever its module is, which a file of model code never needs to say).
    file_markers = ((marker.ACCELERATOR_SOURCE, marker.MODULE_CONSTRUCTOR_CALL),)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.NumpyOnAccel):
            tensor = self.ctx.describe(event.tensor.expr)
            detached = ".detach()" in self.ctx.code_for(event.tensor.expr)
            insert = ".detach().cpu()" if event.tensor.value.grad and not detached else ".cpu()"
            # ``x.numpy()`` is a tensor's method; ``np.asarray(x)`` takes anything (a dict of outputs).
            reason = None if patterns.method_name(event.call) == "numpy" else self._not_a_tensor(event.tensor.expr)
            fix = self.make_fix(
                ReplaceNode(event.tensor.expr, *patterns.appended(event.tensor.expr, insert)),
                safety=FixSafety.DISPLAY_ONLY if reason else None,
                reason=reason,
                insert=insert,
            )
            # A value made by the module's own layers is wherever the module is (an accelerator once moved).
            device = "the module's device" if event.tensor.value.kind is Kind.INPUT else device_text(event.tensor.value)
            origin = event.tensor.value.origin
            placed = [(origin, f"`{tensor}` gets its place here")]
            self.report(event.anchor, fix=fix, related=placed, tensor=tensor, device=device)

    def _not_a_tensor(self, expr: cst.BaseExpression) -> str | None:
        types, point = self.ctx.types, self.ctx.proof.point(expr)
        if types is None or point is None:
            return "the value is not known to be a tensor"
        if patterns.factory_expression(expr, self.ctx.symbols, host_only=False) is not None:
            return None
        if isinstance(expr, cst.Name):
            evidence = types.is_tensor(expr.value, point)
            return None if evidence else evidence.reason
        return f"`{self.ctx.describe(expr)}` is not known to be a tensor"


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
    transform-named callable): the fix swaps the two lines, each with its own
    comments (a trailing `# noqa` or `# type: ignore` and the comment lines
    right above it). A module with weights would have to be moved too,
    statements that are not adjacent may depend on what is between them, and
    in a notebook no statement moves across cells; there the fix is shown but
    not applied.
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
                SwapStatements(first, second, frozenset({event.name})),
                safety=safety,
                reason=None if safety is None else _swap_reason(swappable, transform),
                name=event.name,
            )
            self.report(event.transform_call.func, fix=fix, transform=transform, name=event.name)


def _swap_reason(swappable: bool, transform: str) -> str:
    if not swappable:
        return "the statements are not next to each other: what lies between may depend on their order"
    return f"`{transform}` may hold weights of its own, which would have to move to the device too"


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
    Where no such input exists (e.g. in `__init__`), or the input was rebound
    before that line, the fix is shown but not applied.
    """

    code = "DEV207"
    name = "hardcoded-cuda-in-module"
    message = "`{code}` hard-codes CUDA inside a module: it fails once the module runs on the CPU, MPS or another GPU"
    fix_title = "Use {device} instead"
    fix_safety = FixSafety.UNSAFE
    markers = (r"cuda", r"\.cuda\s*\(|[\"']cuda|cuda\.\w+Tensor\b")

    @classmethod
    def wants_unit(cls, unit, contains):  # type: ignore[no-untyped-def]
        return unit.kind in ("method", "class")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._handled: set[int] = set()
        self._regions_by_function: dict[int, cuda_guards.CudaRegions] = {}

    def _device(self, at: cst.CSTNode) -> str | None:
        """What to use instead of CUDA at ``at``: the module's own or an input's device (an input
        still holding what the caller passed)."""
        owner = self.ctx.current_class
        if owner is not None and self.ctx.symbols.is_lightning_module_class(owner.name.value):
            return "self.device"
        first = _first_tensor_input(self.ctx.current_function, self)
        if first is None or self.ctx.proof.rebound_since_entry(first, at=at):
            return None
        return f"{first}.device"

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
            device = self._device(node)
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
                device = self._device(node)
                self._report(value, value, (device,) if device else None, device)

    def _report(
        self,
        anchor: cst.CSTNode,
        replaced: cst.CSTNode,
        replacement: tuple[str | cst.CSTNode, ...] | None,
        device: str | None,
    ) -> None:
        if replacement is not None and device is not None:
            fix = self.make_fix(ReplaceNode(replaced, *replacement), device=f"`{device}`")
        else:
            fix = self.make_fix(
                safety=FixSafety.DISPLAY_ONLY,
                reason="no tensor input holds its caller's value here to take the device from",
                device="an input's `.device` or `next(self.parameters()).device`",
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


def from_numpy_under_default_device(rule: Rule, value: Value) -> cst.Call | None:
    """The ``torch.from_numpy(...)`` a host value came from, in a file that sets an accelerator
    default device (which ``from_numpy`` ignores)."""
    origin = value.origin
    if not isinstance(origin, cst.Call) or rule.ctx.flow.default_device_setting is None:
        return None
    return origin if rule.ctx.symbols.qualify(origin.func) == "torch.from_numpy" else None


class FromNumpyIgnoresDefaultDevice(Rule):
    """`torch.from_numpy` in code that follows the default device.

    ## What it does
    In a file that sets an accelerator as the default device
    (`torch.set_default_device(device)`), finds `torch.from_numpy(array)`
    whose tensor meets tensors made by factories without `device=` (which
    follow the default device), and reports it where the array becomes a
    tensor.

    ## Why is this bad?
    `torch.from_numpy` always makes a CPU tensor sharing the array's memory,
    whatever the default device, while `torch.ones`, `torch.linspace` and the
    modules' parameters follow it. Code written to follow the default device
    then fails with `Expected all tensors to be on the same device` as soon as
    that device is a GPU.

    ## Example
    ```python
    import numpy as np
    import torch


    def nodes(n):
        x = torch.from_numpy(np.linspace(-1.0, 1.0, n))
        return x * torch.ones(n, dtype=torch.float64)


    def main(device):
        torch.set_default_device(device)
        return nodes(8)
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch


    def nodes(n):
        x = torch.as_tensor(np.linspace(-1.0, 1.0, n))
        return x * torch.ones(n, dtype=torch.float64)


    def main(device):
        torch.set_default_device(device)
        return nodes(8)
    ```

    ## Fix safety
    Safe: `torch.as_tensor(array)` makes the same tensor as `torch.from_numpy`
    (same dtype, and on the CPU the same shared memory), on the default device.
    Where that device is an accelerator the data is copied there, which is the
    point.
    """

    code = "DEV209"
    name = "from-numpy-ignores-default-device"
    message = (
        "`{call}` makes a CPU tensor whatever the default device (`{setting}`, {line}), and it meets "
        "`{partner}`, which follows the default device, in {operation}"
    )
    fix_title = "Use `{replacement}`, which follows the default device"
    fix_safety = FixSafety.SAFE
    uses_flow = True
    # The meeting may be anywhere the array's tensor goes: every unit of a file (a rare one) that sets
    # a default device and calls `from_numpy`.
    markers = (r"\(",)
    file_markers = (r"set_default_device\s*\(", r"from_numpy\s*\(")

    def visit_Module(self, node: cst.Module) -> None:
        setting = self.ctx.flow.default_device_setting
        if setting is None:
            return
        for event in self.ctx.flow.events_of(events.Mix):
            call = from_numpy_under_default_device(self, event.host.value)
            if call is None:
                continue
            as_tensor, imports = self.ctx.spelling("torch.as_tensor")
            if len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
                fix = self.make_fix(
                    ReplaceNode(call, f"{as_tensor}(", call.args[0].value, ")"), *imports, replacement=as_tensor
                )
            else:
                fix = self.make_fix(
                    safety=FixSafety.DISPLAY_ONLY, reason="its arguments are not one array", replacement=as_tensor
                )
            self.report(
                call.func,
                fix=fix,
                call=self.ctx.describe(call.func) + "(...)",
                setting=setting.text,
                line=Place.of_line(setting.line),
                partner=self.ctx.describe(event.accel.expr),
                operation=event.operation,
            )


class DeviceArgumentIgnored(Rule):
    """A helper given `device=` hands back a host tensor as it was.

    ## What it does
    Finds a call to a function of the file given `device=` (a device that may
    be an accelerator) and a tensor still on the CPU, where the function
    returns that tensor as it came along some path: a `to_tensor`-style helper
    that converts arrays to tensors on the device but lets tensors through
    untouched (`if isinstance(x, torch.Tensor): return x`).

    ## Why is this bad?
    The caller asked for the device and gets a CPU tensor, which fails later
    where it meets the model or the other tensors on the device (`Expected
    all tensors to be on the same device`), far from the helper that dropped
    the device.

    ## Example
    ```python
    import torch


    def to_tensor(x, device=None):
        if isinstance(x, torch.Tensor):
            return x
        return torch.as_tensor(x, device=device)


    obs = to_tensor(torch.zeros(4), device="cuda")
    ```

    ## Use instead
    ```python
    import torch


    def to_tensor(x, device=None):
        if isinstance(x, torch.Tensor):
            return x.to(device)
        return torch.as_tensor(x, device=device)


    obs = to_tensor(torch.zeros(4), device="cuda")
    ```

    ## Fix safety
    Display-only: the repair belongs in the helper, on the path that passes
    the tensor through (`return x.to(device)`), which this call does not show.
    """

    code = "DEV208"
    uses_flow = True
    name = "device-argument-ignored"
    message = "`{argument}` stays on the CPU: `{function}(...)` returns it as it came, ignoring `device={device}`"
    fix_title = "Move it in `{function}` where it is passed through (`.to(device)`)"
    fix_safety = FixSafety.DISPLAY_ONLY
    markers = (r"\bdevice\s*=",)
    file_markers = (marker.ACCELERATOR_SOURCE,)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.DeviceIgnored):
            self.report(
                event.argument.expr,
                fix=self.make_fix(function=event.function),
                argument=self.ctx.describe(event.argument.expr),
                function=event.function,
                device=self.ctx.describe(event.device),
            )
