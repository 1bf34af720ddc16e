"""DEV3xx: optimizers, generators, metrics and indices — state that lives apart from the model.

Every rule here but DEV304 reads the events of :mod:`flake8_device.analysis.flow`;
DEV304 reads where the file sets its default device (:mod:`flake8_device.analysis.defaults`).
"""

from __future__ import annotations

import ast
import os
from functools import cached_property
from typing import Any

import libcst as cst

from flake8_device import fixes
from flake8_device import markers as marker
from flake8_device.analysis import patterns, torch_api
from flake8_device.analysis.defaults import DefaultDeviceSetting, default_device_settings
from flake8_device.analysis.flow import ALWAYS, DEVICE_CONDITION_WORDS, NEVER, Kind, Value, events
from flake8_device.analysis.symbols import Symbols, ast_dotted_name, dotted_name
from flake8_device.context import Place
from flake8_device.model import Fix, FixSafety, ReplaceNode, SwapStatements
from flake8_device.rule import Rule
from flake8_device.rules.flow import device_text

_METRIC_NAMES = "|".join(sorted(torch_api.TENSOR_STATE_METRICS))
_METRIC_CALL_MARKER = rf"(?:{_METRIC_NAMES})\s*\("  # no `\b`: a literal start keeps `re` fast
# A device condition names a device on the line of its `if` (or `elif`): `if args.cuda:`, `if use_gpu:`,
# `"cuda" if torch.cuda.is_available() else "cpu"` (the flow analysis accepts no other).
_DEVICE_CONDITION_MARKER = rf"if\b[^\n]*(?:{DEVICE_CONDITION_WORDS})"


