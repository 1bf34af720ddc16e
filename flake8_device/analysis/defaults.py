"""Where a file changes PyTorch's default device, read from the ``ast`` of the whole file.

``torch.set_default_device("cuda")`` (or the older
``torch.set_default_tensor_type(torch.cuda.FloatTensor)``) makes every factory
without ``device=`` allocate on the accelerator, including the ``torch.randperm``
that a shuffling ``DataLoader`` runs with its own CPU generator.  The setting is
global, so it matters wherever it is in the file; it is read from the ``ast``
(which covers the whole file) rather than from the units the engine parsed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from flake8_device.analysis import torch_api
from flake8_device.analysis.symbols import Symbols, ast_dotted_name

_ACCELERATOR = re.compile(r"^(?:cuda|mps|xpu|npu|hpu|xla|mlu)(?::\d+)?$")
_ACCELERATOR_TENSOR_TYPE = re.compile(r"^torch\.(?:cuda|mps|xpu|npu)\.\w+Tensor$")
_DEVICE_NAME = re.compile(r"(?:^|_|\.)(?:device|dev|gpu|cuda)$", re.I)


@dataclass(frozen=True)
class DefaultDeviceSetting:
    line: int
    # The setting as written, for messages: ``torch.set_default_device("cuda")``.
    text: str
    # True: an accelerator; False: the CPU; None: cannot tell.
    accelerator: bool | None
    # ``with torch.device(...):`` sets it for a block only.
    scoped: bool = False
    # The functions (and classes) around it, by name: ``()`` at module level, ``("main",)``.
    path: tuple[str, ...] = ()
    # The device as written (``device``, ``"cuda"``), for messages; None when not one argument.
    argument: str | None = None


def _is_accelerator(node: ast.expr | None, symbols: Symbols) -> bool | None:
    """Is this argument of a default-device setter an accelerator?"""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return False
        if isinstance(node.value, str):
            if node.value.split(":")[0] == "cpu" or node.value.startswith("torch.") and ".cuda." not in node.value:
                return False
            return bool(_ACCELERATOR.match(node.value) or _ACCELERATOR_TENSOR_TYPE.match(node.value))
        return None
    if (
        isinstance(node, ast.Call)
        and symbols.qualify_dotted(ast_dotted_name(node.func)) == "torch.device"
        and node.args
    ):
        return _is_accelerator(node.args[0], symbols)
    dotted = ast_dotted_name(node)
    if dotted is None:
        return None
    qualified = symbols.qualify_dotted(dotted)
    if qualified is not None and qualified.startswith("torch.") and qualified.endswith("Tensor"):
        return bool(_ACCELERATOR_TENSOR_TYPE.match(qualified))
    # A variable named like a device is the accelerator the code is written for (the same
    # convention as ``.to(device)`` in the flow analysis); ``device.type`` is its kind.
    if dotted.endswith(".type"):
        dotted = dotted[: -len(".type")]
    return True if _DEVICE_NAME.search(dotted) else None


def default_device_settings(tree: ast.Module | None, symbols: Symbols) -> list[DefaultDeviceSetting]:
    """Every call that sets the default device, and every ``with torch.device(...):`` block."""
    if tree is None:
        return []
    found: list[DefaultDeviceSetting] = []
    # (node, path of the definitions around it)
    stack: list[tuple[ast.AST, tuple[str, ...]]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            path = (*path, node.name)
        if isinstance(node, ast.Call):
            if symbols.qualify_dotted(ast_dotted_name(node.func)) in torch_api.DEFAULT_DEVICE_SETTERS:
                argument = node.args[0] if node.args else None
                accelerator = _is_accelerator(argument, symbols)
                written = ast.unparse(argument) if argument is not None else None
                found.append(DefaultDeviceSetting(node.lineno, _text(node), accelerator, path=path, argument=written))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and symbols.qualify_dotted(ast_dotted_name(call.func)) == "torch.device":
                    argument = call.args[0] if call.args else None
                    accelerator = _is_accelerator(argument, symbols)
                    found.append(DefaultDeviceSetting(call.lineno, _text(call), accelerator, scoped=True, path=path))
        stack.extend((child, path) for child in ast.iter_child_nodes(node))
    return sorted(found, key=lambda s: s.line)


def _text(node: ast.expr) -> str:
    """The call on one line, shortened, for messages."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 60 else text[:57] + "..."
