"""DEV51x: DeepSpeed configuration — offload settings that do not do what they say.

These rules check DeepSpeed configurations both as dict literals reaching a
consumer in code (see :mod:`flake8_device.analysis.deepspeed`) and as JSON
files (``flake8-device ds_config.json``, see :mod:`flake8_device.json_configs`).
Each rule's check is a class method over the configuration tree, so both get
the same findings from the same code.  Harmless oddities stay silent:
``pin_memory`` with device ``none``, and mixed offload devices (optimizer on
``cpu``, parameters ``none``), which are legal and common.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Optional

import libcst as cst

from flake8_device.analysis.deepspeed import Anchor, ConfigObject, ConfigValue, zero_stage
from flake8_device.model import FixSafety
from flake8_device.rule import Rule
from flake8_device.versions import ResolvedVersion

# What DeepSpeed's offload configs accept (``OffloadDeviceEnum``); "auto" is left to launchers that fill it.
OFFLOAD_DEVICES = frozenset({"cpu", "nvme", "none"})
_OFFLOAD_SECTIONS = ("offload_optimizer", "offload_param")
CONSUMER_MARKER = r"\b(?:initialize|HfDeepSpeedConfig|TrainingArguments|DeepSpeedStrategy|DeepSpeedPlugin)\s*\("

VersionLookup = Callable[..., Optional[ResolvedVersion]]
Finding = tuple[Anchor, dict[str, Any]]


class DeepSpeedConfigRule(Rule):
    """Base of the rules that check a DeepSpeed configuration tree (no code of its own)."""

    markers = (r"zero_optimization", r"offload_(?:param|optimizer)", CONSUMER_MARKER)

    @classmethod
    def check_config(
        cls, config: ConfigObject, *, hugging_face: bool, versions: VersionLookup
    ) -> Iterator[Finding]:  # pragma: no cover - every concrete rule overrides it
        raise NotImplementedError

    def visit_Module(self, node: cst.Module) -> None:
        for use in self.ctx.deepspeed_configs:
            for anchor, fields in self.check_config(
                use.config, hugging_face=use.hugging_face, versions=self.ctx.package_version
            ):
                assert isinstance(anchor, cst.CSTNode)
                fix = self.make_fix(**fields) if self.fix_title is not None else None
                self.report(anchor, fix=fix, **fields)


def offload_sections(config: ConfigObject) -> Iterator[tuple[str, ConfigValue, ConfigObject]]:
    """``(name, entry, section)`` for each offload section written as an object."""
    zero = config.object("zero_optimization")
    if zero is None:
        return
    for name in _OFFLOAD_SECTIONS:
        entry = zero.get(name)
        if entry is not None and isinstance(entry.value, ConfigObject):
            yield name, entry, entry.value


class OffloadParamBelowStage3(DeepSpeedConfigRule):
    """`offload_param` with a ZeRO stage below 3.

    ## What it does
    Finds a DeepSpeed configuration (a JSON file, or a dict reaching
    `deepspeed.initialize`, `HfDeepSpeedConfig`, `TrainingArguments(deepspeed=...)`,
    Lightning's `DeepSpeedStrategy` or Accelerate's `DeepSpeedPlugin`) that
    offloads parameters (`offload_param` on `cpu` or `nvme`) with a ZeRO stage
    below 3 (including a missing `stage`, which means 0).

    ## Why is this bad?
    Only ZeRO stage 3 partitions the parameters, so only stage 3 can offload
    them. Below it, `offload_param` is silently ignored: the parameters stay on
    the GPU, and the run that was sized for offloaded parameters runs out of
    GPU memory (or is slower than planned) without any hint why.

    ## Example
    ```python
    import deepspeed

    ds_config = {
        "train_micro_batch_size_per_gpu": 4,
        "zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}},
    }
    engine, *_ = deepspeed.initialize(model=model, config=ds_config)
    ```

    ## Use instead
    ```python
    import deepspeed

    ds_config = {
        "train_micro_batch_size_per_gpu": 4,
        "zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}},
    }
    engine, *_ = deepspeed.initialize(model=model, config=ds_config)
    ```

    ## Fix safety
    Display-only: moving to stage 3 changes how the whole model is sharded and
    checkpointed, and removing the offload changes the memory plan; which one
    was meant is for the author to decide.
    """

    code = "DEV511"
    name = "offload-param-below-stage-3"
    message = "`offload_param` to `{device}` has no effect at ZeRO stage {stage}: only stage 3 offloads parameters"
    fix_title = "Use ZeRO stage 3, or remove `offload_param`"
    fix_safety = FixSafety.DISPLAY_ONLY

    @classmethod
    def check_config(cls, config: ConfigObject, *, hugging_face: bool, versions: VersionLookup) -> Iterator[Finding]:
        zero = config.object("zero_optimization")
        if zero is None:
            return
        stage, written = zero_stage(zero)
        if stage is None or stage >= 3:
            return
        for name, entry, section in offload_sections(config):
            device = section.string("device")
            if name == "offload_param" and device in ("cpu", "nvme"):
                shown = str(stage) if written else "0 (no `stage` given)"
                yield entry.key_anchor or entry.anchor, {"device": device, "stage": shown}


class NvmeOffloadWithoutPath(DeepSpeedConfigRule):
    """NVMe offload without `nvme_path`.

    ## What it does
    Finds an `offload_optimizer` or `offload_param` section with `"device":
    "nvme"` and no `nvme_path` (or an empty one).

    ## Why is this bad?
    DeepSpeed has no default NVMe location: the swap files need a directory on
    a fast local disk. Without it the engine fails while it sets up the
    offload, after the model has been built and often after a long queue wait.

    ## Example
    ```python
    import deepspeed

    ds_config = {
        "zero_optimization": {"stage": 3, "offload_param": {"device": "nvme"}},
    }
    engine, *_ = deepspeed.initialize(model=model, config=ds_config)
    ```

    ## Use instead
    ```python
    import deepspeed

    ds_config = {
        "zero_optimization": {"stage": 3, "offload_param": {"device": "nvme", "nvme_path": "/local_nvme"}},
    }
    engine, *_ = deepspeed.initialize(model=model, config=ds_config)
    ```

    ## Fix safety
    Display-only: only the author knows which local disk to use.
    """

    code = "DEV512"
    name = "nvme-offload-without-path"
    message = "`{section}` offloads to `nvme` but names no `nvme_path` for the swap files"
    fix_title = 'Add `"nvme_path"` with a directory on a local NVMe disk'
    fix_safety = FixSafety.DISPLAY_ONLY
    markers = (r"zero_optimization", r"nvme", CONSUMER_MARKER)

    @classmethod
    def check_config(cls, config: ConfigObject, *, hugging_face: bool, versions: VersionLookup) -> Iterator[Finding]:
        for name, _, section in offload_sections(config):
            device = section.get("device")
            if device is None or device.value != "nvme" or section.open:
                continue
            path = section.get("nvme_path")
            if path is None or path.value is None or path.value == "":
                yield device.anchor, {"section": name}


class UnknownOffloadDevice(DeepSpeedConfigRule):
    """Unknown offload device.

    ## What it does
    Finds an `offload_optimizer` or `offload_param` section whose `device` is
    not one DeepSpeed knows: `cpu`, `nvme` or `none` (`"auto"` is left alone,
    for launchers that fill it in).

    ## Why is this bad?
    `"gpu"`, `"cuda"` or `"CPU"` look reasonable but are not accepted:
    DeepSpeed rejects the configuration when the engine starts, after the
    model was built, and a job fails that a linter could have stopped.

    ## Example
    ```python
    import deepspeed

    ds_config = {
        "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "gpu"}},
    }
    engine, *_ = deepspeed.initialize(model=model, config=ds_config)
    ```

    ## Use instead
    ```python
    import deepspeed

    ds_config = {
        "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "none"}},
    }
    engine, *_ = deepspeed.initialize(model=model, config=ds_config)
    ```

    ## Fix safety
    Display-only: keeping the state on the GPU (`none`) and offloading it
    (`cpu`) are different memory plans.
    """

    code = "DEV513"
    name = "unknown-offload-device"
    message = "`{section}` device `{device}` is not one DeepSpeed accepts (`cpu`, `nvme` or `none`)"
    fix_title = "Use `none` (keep it on the GPU), `cpu` or `nvme`"
    fix_safety = FixSafety.DISPLAY_ONLY

    @classmethod
    def check_config(cls, config: ConfigObject, *, hugging_face: bool, versions: VersionLookup) -> Iterator[Finding]:
        for name, _, section in offload_sections(config):
            device = section.get("device")
            if device is None or not isinstance(device.value, str):
                continue
            if device.value not in OFFLOAD_DEVICES and device.value != "auto":
                yield device.anchor, {"section": name, "device": device.value}