class OptimizerStateBeforeMove(Rule):
    """Optimizer state built on the CPU before the model is moved.

    ## What it does
    Finds an optimizer whose state already exists while its model is still on
    the CPU, followed by a move of that model to the accelerator: an optimizer
    that builds its state when it is constructed (`torch.optim.Adagrad`, or an
    optimizer class of the file whose `__init__` fills `self.state` with
    tensors), or
    any optimizer whose state was loaded with `optimizer.load_state_dict(...)`
    (or by a checkpoint-restoring helper given the optimizer) before
    `model.to(device)`. The optimizer may be built in another function or
    method (a model's `configure_optimizers()`, a trainer's `__init__` given
    `optimizer_fn=torch.optim.Adagrad`), and the move may happen in a helper
    or a later method (`fit`). Also finds `load_state_dict` of a state mapped
    to the CPU into an optimizer class that keeps tensors in its param groups,
    which `load_state_dict` does not move.

    ## Why is this bad?
    `model.to(device)` moves the parameters but not the optimizer's state,
    which was created (or loaded) on the device the parameters were on at that
    moment. The first `optimizer.step()` fails with `Expected all tensors to be
    on the same device`. Optimizers that build their state lazily at the first
    `step()` (Adam, SGD, ...) are fine to construct before the move, until a
    checkpoint is loaded into them. `load_state_dict` casts the per-parameter
    state to the parameters' device, but restores the param groups' own
    entries as they were saved.

    ## Example
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 2)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.01)
    model.to(device)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 2)
    model.to(device)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.01)
    ```

    ## Fix safety
    Safe when the two statements are next to each other and independent: the
    fix swaps the two lines (each with its own comments), so the state is
    built (or loaded) on the device. The parameters are the same objects
    before and after an in-place move, so the optimizer holds the same
    parameters either way. When other statements lie between them, when the
    move reads what the optimizer line binds, or (in a notebook) when they
    are in different cells, the fix is shown but not applied; a helper that
    restores the state is not in sight, so swapping its call is unsafe. For
    param-group tensors, the fix is shown but not applied.
    """

    code = "DEV301"
    name = "optimizer-state-before-move"
    message = "`{call}` {what} on the CPU, and then `{owner}` is moved by `{move}`: the state stays behind"
    fix_title = "Build or load the optimizer state after `{move}`"
    fix_safety = FixSafety.SAFE
    uses_flow = True
    # An eager optimizer, a state loaded (directly or by a restore helper given the optimizer), or an
    # optimizer made elsewhere (a factory, a trainer's attribute) and moved here.
    markers = (r"Adagrad|load_state_dict|optim|[Rr]estore|[Rr]esume",)
    # The move may be in a helper (``set_device(model, dev)``) or a later function.
    file_markers = (marker.MOVE_CALL,)

    group_message = (
        "`{call}` restores {keys} of `{cls}`'s param groups on the CPU, where `map_location` put them: "
        "`load_state_dict` moves only the per-parameter state to the parameters' device"
    )

    @classmethod
    def format_message(cls, fields: dict[str, Any]) -> str:
        return (cls.group_message if "keys" in fields else cls.message).format(**fields)

    def visit_Module(self, node: cst.Module) -> None:
        for group_event in self.ctx.flow.events_of(events.ParamGroupTensorsLoadedOnHost):
            fix = Fix(
                title="Move the param groups' tensors to the parameters' device after loading",
                safety=FixSafety.DISPLAY_ONLY,
                edits=(),
                reason="where each tensor belongs is the optimizer's business",
            )
            self.report(
                group_event.call.func,
                fix=fix,
                call=self.ctx.describe(group_event.call.func) + "(...)",
                keys=", ".join(f"`{k}`" for k in group_event.keys),
                cls=group_event.class_name,
            )
        for event in self.ctx.flow.events_of(events.OptimizerStateBeforeMove):
            built_by = event.optimizer.built_by
            assert built_by is not None
            loaded = event.optimizer.loaded
            move = self.ctx.describe(event.move_call)
            first, second = event.optimizer.line, event.move_line
            if event.adjacent and first is not None and second is not None:
                owner = event.optimizer.owner.split(".")[0]
                swap = SwapStatements(first, second, frozenset({owner}))
                if loaded and patterns.method_name(built_by) != "load_state_dict":
                    # A helper restores the checkpoint: what else it does with the model is not in sight.
                    reason = f"`{self.ctx.describe(built_by.func)}` is not in sight"
                    fix = self.make_fix(swap, safety=FixSafety.UNSAFE, reason=reason, move=move)
                else:
                    fix = self.make_fix(swap, move=move)
            else:
                reason = "other statements lie between them, and may depend on their order"
                fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, move=move)
            self.report(
                built_by.func,
                fix=fix,
                call=self.ctx.describe(built_by.func) + "(...)",
                what="loads the optimizer state" if loaded else "builds its state",
                owner=event.optimizer.owner,
                move=move,
            )


