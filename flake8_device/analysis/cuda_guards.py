"""Which code of a function only runs for CUDA: behind a test of CUDA-ness or of CUDA's availability.

Hard-coded CUDA is a portability bug where it decides where a module's values
live.  Three shapes look like it and are not:

- **a branch taken only for CUDA values**: ``x.cuda() if y.is_cuda else x``,
  ``if self.is_cuda: batch = batch.cuda()`` (the module's own CUDA switch),
  ``if x.device.type == "cuda": x.to("cuda")``: the code follows a decision
  already made;
- **a question about CUDA** asked where CUDA exists: ``torch.cuda.get_device_properties(
  torch.device("cuda"))`` after ``if not torch.cuda.is_available(): return``;
- **a probe**: a throwaway tensor made on CUDA, behind an availability check,
  only to call a CUDA-only kernel once (xformers' "can this run?" check), never
  stored or returned;
- **code written for the current CUDA device**: a function that itself places
  values on ``torch.cuda.current_device()`` (Megatron-style code, one process
  per GPU) means the same device by a bare ``.cuda()``.

:func:`cuda_only_regions` computes, per function, the nodes of each kind; a
branch counts when its condition holds only for CUDA (``if <cuda test>`` body,
``else`` of ``if not <cuda test>``, statements after ``if not <cuda test>:
return``/``raise`` in the same block, including ``if not a or not b: return``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from flake8_device.analysis import patterns
from flake8_device.analysis.symbols import Symbols
from flake8_device.walk import children

# A test of a value's CUDA-ness or of the code's own CUDA switch: ``x.is_cuda``, ``self.use_cuda``,
# ``args.cuda``, ``on_gpu``, ``x.device.type == "cuda"``.
_CUDA_FLAG = re.compile(r"^(?:is_|use_|on_|with_|enable_)?(?:cuda|gpu)s?$")
_AVAILABILITY = re.compile(r"cuda\.is_available$|cuda\.device_count$")


@dataclass
class CudaRegions:
    """Node ids of one function: under a CUDA-ness test, under an availability check."""

    cuda_values: set[int] = field(default_factory=set)
    available: set[int] = field(default_factory=set)
    # Arguments of ``torch.cuda.*`` calls: questions about CUDA, not placements.
    query_arguments: set[int] = field(default_factory=set)
    # The function places values on ``torch.cuda.current_device()``: it is written for the current
    # CUDA device (Megatron-style code), which a bare ``.cuda()`` is too.
    current_device: bool = False


def _test_kind(test: cst.BaseExpression, symbols: Symbols, flags: dict[str, str]) -> tuple[str | None, bool]:
    """("flag" | "available" | None, negated) for an ``if`` test."""
    negated = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated = not negated
        test = test.expression
    kind = _kind(test, symbols, flags)
    if kind is not None:
        return kind, negated
    if isinstance(test, cst.BooleanOperation):
        # ``a and b``: true only when both hold (a positive guard); ``not a or not b``: false only
        # when both hold (a negated guard, for early exits).
        operands = _operands(test, type(test.operator))
        if isinstance(test.operator, cst.And) and not negated:
            for operand in operands:
                kind = _kind(operand, symbols, flags)
                if kind is not None:
                    return kind, False
        if isinstance(test.operator, cst.Or) and not negated:
            for operand in operands:
                if isinstance(operand, cst.UnaryOperation) and isinstance(operand.operator, cst.Not):
                    kind = _kind(operand.expression, symbols, flags)
                    if kind is not None:
                        return kind, True
    return None, False


def _operands(node: cst.BaseExpression, operator: type) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, operator):
        return [*_operands(node.left, operator), *_operands(node.right, operator)]
    return [node]


def _kind(test: cst.BaseExpression, symbols: Symbols, flags: dict[str, str]) -> str | None:
    if isinstance(test, cst.Call):
        qualified = symbols.qualify(test.func) or ""
        if _AVAILABILITY.search(qualified):
            return "available"
        return None
    if isinstance(test, cst.Name) and test.value in flags:
        return flags[test.value]
    if isinstance(test, (cst.Name, cst.Attribute)):
        name = patterns.last_name(test) or ""
        return "flag" if _CUDA_FLAG.match(name) else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, (cst.Equal, cst.In)):
            sides = (test.left, target.comparator)
            if any(patterns.string_value(s) in ("cuda", "gpu") for s in sides) and any(
                isinstance(s, cst.Attribute) and s.attr.value in ("type", "device", "device_type") for s in sides
            ):
                return "flag"
        if isinstance(target.operator, (cst.GreaterThan, cst.NotEqual)) and isinstance(test.left, cst.Call):
            if _AVAILABILITY.search(symbols.qualify(test.left.func) or ""):
                return "available"  # torch.cuda.device_count() > 0
    return None


def cuda_only_regions(function: cst.CSTNode, symbols: Symbols) -> CudaRegions:
    regions = CudaRegions()
    _block(children(function), regions, symbols, frozenset(), {})
    return regions


def _mark(node: cst.CSTNode, regions: CudaRegions, kinds: frozenset[str]) -> None:
    if "flag" in kinds:
        regions.cuda_values.add(id(node))
    if "available" in kinds:
        regions.available.add(id(node))


def _exits(body: cst.BaseSuite) -> bool:
    statements = body.body
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(s, (cst.Return, cst.Raise, cst.Continue, cst.Break)) for s in last.body)
    if isinstance(body, cst.SimpleStatementSuite):
        return any(isinstance(s, (cst.Return, cst.Raise, cst.Continue, cst.Break)) for s in statements)
    return False


def _block(
    nodes: list[cst.CSTNode], regions: CudaRegions, symbols: Symbols, kinds: frozenset[str], flags: dict[str, str]
) -> None:
    """Walk ``nodes`` (statements of one block, or any nodes), marking what runs only for CUDA.
    ``flags``: local names bound to a CUDA test (``is_cuda_tensor = x.is_cuda``)."""
    for node in nodes:
        if kinds:
            _mark(node, regions, kinds)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(node, cst.If):
            kind, negated = _test_kind(node.test, symbols, flags)
            taken = kinds | {kind} if kind is not None else kinds
            _block([node.test], regions, symbols, kinds, flags)
            _block([node.body], regions, symbols, taken if not negated else kinds, flags)
            if node.orelse is not None:
                _block([node.orelse], regions, symbols, taken if negated else kinds, flags)
            if kind is not None and negated and _exits(node.body):
                kinds = taken  # the rest of this block runs only for CUDA
            continue
        if isinstance(node, cst.IfExp):
            kind, negated = _test_kind(node.test, symbols, flags)
            taken = kinds | {kind} if kind is not None else kinds
            _block([node.test], regions, symbols, kinds, flags)
            _block([node.body], regions, symbols, taken if not negated else kinds, flags)
            _block([node.orelse], regions, symbols, taken if negated else kinds, flags)
            continue
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            kind = _kind(node.value, symbols, flags)
            if kind is not None:
                flags[node.targets[0].target.value] = kind
        if isinstance(node, cst.Call) and (symbols.qualify(node.func) or "").startswith("torch.cuda."):
            regions.query_arguments.update(id(a.value) for a in node.args)
            if symbols.qualify(node.func) == "torch.cuda.current_device":
                regions.current_device = True
        _block(children(node), regions, symbols, kinds, flags)


def is_probe(call: cst.Call, function: cst.FunctionDef, scope_nodes: tuple[cst.CSTNode, ...]) -> bool:
    """``q = torch.randn(..., device="cuda")`` whose name is only ever passed to calls: a throwaway."""
    target: str | None = None
    for node in scope_nodes:
        if isinstance(node, cst.Assign) and node.value is call and len(node.targets) == 1:
            if isinstance(node.targets[0].target, cst.Name):
                target = node.targets[0].target.value
    if target is None:
        return False
    as_argument: set[int] = set()
    uses = 0
    for node in scope_nodes:
        if isinstance(node, cst.Arg) and isinstance(node.value, cst.Name) and node.value.value == target:
            as_argument.add(id(node.value))
        elif isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value == target for t in node.targets
        ):
            if node.value is not call:
                return False  # rebound: not a simple throwaway
    for node in scope_nodes:
        if isinstance(node, cst.Name) and node.value == target:
            uses += 1
            if id(node) not in as_argument and not _is_target(node, scope_nodes):
                return False
    return uses > 1


def _is_target(name: cst.Name, scope_nodes: tuple[cst.CSTNode, ...]) -> bool:
    return any(isinstance(node, cst.AssignTarget) and node.target is name for node in scope_nodes)
