"""Which parameters of a function are tensors (and so live wherever its inputs live)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from flake8_device.analysis.flow.knowledge import (
    CONFIG_OWNER,
    MODULE_OWNER,
    MODULE_TENSOR_EVIDENCE,
    TENSOR_EVIDENCE,
)
from flake8_device.analysis.flow.syntax import descendants

if TYPE_CHECKING:
    from flake8_device.analysis.facts import FileFacts


def tensor_inputs(
    function: cst.FunctionDef,
    ctx: FileFacts,
    *,
    skip_first: bool,
    in_module: bool = False,
    device_aware: bool = False,
    host_side: bool = False,
    evidence: tuple[set[str], bool] | None = None,
) -> list[str]:
    """Parameters that are tensors: annotated so, or used like one (``x.size(1)``, ``x.device``;
    in a module's methods also ``x.shape``, since NumPy arrays rarely reach ``forward``).

    With ``device_aware``, a function that never mentions a device has only the parameters it
    annotates as tensors: outside a module, such a function may well be meant for host tensors
    only (and say so only in its docstring), but an annotation says a tensor comes in, wherever
    it lives.  Code that says it works on host tensors (``host_side``: a collator's, a dataset's,
    or one whose docstring says so) is taken at its word: there, annotations count no more than use.
    """
    params = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    if skip_first:
        params = params[1:]
    # From the function's source text when known (cheap), else from its tree.
    used_like_tensors, mentions_device = evidence or _tensor_evidence(
        function, MODULE_TENSOR_EVIDENCE if in_module else TENSOR_EVIDENCE
    )
    documented = documented_tensors(function)
    found = []
    for param in params:
        annotation = ctx.code_for(param.annotation.annotation) if param.annotation else ""
        annotated_tensor = (bool(annotation) and ctx.symbols.tensor_annotation(annotation)) or (
            not annotation and param.name.value in documented
        )
        if device_aware and not mentions_device and (host_side or not annotated_tensor):
            continue
        if CONFIG_OWNER.search(param.name.value):
            continue  # ``args.device``, ``cfg.device``: settings, never a tensor
        if annotated_tensor:
            found.append(param.name.value)
        elif not annotation and param.name.value in used_like_tensors and not MODULE_OWNER.search(param.name.value):
            found.append(param.name.value)
    return found


# A parameter documented as one tensor: ``pr (torch.Tensor): predicted tensor`` (Google style) or
# ``pr : torch.Tensor`` (NumPy style), optionally ``, optional``.
_DOCUMENTED_TENSOR = re.compile(
    r"^\s*\*{0,2}(\w+)\s*(?:\(\s*(?:torch\.)?(?:Float|Long|Bool)?Tensor\s*(?:,\s*optional\s*)?\)\s*:"
    r"|:\s*(?:torch\.)?(?:Float|Long|Bool)?Tensor\s*(?:,\s*optional\s*)?$)",
    re.M,
)


def documented_tensors(function: cst.FunctionDef) -> set[str]:
    """The parameters the function's docstring documents as one tensor each."""
    docstring = function.get_docstring(clean=False)
    return set(_DOCUMENTED_TENSOR.findall(docstring)) if docstring else set()


def _tensor_evidence(function: cst.FunctionDef, attributes: frozenset[str]) -> tuple[set[str], bool]:
    """Parameters used like tensors in the body (``x.size(1)``, ``x.device``, ``x.view(...)``),
    and whether the body mentions a device at all (``x.device``, ``device=``, a ``device`` name)."""
    found: set[str] = set()
    mentions_device = False
    for node in descendants(function.body):
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.attr.value in attributes:
                found.add(node.value.value)
            mentions_device = mentions_device or node.attr.value == "device"
        elif isinstance(node, cst.Name):
            mentions_device = mentions_device or "device" in node.value
    return found, mentions_device