class LossOrMetricNotMoved(Rule):
    """Loss or metric with tensor state that is never moved.

    ## What it does
    Finds a loss with class weights (`nn.CrossEntropyLoss(weight=...)`,
    `nn.BCEWithLogitsLoss(pos_weight=...)`) built from tensors on the CPU, a
    loss module with parameters or buffers of its own (a class of the file
    named `...Loss`, or a module held under a loss's name: `reg_loss =
    Decorrelation()`), or a `torchmetrics` metric with tensor state
    (`Accuracy`, `F1Score`, `MeanSquaredError`, `MeanMetric`, ...), that is
    never moved but is given predictions on the accelerator (also from a dict
    of criteria, or through the functions it is passed to).

    ## Why is this bad?
    The weights and the metric state are tensors inside the object, created on
    the CPU; only `.to(device)` moves them. The first call fails with
    `Expected all tensors to be on the same device` (torchmetrics says
    `Encountered different devices in metric calculation`). Metrics that keep
    lists (`AUROC`, curves, retrieval metrics) accept device tensors and are
    not reported.

    ## Example
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 3).to(device)
    loss_fn = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 4.0]))
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = loss_fn(model(inputs), targets)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda")
    model = nn.Linear(8, 3).to(device)
    loss_fn = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 4.0])).to(device)
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = loss_fn(model(inputs), targets)
    ```

    ## Fix safety
    Unsafe: the fix moves the construction to the device the predictions were
    moved to (`.to(device)`, the device only), and a moved metric returns its
    results on the device. The fix is shown but not applied where the device
    name is not bound where the loss or metric is built, or was rebound since
    the predictions were moved.
    """

    code = "DEV302"
    name = "loss-or-metric-not-moved"
    message = "`{holder}` keeps {what} on the CPU but is given `{argument}`, which is on {device}{at}"
    fix_title = "Move it where its inputs are: `{move}`"
    fix_safety = FixSafety.UNSAFE
    uses_flow = True
    # Weights, a metric, or a loss module (``MelLoss(...)``, ``reg_loss(...)``) built or called here.
    markers = (rf"weight\s*=|{_METRIC_CALL_MARKER}|Loss\s*\(|_loss\s*\(",)
    file_markers = (marker.ACCELERATOR_SOURCE,)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.UnmovedLossOrMetric):
            construction = event.construction
            qualified = self.ctx.symbols.qualify(construction.func) or ""
            if qualified.startswith("torchmetrics."):
                what = "its metric state"
            elif qualified.startswith("torch.") or any(
                patterns.keyword(construction, k) is not None for k in ("weight", "pos_weight")
            ):
                what = "its weights"
            else:
                what = "its parameters and buffers"
            accel = event.argument.value
            # The device only: a loss's weights keep their dtype whatever the predictions were cast to.
            found = fixes.device_move(accel.origin)
            if found is not None:
                fix = self.make_fix(fixes.moved(construction, *found.parts), source=found.source, move=found.text)
            else:
                reason = "the predictions' device has no name to copy"
                fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, move=".to(device)")
            argument = self.ctx.describe(event.argument.expr)
            self.report(
                construction.func,
                fix=fix,
                related=[
                    (event.call, f"it is given `{argument}` here"),
                    (accel.origin, f"`{argument}` is placed here"),
                ],
                at=Place(event.call),
                holder=self.ctx.describe(event.holder.expr),
                what=what,
                argument=argument,
                device=device_text(accel),
            )


class GeneratorOnWrongDevice(Rule):
    """Random generator on a different device than the numbers it draws.

    ## What it does
    Follows `torch.Generator()` objects and reports one passed as `generator=`
    to an operation that draws on another device: a CPU generator given to a
    factory with `device=` on the accelerator (`torch.randn(..., device=device,
    generator=g)`), to an in-place initialiser of a device tensor
    (`w.normal_(generator=g)`, `nn.init.trunc_normal_(w, generator=g)`) or to
    `torch.multinomial`/`torch.bernoulli` of one; and a generator made with
    `device=` on the accelerator given to something that draws on the CPU (a
    factory without `device=`, a `DataLoader`, `random_split`, a sampler).
    Where the file sets an accelerator default device
    (`torch.set_default_device`), samplers and factories without `device=`
    draw there, so a CPU generator given to them is reported where it is made.

    ## Why is this bad?
    A generator only produces numbers on its own device: the call fails with
    `Expected a 'cuda' device type for generator but found 'cpu'` (or the
    reverse).

    ## Example
    ```python
    import torch

    device = torch.device("cuda")
    generator = torch.Generator().manual_seed(0)
    noise = torch.randn(4, 16, generator=generator, device=device)
    ```

    ## Use instead
    ```python
    import torch

    device = torch.device("cuda")
    generator = torch.Generator(device=device).manual_seed(0)
    noise = torch.randn(4, 16, generator=generator, device=device)
    ```

    ## Fix safety
    Display-only. Either the generator moves (built with `device=`), which
    changes the random stream and every other use of that generator, or the
    numbers are drawn on the generator's device and moved
    (`torch.randn(..., generator=g).to(device)`), which keeps the stream but
    costs a copy; the choice is the author's.
    """

    code = "DEV303"
    name = "generator-on-wrong-device"
    message = "`{generator}` is a generator on {generator_device}, but `{call}` draws on {target} ({why})"
    fix_title = "Draw with a generator on the device the numbers go to"
    fix_safety = FixSafety.DISPLAY_ONLY
    uses_flow = True
    # A generator handed on here; it may be made elsewhere (an attribute, a caller), and the device it
    # meets may come from a caller or from the file's default device.
    markers = (r"generator\s*=",)
    file_markers = (r"Generator\s*\(",)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.GeneratorMismatch):
            generator_device = _where(event.generator.value)
            target = _where(event.target)
            fix = self.make_fix()
            # Under a default device the generator is what to change: reported where it is made.
            origin = event.generator.value.origin
            made_here = event.by_default and isinstance(origin, cst.Call)
            self.report(
                origin if made_here and origin is not None else event.generator.expr,
                fix=fix,
                generator=self.ctx.describe(event.generator.expr),
                generator_device=generator_device,
                call=self.ctx.describe(event.call.func) + "(...)",
                target=target,
                why=event.target_text,
            )


