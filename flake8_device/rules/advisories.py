"""DEV6xx: known-bug advisories — device bugs that live in a dependency release.

Each rule reports code (or a DeepSpeed config) that uses the affected feature,
and only when the project is on an affected release.  The releases, the
upstream references and the way out are data, in
``flake8_device/data/advisories.json`` (see :mod:`flake8_device.advisories`);
the version comes from ``--device-versions`` (or the configuration), the project's own pins found
upward from the file, or the installed distribution (see
:mod:`flake8_device.versions`).  An unknown version is never reported.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import libcst as cst

from flake8_device.advisories import Advisory, lookup_advisory
from flake8_device.analysis import patterns
from flake8_device.analysis.deepspeed import ConfigObject, zero_stage
from flake8_device.model import FixSafety
from flake8_device.rule import Rule
from flake8_device.rules.deepspeed import CONSUMER_MARKER, DeepSpeedConfigRule, Finding, VersionLookup
from flake8_device.versions import ResolvedVersion


def advisory_fields(entry: Advisory, found: ResolvedVersion) -> dict[str, Any]:
    way_out = entry.way_out[:1].upper() + entry.way_out[1:]
    return {"version": str(found.version), "source": found.source, "reference": entry.reference, "way_out": way_out}


class AdvisoryRule(Rule):
    """Base of the advisory rules: the table entry and the project's release (no code of its own)."""

    fix_title = "{way_out}"
    fix_safety = FixSafety.DISPLAY_ONLY
    # Releases under which the docstring's Example reports (the docs test lints it with these).
    example_versions: tuple[tuple[str, str], ...] = ()

    @classmethod
    def advisory(cls) -> Advisory:
        return lookup_advisory(cls.code)

    def affected(self) -> ResolvedVersion | None:
        cached: tuple[ResolvedVersion | None] | None = getattr(self, "_affected", None)
        if cached is None:
            cached = (self.advisory().affected_release(self.ctx.package_version),)
            self._affected = cached
        return cached[0]

    def report_affected(self, node: cst.CSTNode) -> None:
        found = self.affected()
        if found is None:
            return
        fields = advisory_fields(self.advisory(), found)
        self.report(node, fix=self.make_fix(**fields), **fields)


class DeepSpeedZero3OffloadClipping(DeepSpeedConfigRule, AdvisoryRule):
    """DeepSpeed 0.14.1-0.14.2: ZeRO-3 CPU optimizer offload with gradient clipping.

    ## What it does
    Finds a DeepSpeed configuration (a JSON file, or a dict reaching
    `deepspeed.initialize`, `HfDeepSpeedConfig`, `TrainingArguments(deepspeed=...)`,
    `DeepSpeedStrategy` or `DeepSpeedPlugin`) with ZeRO stage 3,
    `offload_optimizer` on `cpu` and gradient clipping enabled
    (`gradient_clipping` above 0, or `"auto"` under Hugging Face, whose default
    `max_grad_norm` is 1.0), in a project on DeepSpeed 0.14.1 or 0.14.2.

    ## Why is this bad?
    Those two releases compute the clipping norm with tensors on two devices,
    and the first optimizer step fails with `Expected all tensors to be on the
    same device` (deepspeedai/DeepSpeed#5422, #5538). The change was reverted
    in 0.14.3 and fixed for good in 0.14.5.

    ## Example
    ```python
    import deepspeed

    ds_config = {
        "gradient_clipping": 1.0,
        "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}},
    }
    engine, *_ = deepspeed.initialize(model=model, config=ds_config)
    ```

    ## Use instead
    ```python
    import deepspeed

    ds_config = {
        "gradient_clipping": 1.0,
        "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "none"}},
    }
    engine, *_ = deepspeed.initialize(model=model, config=ds_config)
    ```
    (or keep the configuration and use a DeepSpeed release outside 0.14.1-0.14.2).

    ## Fix safety
    Display-only: the way out is a different DeepSpeed release (pin
    `deepspeed>=0.14.5`), which the linter does not change. The release is
    read from `--device-versions`, the project's pins, or the installed
    distribution; the Example above reports only on an affected release.
    """

    code = "DEV601"
    name = "deepspeed-zero3-offload-clipping"
    message = (
        "DeepSpeed {version} ({source}) fails with ZeRO-3 CPU optimizer offload and gradient clipping: "
        "`Expected all tensors to be on the same device` ({reference})"
    )
    markers = (r"zero_optimization", r"offload_optimizer", r"gradient_clipping", CONSUMER_MARKER)
    example_versions = (("deepspeed", "0.14.2"),)

    @classmethod
    def check_config(cls, config: ConfigObject, *, hugging_face: bool, versions: VersionLookup) -> Iterator[Finding]:
        zero = config.object("zero_optimization")
        if zero is None or zero_stage(zero)[0] != 3:
            return
        offload = zero.get("offload_optimizer")
        if offload is None or not isinstance(offload.value, ConfigObject) or offload.value.string("device") != "cpu":
            return
        clipping = config.get("gradient_clipping")
        if clipping is None:
            return
        value = clipping.value
        enabled = (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0) or (
            value == "auto" and hugging_face
        )
        if not enabled:
            return
        entry = cls.advisory()
        found = entry.affected_release(versions)
        if found is not None:
            yield clipping.key_anchor or clipping.anchor, advisory_fields(entry, found)


