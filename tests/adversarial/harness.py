"""The adversarial fix suite: every fixable pattern, in contexts built to break its fix.

Each ``cases/<CODE>.cases`` file holds whole programs, each opened by a line
``# === <name>`` and a few header comments:

- ``# expect: DEV101 safe`` (several allowed; levels ``safe``, ``unsafe``,
  ``display-only``, ``none``): the fix level the finding must have, ``none``
  for no finding of that code;
- ``# original: device-error`` (or ``runs``, ``error``): what the program
  does before any fix, on PyTorch's ``meta`` device (``DEVICE=meta``);
- ``# select: DEV404``: codes switched on besides the default ones;
- ``# notebook``: the program is a notebook, its cells separated by ``# %%``;
- ``# contains: <text>`` / ``# once: <text>``: the fixed program (after
  ``--fix --unsafe-fixes``) holds ``<text>`` (exactly once).

A case is run three times, in this process, on the meta device: as written,
after ``--fix``, and after ``--fix --unsafe-fixes``.  A fixed program that
changed must run; one that did not change must keep its findings.  The meta
device holds no data, so a program that gets as far as copying data to the
host (``.cpu()``, ``.numpy()``, ``.item()`` of a meta tensor) counts as
running.  Distributed training and Lightning are emulated as they behave on a
GPU job: NCCL collectives and ``DistributedDataParallel`` refuse CPU tensors,
and ``LightningModule.log(..., sync_dist=True)`` reduces over NCCL; pinning a
GPU (``torch.cuda.set_device``, ``torch.cuda.device``) behaves as on a machine
with one GPU; and moving a module keeps its parameter objects, as on CUDA.

The harness uses only the engine's public API, so it can judge another
checkout too (``run.py --checkout DIR``): that is how the "before" figures were
taken.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import runpy
import sys
import tempfile
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CASES = Path(__file__).parent / "cases"
LEVELS = ("safe", "unsafe", "display-only", "none")
_HEADER = re.compile(r"^# (expect|original|select|notebook|contains|once)\b:?\s*(.*)$")
DEVICE_ERROR = re.compile(r"device|weight type .* should be|No backend type associated", re.I)
# What the meta device cannot do (it holds no data): reaching it means the program ran that far.
META_DATA = re.compile(
    r"Cannot copy out of meta tensor|cannot be called on meta tensors|meta tensors? (?:has|have) no data"
)


@dataclass
class Case:
    rule: str
    name: str
    text: str
    expect: dict[str, str] = field(default_factory=dict)
    original: str = "device-error"
    select: tuple[str, ...] = ()
    notebook: bool = False
    contains: list[str] = field(default_factory=list)
    once: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.rule}:{self.name}"


def load_cases(directory: Path = CASES) -> list[Case]:
    cases = []
    for path in sorted(directory.glob("*.cases")):
        chunks = re.split(r"^# === (.+)\n", path.read_text(encoding="utf-8"), flags=re.M)
        for name, body in zip(chunks[1::2], chunks[2::2]):
            case = Case(path.stem, name.strip(), body)
            for line in body.splitlines():
                match = _HEADER.match(line)
                if match is None:
                    continue
                key, value = match.groups()
                if key == "expect":
                    for item in value.split(","):
                        code, level = item.split()
                        assert level in LEVELS, f"{case.id}: unknown level {level}"
                        case.expect[code] = level
                elif key == "original":
                    case.original = value.strip()
                elif key == "select":
                    case.select = tuple(v.strip() for v in value.split(","))
                elif key == "notebook":
                    case.notebook = True
                elif key == "contains":
                    case.contains.append(value)
                elif key == "once":
                    case.once.append(value)
            cases.append(case)
    return cases


# -- running a program on the meta device ---------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    status: str  # "runs", "device-error" or "error"
    detail: str = ""


def execute(text: str, device: str = "meta") -> Outcome:
    """Run ``text`` as ``__main__`` with ``DEVICE=meta`` (or another device: bench/cuda runs the suite on
    CUDA) and the distributed emulation."""
    import torch

    with tempfile.TemporaryDirectory() as directory, _emulation(), _quiet():
        path = Path(directory) / "program.py"
        path.write_text(text, encoding="utf-8")
        previous = os.environ.get("DEVICE")
        os.environ["DEVICE"] = device
        cwd = os.getcwd()
        os.chdir(directory)
        try:
            torch.manual_seed(0)
            runpy.run_path(str(path), run_name="__main__")
        except BaseException as error:  # noqa: BLE001 - a program may end any way at all
            return _classify(error)
        finally:
            os.chdir(cwd)
            if previous is None:
                os.environ.pop("DEVICE", None)
            else:
                os.environ["DEVICE"] = previous
            torch.set_default_device(None)
    return Outcome("runs")


def _classify(error: BaseException) -> Outcome:
    detail = f"{type(error).__name__}: {error}".splitlines()[0][:300]
    if isinstance(error, KeyboardInterrupt):
        raise error
    if META_DATA.search(str(error)):
        return Outcome("runs", f"(reached data on the meta device) {detail}")
    if isinstance(error, (RuntimeError, TypeError, ValueError)) and DEVICE_ERROR.search(str(error)):
        return Outcome("device-error", detail)
    return Outcome("error", detail)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


_NO_CPU_BACKEND = "No backend type associated with device type cpu"


@contextlib.contextmanager
def _emulation() -> Iterator[None]:
    """``torch.distributed`` as on a GPU job (NCCL refuses CPU tensors), GPU pinning as on a machine
    with one GPU, and a small Lightning."""
    import torch
    import torch.distributed as dist
    import torch.nn.parallel as parallel

    state: dict[str, Any] = {"backend": None}

    def tensors(values: Any) -> Iterator[torch.Tensor]:
        if isinstance(values, torch.Tensor):
            yield values
        elif isinstance(values, (list, tuple)):
            for value in values:
                yield from tensors(value)

    def collective(*args: Any, **kwargs: Any) -> None:
        if state["backend"] == "nccl":
            for tensor in tensors([*args, *kwargs.values()]):
                if tensor.device.type == "cpu":
                    raise RuntimeError(_NO_CPU_BACKEND)

    def init_process_group(backend: str | None = None, *args: Any, **kwargs: Any) -> None:
        state["backend"] = backend

    class DistributedDataParallel(torch.nn.Module):
        def __init__(self, module: torch.nn.Module, device_ids: Any = None, *args: Any, **kwargs: Any) -> None:
            super().__init__()
            places = {p.device.type for p in module.parameters()}
            if device_ids is not None and "cpu" in places:
                raise RuntimeError(
                    "DistributedDataParallel device_ids and output_device arguments only work with "
                    f"single-device/multiple-device GPU modules or CPU modules, but got device_ids {device_ids}"
                )
            if state["backend"] == "nccl" and "cpu" in places:
                raise RuntimeError(_NO_CPU_BACKEND)
            self.module = module

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return self.module(*args, **kwargs)

    replaced: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        replaced.append((owner, name, getattr(owner, name, None)))
        setattr(owner, name, value)

    patch(dist, "init_process_group", init_process_group)
    for name in (
        "all_reduce",
        "all_gather",
        "broadcast",
        "reduce",
        "gather",
        "scatter",
        "reduce_scatter",
        "all_to_all_single",
        "all_gather_into_tensor",
        "reduce_scatter_tensor",
        "send",
        "recv",
        "barrier",
    ):
        patch(dist, name, collective)
    patch(dist, "get_world_size", lambda *a, **k: 1)
    patch(dist, "get_rank", lambda *a, **k: 0)
    patch(dist, "is_initialized", lambda: state["backend"] is not None)
    patch(dist, "destroy_process_group", lambda *a, **k: None)
    patch(parallel, "DistributedDataParallel", DistributedDataParallel)
    # Pinning a GPU, on a machine with one GPU (index 0): a literal index beyond it is refused.

    def gpu_index(device: Any) -> Any:
        return torch.device(device).index if isinstance(device, (str, torch.device)) else device

    def set_device(device: Any) -> None:
        index = gpu_index(device)
        if index is None:  # as CUDA: set_device("cuda") names no GPU
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        if int(index) >= 1:
            raise RuntimeError("CUDA error: invalid device ordinal")

    @contextlib.contextmanager
    def cuda_device(device: Any) -> Iterator[None]:
        index = gpu_index(device)
        if index is not None:  # the context manager, unlike set_device, takes CUDA without an index
            set_device(index)
        yield

    patch(torch.nn.parallel.distributed, "DistributedDataParallel", DistributedDataParallel)
    added = _fake_lightning(torch)
    swapping = torch.__future__.get_swap_module_params_on_conversion()
    if not torch.cuda.is_available():  # on a GPU machine (bench/cuda) the real CUDA does both
        patch(torch.cuda, "set_device", set_device)
        patch(torch.cuda, "device", cuda_device)
        # ``module.to(device)`` keeps its parameter objects, as on CUDA (the meta device would make
        # new ones, and so hide every optimizer that holds the old ones).
        torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        yield
    finally:
        torch.__future__.set_swap_module_params_on_conversion(swapping)
        for owner, name, value in reversed(replaced):
            setattr(owner, name, value)
        for name in added:
            sys.modules.pop(name, None)


def _fake_lightning(torch: Any) -> list[str]:
    class LightningModule(torch.nn.Module):
        @property
        def device(self) -> Any:
            first = next(iter([*self.parameters(), *self.buffers()]), None)
            return first.device if first is not None else torch.device("cpu")

        def log(self, name: str, value: Any, *args: Any, sync_dist: bool = False, **kwargs: Any) -> None:
            if sync_dist and isinstance(value, torch.Tensor) and value.device.type == "cpu":
                if self.device.type != "cpu":
                    raise RuntimeError(_NO_CPU_BACKEND)

        def log_dict(self, values: dict[str, Any], *args: Any, sync_dist: bool = False, **kwargs: Any) -> None:
            for name, value in values.items():
                self.log(name, value, sync_dist=sync_dist)

    added = []
    for name in ("lightning", "lightning.pytorch", "pytorch_lightning"):
        if name in sys.modules:
            continue
        module = types.ModuleType(name)
        module.LightningModule = LightningModule  # type: ignore[attr-defined]
        sys.modules[name] = module
        added.append(name)
    if "lightning" in added and "lightning.pytorch" in added:
        sys.modules["lightning"].pytorch = sys.modules["lightning.pytorch"]  # type: ignore[attr-defined]
    return added


# -- linting and fixing ------------------------------------------------------------------------------------


def _engine(case: Case) -> Any:
    from flake8_device.engine import Engine
    from flake8_device.registry import all_rules

    rules = [r for r in all_rules() if r.default_enabled or r.code in case.select]
    return Engine(rules)


def _notebook(text: str) -> bytes:
    cells = re.split(r"^# %%[^\n]*\n", text, flags=re.M)
    document = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": cell}
            for cell in cells
            if cell.strip()
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1).encode("utf-8")


def _program(data: bytes) -> str:
    cells = json.loads(data)["cells"]
    return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells)


@dataclass
class Finding:
    line: int
    code: str
    safety: str
    title: str | None
    reason: str | None


def findings(case: Case, text: str) -> list[Finding]:
    engine = _engine(case)
    if case.notebook:
        from flake8_device.notebook import lint_notebook

        report = lint_notebook(engine, _notebook(text), "case.ipynb")
        violations = [c.violation for c in report.violations]
    else:
        violations = engine.lint(text, honour_noqa=True).violations
    return [
        Finding(v.line, v.code, v.fix_safety.value, v.fix_title, getattr(v, "fix_reason", None)) for v in violations
    ]


def fixed(case: Case, text: str, *, unsafe: bool) -> str:
    engine = _engine(case)
    if case.notebook:
        from flake8_device.notebook import fix_notebook

        return _program(fix_notebook(engine, _notebook(text), "case.ipynb", unsafe_fixes=unsafe).data)
    return engine.fix(text, unsafe_fixes=unsafe).text


def _as_program(case: Case, text: str) -> str:
    return _program(_notebook(text)) if case.notebook else text


@dataclass
class Result:
    case: Case
    original: Outcome
    before: list[Finding]
    safe_text: str
    unsafe_text: str
    safe: Outcome | None
    unsafe: Outcome | None
    after_safe: list[Finding]
    after_unsafe: list[Finding]
    problems: list[str] = field(default_factory=list)

    @property
    def broken_safe(self) -> bool:
        return self.safe is not None and self.safe.status != "runs"

    @property
    def broken_unsafe(self) -> bool:
        return self.unsafe is not None and self.unsafe.status != "runs"


def check(case: Case) -> Result:
    """Run the case before and after both fix levels; list every property it breaks."""
    program = _as_program(case, case.text)
    original = execute(program)
    before = findings(case, case.text)
    safe_text = fixed(case, case.text, unsafe=False)
    unsafe_text = fixed(case, case.text, unsafe=True)
    safe_program, unsafe_program = _as_program(case, safe_text), _as_program(case, unsafe_text)
    safe = execute(safe_program) if safe_program != program else None
    unsafe = execute(unsafe_program) if unsafe_program != program else None
    after_safe = findings(case, safe_text)
    after_unsafe = findings(case, unsafe_text)
    result = Result(case, original, before, safe_text, unsafe_text, safe, unsafe, after_safe, after_unsafe)
    problems = result.problems
    if original.status != case.original:
        problems.append(f"the original program {original.status} ({original.detail}), not {case.original}")
    if result.broken_safe:
        problems.append(f"--fix broke it: {safe.detail}")  # type: ignore[union-attr]
    if result.broken_unsafe:
        problems.append(f"--fix --unsafe-fixes broke it: {unsafe.detail}")  # type: ignore[union-attr]
    for code, level in case.expect.items():
        found = [f for f in before if f.code == code]
        if level == "none":
            if found:
                problems.append(f"{code} reported at line {found[0].line}, expected silence")
            continue
        if not found:
            problems.append(f"{code} not reported")
            continue
        levels = {f.safety for f in found}
        if levels != {level}:
            reasons = "; ".join(f"{f.safety}: {f.reason}" for f in found)
            problems.append(f"{code} fix is {sorted(levels)}, expected {level} ({reasons})")
        if level == "safe" and any(f.code == code for f in after_safe):
            problems.append(f"{code} is still reported after --fix (an occurrence left unrepaired)")
        if level in ("safe", "unsafe") and any(f.code == code for f in after_unsafe):
            problems.append(f"{code} is still reported after --fix --unsafe-fixes")
        if level == "display-only" and not any(f.code == code for f in after_unsafe):
            problems.append(f"{code}'s fix was withheld but its finding is gone after the fixes")
    code = "".join(line for line in unsafe_text.splitlines(keepends=True) if not _HEADER.match(line))
    for text in case.contains:
        if text not in code:
            problems.append(f"the fixed program lacks {text!r}")
    for text in case.once:
        if code.count(text) != 1:
            problems.append(f"the fixed program holds {text!r} {code.count(text)} times, expected once")
    return result