def _where(value: Value) -> str:
    return "the CPU" if value.kind is Kind.HOST else device_text(value)


class DefaultDeviceWithCpuSampler(Rule):
    """Shuffling data loader under an accelerator default device.

    ## What it does
    Where `torch.set_default_device(...)` sets an accelerator (or
    `torch.set_default_tensor_type(torch.cuda.FloatTensor)` does) at module
    level, in the same function, or at the top level of a module of the
    project that the file imports, finds `DataLoader(..., shuffle=True)`,
    `RandomSampler(...)` and `random_split(...)` without a `generator=`, and
    `DistributedSampler(...)` that shuffles. A module that defines a dataset
    and sets an accelerator default device when it is imported is reported
    at the setting: the loaders over its datasets are built elsewhere.

    ## Why is this bad?
    These draw their permutation with `torch.randperm(n, generator=g)`, where
    `g` is a CPU generator they create themselves (or the default CPU
    generator). With an accelerator as the default device, `randperm` allocates
    there, and the first epoch fails with `Expected a 'cuda' device type for
    generator but found 'cpu'`.

    ## Example
    ```python
    import torch
    from torch.utils.data import DataLoader

    torch.set_default_device("cuda")
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    ```

    ## Use instead
    ```python
    import torch
    from torch.utils.data import DataLoader

    torch.set_default_device("cuda")
    loader = DataLoader(dataset, batch_size=32, shuffle=True, generator=torch.Generator(device="cuda"))
    ```

    ## Fix safety
    Display-only. Giving the loader a device generator makes it run, but that
    generator starts from a fixed seed (every run shuffles alike unless it is
    seeded), and not setting a default device is often the better repair.
    """

    code = "DEV304"
    name = "default-device-with-cpu-sampler"
    message = (
        "`{call}` shuffles with a CPU generator, but `{setting}` ({line}) makes its `randperm` run on the "
        "accelerator"
    )
    fix_title = "Pass `generator=torch.Generator(device=...)` on the default device, or do not set a default device"
    fix_safety = FixSafety.DISPLAY_ONLY
    markers = (r"shuffle\s*=\s*True|random_split\s*\(|DistributedSampler\s*\(|RandomSampler\s*\(|set_default_",)
    # (No file marker: the setting may be in a module this file imports.)
    import_message = (
        "`{setting}` runs when this dataset module is imported: every factory then allocates on the "
        "accelerator, including the `randperm` a shuffling `DataLoader` over `{dataset}` draws with a CPU generator"
    )

    @classmethod
    def format_message(cls, fields: dict[str, Any]) -> str:
        return (cls.import_message if "dataset" in fields else cls.message).format(**fields)

    _LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
    _SAMPLERS = frozenset(
        {
            "torch.utils.data.RandomSampler",
            "torch.utils.data.sampler.RandomSampler",
            "torch.utils.data.random_split",
            "torch.utils.data.dataset.random_split",
        }
    )
    _DISTRIBUTED = frozenset({"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"})

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.symbols.qualify(node.func)
        if qualified is None:
            return
        if qualified in torch_api.DEFAULT_DEVICE_SETTERS:
            self._setting_in_a_dataset_module(node)
            return
        shuffle = patterns.keyword(node, "shuffle")
        if qualified in self._LOADERS:
            draws = shuffle is not None and _is_true(shuffle.value) and patterns.keyword(node, "sampler") is None
        elif qualified in self._SAMPLERS:
            draws = True
        elif qualified in self._DISTRIBUTED:
            draws = shuffle is None or _is_true(shuffle.value)
        else:
            return
        if not draws or patterns.keyword(node, "generator") is not None:
            return
        # A setting at module level runs before any function; one in this very function runs
        # before its loader is iterated. Elsewhere, the order cannot be told.
        here = tuple(scope.name.value for scope in self.ctx.scopes)
        setting = next(
            (s for s in self.ctx.default_devices if s.accelerator and not s.scoped and s.path in ((), here)), None
        )
        where: Place | str | None = Place.of_line(setting.line) if setting is not None else None
        if setting is None:
            setting, where = self._set_by_an_import
        if setting is None:
            return
        call = self.ctx.describe(node.func) + "(...)"
        self.report(node.func, fix=self.make_fix(), call=call, setting=setting.text, line=where)

    @cached_property
    def _set_by_an_import(self) -> tuple[DefaultDeviceSetting | None, str | None]:
        """An accelerator default that a module of the project this file imports sets at its top
        level, so as soon as it is imported (RTFM's ``dataset.py``), and where (``dataset.py:6``):
        looked up once per file, whatever number of loaders it builds."""
        if self.ctx.path is None:
            return None, None
        imported = {(level, module) for level, module, _ in self.ctx.symbols.from_imports.values()}
        imported |= set(self.ctx.symbols.module_imports.values())
        for level, module in sorted(imported, key=lambda key: (key[0], key[1] or "")):
            loaded = self.ctx.project_module(level, module)
            if loaded is None:
                continue
            for setting in default_device_settings(loaded.tree, loaded.symbols):
                if setting.accelerator and not setting.scoped and setting.path == ():
                    where = os.path.relpath(loaded.path, os.path.dirname(os.path.abspath(self.ctx.path)))
                    return setting, f"{where}:{setting.line}"
        return None, None

    def _setting_in_a_dataset_module(self, node: cst.Call) -> None:
        """An accelerator default set when a module defining datasets is imported (no loader in sight:
        those are built by the code that imports it)."""
        if self.ctx.scopes:
            return  # in a function: when it runs, and what it runs with, is the caller's business
        line = self.ctx.original_line(self.ctx.positions[node].start.line)
        setting = next((s for s in self.ctx.default_devices if s.line == line and s.path == ()), None)
        if setting is None or not setting.accelerator or setting.scoped:
            return
        datasets = _dataset_classes(self.ctx.tree, self.ctx.symbols)
        if not datasets or self._draws_in_file():
            return  # the loaders in the file are reported themselves
        line_place = Place.of_line(line)
        self.report(node.func, fix=self.make_fix(), setting=setting.text, dataset=datasets[0], call="", line=line_place)

    def _draws_in_file(self) -> bool:
        """Does the file build a loader or sampler (a call, not an import that names one)?"""
        if self.ctx.tree is None:
            return True
        drawing = self._LOADERS | self._SAMPLERS | self._DISTRIBUTED
        return any(
            isinstance(node, ast.Call) and self.ctx.symbols.qualify_dotted(ast_dotted_name(node.func)) in drawing
            for node in ast.walk(self.ctx.tree)
        )