class ComposerDeviceTransformsOnCpu(AdvisoryRule):
    """Composer 0.25-0.26: `DataSpec(device_transforms=...)` runs on the CPU.

    ## What it does
    Finds `DataSpec(..., device_transforms=...)` in a project on Composer
    (`mosaicml`) 0.25.0 up to (not including) 0.27.0.

    ## Why is this bad?
    In those releases the device transforms are applied before the batch is
    moved to the device (mosaicml/composer#3699): GPU augmentations silently
    run on the CPU, or fail on tensors they expect on the device. Composer
    0.27.0 fixed the order (#3703) and added `microbatch_transforms`.

    ## Example
    ```python
    from composer.core import DataSpec

    spec = DataSpec(train_loader, device_transforms=gpu_augment)
    ```

    ## Use instead
    ```python
    from composer.core import DataSpec

    spec = DataSpec(train_loader)
    ```
    (and apply the augmentation inside the model's `forward`, or upgrade
    Composer to 0.27.0 or later).

    ## Fix safety
    Display-only: the way out is a different Composer release. The release is
    read from `--device-versions`, the project's pins, or the installed
    distribution; the Example above reports only on an affected release.
    """

    code = "DEV602"
    name = "composer-device-transforms-on-cpu"
    message = (
        "Composer {version} ({source}) applies `device_transforms` on the CPU, before the batch is moved ({reference})"
    )
    markers = (r"device_transforms\s*=",)
    example_versions = (("mosaicml", "0.26.0"),)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.symbols.qualify(node.func) or ""
        if not (qualified.startswith("composer.") and qualified.endswith(".DataSpec")):
            return
        argument = patterns.keyword(node, "device_transforms")
        if argument is None or (isinstance(argument.value, cst.Name) and argument.value.value == "None"):
            return
        self.report_affected(argument.keyword or argument)


def _is_mps(node: cst.BaseExpression, rule: Rule) -> bool:
    text = patterns.string_value(node)
    if text is not None:
        return text.split(":")[0] == "mps"
    if isinstance(node, cst.Call):
        qualified = rule.ctx.symbols.qualify(node.func) or ""
        if qualified.endswith(".DeviceMPS") and "MPS" in rule.ctx.code_for(node.func):
            return True  # (the name as written holds the marker text, even under an alias)
        if qualified == "torch.device":
            first = patterns.positional(node, 0)
            return first is not None and _is_mps(first.value, rule)
    return False


class ComposerMpsEvaluation(AdvisoryRule):
    """Composer 0.10-0.21.1: evaluation on `device="mps"` mixes devices.

    ## What it does
    Finds a Composer `Trainer(device="mps", ...)` that evaluates (an
    `eval_dataloader=` in the same function or script) in a project on Composer
    (`mosaicml`) 0.10.0 up to (not including) 0.21.2.

    ## Why is this bad?
    On MPS those releases move the model outputs to the CPU for the metrics but
    leave the batch on the device, so every metric update fails with
    `Encountered different devices in metric calculation`
    (mosaicml/composer#3094, fixed by #3105 in 0.21.2).

    ## Example
    ```python
    from composer import Trainer

    trainer = Trainer(model=model, train_dataloader=train, eval_dataloader=val, device="mps")
    ```

    ## Use instead
    ```python
    from composer import Trainer

    trainer = Trainer(model=model, train_dataloader=train, eval_dataloader=val, device="cpu")
    ```
    (or upgrade Composer to 0.21.2 or later and keep `device="mps"`).

    ## Fix safety
    Display-only: the way out is a different Composer release. The release is
    read from `--device-versions`, the project's pins, or the installed
    distribution; the Example above reports only on an affected release.
    """

    code = "DEV603"
    name = "composer-mps-evaluation"
    message = (
        "Composer {version} ({source}) fails to evaluate on MPS: "
        "`Encountered different devices in metric calculation` ({reference})"
    )
    markers = (r"eval_dataloader\s*=", r"mps|MPS")
    example_versions = (("mosaicml", "0.20.0"),)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._mps_trainers: list[tuple[cst.CSTNode | None, cst.CSTNode]] = []
        self._evaluating: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.ctx.current_function
        if patterns.keyword(node, "eval_dataloader") is not None:
            self._evaluating.add(id(scope))
        qualified = self.ctx.symbols.qualify(node.func) or ""
        if not (qualified.startswith("composer") and qualified.endswith(".Trainer")):
            return
        device = patterns.keyword(node, "device")
        if device is not None and _is_mps(device.value, self):
            self._mps_trainers.append((scope, device.value))

    def leave_Module(self, node: cst.Module) -> None:
        for scope, device in self._mps_trainers:
            if id(scope) in self._evaluating:
                self.report_affected(device)