def _dataset_classes(tree: ast.Module | None, symbols: Symbols) -> list[str]:
    """The classes of the file that are datasets (``class Clips(data.Dataset)``)."""
    if tree is None:
        return []
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(
            symbols.qualify_dotted(ast_dotted_name(base)) in _DATASET_BASES for base in node.bases
        )
    ]


_DATASET_BASES = frozenset(
    {
        "torch.utils.data.Dataset",
        "torch.utils.data.IterableDataset",
        "torch.utils.data.dataset.Dataset",
        "torch.utils.data.dataset.IterableDataset",
    }
)


def _is_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


class IndexOnWrongDevice(Rule):
    """Index or mask on a different device than the tensor it indexes.

    ## What it does
    Reports a tensor on the CPU indexed with an index or boolean mask on the
    accelerator (`labels[mask]`, `table[idx] = 0`), and `torch.gather`,
    `index_select`, `take_along_dim`, `index_add`/`index_copy`/`index_fill`
    and `scatter` whose index argument is on another device than the tensor it
    indexes (either way round).

    ## Why is this bad?
    Indexing a CPU tensor with device indices fails with `indices should be
    either on cpu or on the same device as the indexed tensor (cpu)`; the index
    functions fail with `Expected all tensors to be on the same device`. (A
    device tensor indexed with CPU indices or a CPU mask is legal, and so is a
    0-dim index, which PyTorch reads as a number: neither is reported.)

    ## Example
    ```python
    import torch

    device = torch.device("cuda")
    class_names = torch.arange(10)
    scores = torch.randn(8, 10, device=device)
    predicted = class_names[scores.argmax(dim=1)]
    ```

    ## Use instead
    ```python
    import torch

    device = torch.device("cuda")
    class_names = torch.arange(10)
    scores = torch.randn(8, 10, device=device)
    predicted = class_names[scores.argmax(dim=1).cpu()]
    ```

    ## Fix safety
    Safe: the fix moves the index to the indexed tensor's device (`.cpu()` for a
    tensor on the CPU, `.to(x.device)` otherwise, or the device only of the
    move that placed it: an index keeps its integer dtype), which is where
    PyTorch puts the result of every legal form of the operation; the values
    are unchanged. Where the indexed tensor's device cannot be named, the fix
    is shown but not applied.
    """

    code = "DEV305"
    name = "index-on-wrong-device"
    message = "`{index}` is on {index_device} but `{indexed}` is on {indexed_device}: {operation} needs them together"
    fix_title = "Move the index to the indexed tensor's device: `{index}{move}`"
    fix_safety = FixSafety.SAFE
    uses_flow = True
    markers = (marker.MEETING_SIDE,)
    file_markers = (marker.ACCELERATOR_SOURCE, marker.HOST_SOURCE)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.IndexMismatch):
            index = self.ctx.describe(event.index.expr)
            indexed = event.indexed
            found = self._move_to(indexed)
            if found is not None:
                parts, move, source = found
                fix = self.make_fix(
                    fixes.moved(event.index.expr, *parts),
                    source=source,
                    subject=event.index.expr,
                    index=index,
                    move=move,
                )
            else:
                fix = self.make_fix(
                    safety=FixSafety.DISPLAY_ONLY,
                    reason="the indexed tensor's device has no name here",
                    index=index,
                    move=".to(...)",
                )
            self.report(
                event.index.expr,
                fix=fix,
                related=[
                    (event.index.value.origin, f"`{index}` gets its place here"),
                    (indexed.value.origin, f"`{self.ctx.describe(indexed.expr)}` gets its place here"),
                ],
                index=index,
                index_device=_where(event.index.value),
                indexed=self.ctx.describe(indexed.expr),
                indexed_device=_where(indexed.value),
                operation=event.operation,
            )

    @staticmethod
    def _move_to(indexed: events.Operand) -> tuple[tuple[str | cst.CSTNode, ...], str, cst.CSTNode | None] | None:
        """What to append to the index, as fix parts and text, and where a copied device comes from."""
        if indexed.value.kind is Kind.HOST:
            return (".cpu()",), ".cpu()", None
        name = dotted_name(indexed.expr)
        if name is not None:
            return (f".to({name}.device)",), f".to({name}.device)", None
        move = fixes.device_move(indexed.value.origin)  # the device only: an index keeps its integer dtype
        return (move.parts, move.text, move.source) if move is not None else None