_LR_FINDER_CALLBACKS = ("lightning.pytorch.callbacks", "pytorch_lightning.callbacks", "lightning.pytorch", "lightning")


class LightningLrFindBeforeDdp(AdvisoryRule):
    """Lightning before 2.4: the learning-rate finder before a multi-device DDP fit.

    ## What it does
    Finds the learning-rate finder (`Tuner(trainer).lr_find(...)` or the
    `LearningRateFinder` callback) used in the same function (or script) as a
    Lightning `Trainer` set up for multi-device DDP (`strategy="ddp..."`, or
    `devices` above 1), in a project on `lightning` / `pytorch_lightning`
    before 2.4.0.

    ## Why is this bad?
    The finder's teardown leaves the cached logged metrics on the CPU, and the
    real fit then reduces them over NCCL: `No backend type associated with
    device type cpu` (Lightning-AI/pytorch-lightning#19813, fixed by #19814 in
    2.4.0).

    ## Example
    ```python
    import lightning as L
    from lightning.pytorch.tuner import Tuner

    trainer = L.Trainer(strategy="ddp", devices=4)
    Tuner(trainer).lr_find(model, datamodule=data)
    trainer.fit(model, datamodule=data)
    ```

    ## Use instead
    ```python
    import lightning as L
    from lightning.pytorch.tuner import Tuner


    def find_lr(model, data):
        return Tuner(L.Trainer(devices=1)).lr_find(model, datamodule=data)


    def train(model, data):
        trainer = L.Trainer(strategy="ddp", devices=4)
        trainer.fit(model, datamodule=data)
    ```
    (find the learning rate in a separate single-device run, or upgrade
    Lightning to 2.4.0 or later).

    ## Fix safety
    Display-only: the way out is a different Lightning release or a separate
    run. The release is read from `--device-versions`, the project's pins, or
    the installed distribution; the Example above reports only on an affected
    release.
    """

    code = "DEV604"
    name = "lightning-lr-find-before-ddp"
    message = (
        "Lightning {version} ({source}) leaves logged metrics on the CPU after the learning-rate finder, "
        "so the DDP fit fails: `No backend type associated with device type cpu` ({reference})"
    )
    markers = (r"(?:lr_find|LearningRateFinder)\s*\(", r"ddp|devices")
    example_versions = (("lightning", "2.3.3"),)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._finders: list[tuple[int, cst.CSTNode]] = []
        self._ddp_scopes: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        scope = id(self.ctx.current_function)
        qualified = self.ctx.symbols.qualify(node.func) or ""
        if qualified.startswith(("lightning", "pytorch_lightning")) and qualified.endswith(".Trainer"):
            if _multi_device_ddp(node):
                self._ddp_scopes.add(scope)
            return
        if patterns.method_name(node) == "lr_find":
            self._finders.append((scope, node.func.attr))  # type: ignore[attr-defined]
        elif (
            qualified.startswith(_LR_FINDER_CALLBACKS)
            and qualified.endswith(".LearningRateFinder")
            and patterns.last_name(node.func) == "LearningRateFinder"  # as written: what the marker finds
        ):
            self._finders.append((scope, node.func))

    def leave_Module(self, node: cst.Module) -> None:
        for scope, finder in self._finders:
            if scope in self._ddp_scopes:
                self.report_affected(finder)


def _multi_device_ddp(trainer: cst.Call) -> bool:
    strategy = patterns.keyword(trainer, "strategy")
    if strategy is not None:
        text = patterns.string_value(strategy.value)
        named = text if text is not None else _callee_name(strategy.value)
        if named is None:
            return False
        if "ddp" in named.lower():
            return True
        if text is not None and text != "auto":
            return False  # another strategy (fsdp, deepspeed, single_device)
    devices = patterns.keyword(trainer, "devices")
    if devices is None:
        return False
    value = devices.value
    if isinstance(value, cst.Integer):
        return int(value.value) > 1
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        return True  # devices=-1: every GPU
    if isinstance(value, (cst.List, cst.Tuple)):
        return len(value.elements) > 1
    text = patterns.string_value(value)
    return text is not None and (text.strip() == "-1" or "," in text.strip(", "))


def _callee_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute):
            return func.attr.value
        if isinstance(func, cst.Name):
            return func.value
    return None