class DeviceChoiceMismatch(Rule):
    """Input device chosen apart from the model's.

    ## What it does
    Follows the conditions that choose devices (`if args.cuda: x = x.cuda()`,
    `torch.device("cuda" if use_cuda else "cpu")`, a flag bound to
    `torch.cuda.is_available()`) and reports a model call whose model and input
    are put on the accelerator under different conditions: a `--cuda` flag for
    the inputs and `torch.cuda.is_available()` for the model, two different
    flags, or an input moved under a flag for a model that is always (or never)
    moved.

    ## Why is this bad?
    The two placements agree only while the conditions happen to agree. Run
    with the flag off on a GPU machine (or on a CPU-only machine with the flag
    on) and the model call fails with `Expected all tensors to be on the same
    device` or `Input type (torch.FloatTensor) and weight type
    (torch.cuda.FloatTensor) should be the same`.

    ## Example
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(8, 2).to(device)
    for inputs, targets in loader:
        if args.cuda:
            inputs = inputs.cuda()
        outputs = model(inputs)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(8, 2).to(device)
    for inputs, targets in loader:
        inputs = inputs.to(device)
        outputs = model(inputs)
    ```

    ## Fix safety
    Unsafe: the fix moves the input to wherever the model's parameters are
    (`inputs.to(next(model.parameters()).device)`), which always works for a
    model with parameters but overrides the input's own flag. It is shown but
    not applied for a model not known to have parameters (a module with
    buffers only makes `next(...)` raise `StopIteration`). Choosing both
    devices from one variable is the cleaner repair.
    """

    code = "DEV306"
    name = "device-choice-mismatch"
    message = "`{argument}` is put on the accelerator {input_when}, but `{model}` {model_when}"
    fix_title = "Move the input where the model is: `{argument}.to(next({model}.parameters()).device)`"
    fix_safety = FixSafety.UNSAFE
    uses_flow = True
    # A placement under a device condition. (Requiring two placements in one regex would not be a
    # necessary condition: the script unit is searched statement by statement.)
    markers = (marker.ACCELERATOR_SOURCE, _DEVICE_CONDITION_MARKER)

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.DeviceChoiceMismatch):
            argument = self.ctx.describe(event.argument.expr)
            model_expr = event.model.expr
            model = self.ctx.describe(model_expr)
            reason = self._no_parameters(event) if isinstance(model_expr, (cst.Name, cst.Attribute)) else None
            if isinstance(model_expr, (cst.Name, cst.Attribute)) and reason is None:
                parts = (
                    *patterns.appended(event.argument.expr, ".to(next("),
                    model_expr,
                    ".parameters()).device)",
                )
                fix = self.make_fix(ReplaceNode(event.argument.expr, *parts), argument=argument, model=model)
            else:
                reason = reason or "the model is not a name the fix can ask for its parameters"
                fix = self.make_fix(safety=FixSafety.DISPLAY_ONLY, reason=reason, argument=argument, model=model)
            input_when = _when(event.argument.value.condition)
            model_condition = event.model.value.condition if event.model.value.kind is not Kind.HOST else NEVER
            if model_condition == NEVER:
                model_when = "is never moved"
            elif model_condition == ALWAYS:
                model_when = "always is"
            else:
                model_when = f"is put there {_when(model_condition)}"
            self.report(
                event.argument.expr,
                fix=fix,
                argument=argument,
                model=model,
                input_when=input_when,
                model_when=model_when,
            )

    def _no_parameters(self, event: events.DeviceChoiceMismatch) -> str | None:
        """Why ``next(model.parameters())`` might raise ``StopIteration``: a model not known to own parameters."""
        types, proof = self.ctx.types, self.ctx.proof
        origin = event.model.value.origin
        where = proof.point(origin) if origin is not None else None
        if types is None or origin is None or where is None:
            return f"`{self.ctx.describe(event.model.expr)}` is not known to have parameters"
        evidence = types.has_parameters(types.class_of(self.ctx.code_for(origin), where))
        return None if evidence else evidence.reason


def _when(condition: str | None) -> str:
    if condition == ALWAYS:
        return "always"
    return f"when `{condition}`"


class HelperConstantsOnHost(Rule):
    """Tensor constants of a plain helper object meet device tensors.

    ## What it does
    Finds a class that is not an `nn.Module` but keeps tensors made on the CPU
    in `__init__` (`self.mean = torch.tensor(mean).view(3, 1, 1)`) and combines
    them with its arguments in a method (`(x - self.mean) / self.std`), and
    reports a call that hands that method a tensor on the accelerator (for an
    instance built by an assignment in the same function: `normalize =
    Normalize(...)`).

    ## Why is this bad?
    Nothing ever moves those constants: they are not buffers of any module, so
    `model.to(device)` does not see them. The call fails with `Expected all
    tensors to be on the same device`. The same object works in a CPU data
    pipeline, which is why the bug shows up only where it meets device
    batches.

    ## Example
    ```python
    import torch


    class Normalize:
        def __init__(self, mean, std):
            self.mean = torch.tensor(mean).view(-1, 1, 1)
            self.std = torch.tensor(std).view(-1, 1, 1)

        def __call__(self, images):
            return (images - self.mean) / self.std


    def train(loader, model, device):
        normalize = Normalize([0.5, 0.5, 0.5], [0.2, 0.2, 0.2])
        model.to(device)
        for images, labels in loader:
            images = normalize(images.to(device))
            loss = model(images).sum()
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn


    class Normalize(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.register_buffer("mean", torch.tensor(mean).view(-1, 1, 1))
            self.register_buffer("std", torch.tensor(std).view(-1, 1, 1))

        def forward(self, images):
            return (images - self.mean) / self.std


    def train(loader, model, device):
        normalize = Normalize([0.5, 0.5, 0.5], [0.2, 0.2, 0.2]).to(device)
        model.to(device)
        for images, labels in loader:
            images = normalize(images.to(device))
            loss = model(images).sum()
    ```

    ## Fix safety
    Display-only. The repair is in the class (create the constants on the
    device, move them to the argument's device where they meet it, or make the
    class a module with buffers), which may be shared with CPU code.
    """

    code = "DEV307"
    name = "helper-constants-on-host"
    message = (
        "`{helper}` keeps {constants} as CPU tensors (`{cls}.__init__`), and `{call}` combines them with "
        "`{argument}`, which is on {device}"
    )
    fix_title = "Create {constants} on the device, or make `{cls}` an `nn.Module` with buffers"
    fix_safety = FixSafety.DISPLAY_ONLY
    uses_flow = True
    # The helper is built by an assignment (`normalize = Normalize(...)`), which the flow follows.
    # A helper object built from a class of this file, in a unit that places things on a device.
    markers = (marker.ACCELERATOR_SOURCE, r"=[\s\\]*{classes}")

    def visit_Module(self, node: cst.Module) -> None:
        for event in self.ctx.flow.events_of(events.HelperConstantsMeetAccel):
            constants = ", ".join(f"`{c}`" for c in event.constants)
            fix = self.make_fix(constants=constants, cls=event.class_name)
            self.report(
                event.argument.expr,
                fix=fix,
                helper=self.ctx.describe(event.helper.expr),
                call=self.ctx.describe(event.call.func) + "(...)",
                constants=constants,
                cls=event.class_name,
                argument=self.ctx.describe(event.argument.expr),
                device=device_text(event.argument.value),
            )
