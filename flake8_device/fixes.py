"""Building fix edits that keep what the user wrote: moves, statements with their comments.

Two kinds of help, shared by the rules and the engine:

- *device-only moves*: a module moved with ``model.to(device, dtype=torch.bfloat16)``
  casts only its floating-point state, while ``tensor.to(device,
  dtype=torch.bfloat16)`` casts anything, indices included.  A fix that repeats
  a module's move on a tensor copies the device and nothing else
  (:func:`device_move`);
- *whole-line statement blocks*: a statement that moves (a swap) takes its own
  trailing comment (``# noqa: E501``, ``# type: ignore[...]``) and the comment
  lines right above it, and never a notebook cell's boundary
  (:func:`statement_block`).
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Collection
from dataclasses import dataclass

import libcst as cst

from flake8_device.analysis import patterns
from flake8_device.model import ReplaceNode
from flake8_device.source import LineIndex

# Keywords of ``Tensor.to`` / ``Module.to`` / ``.cuda`` that are not the device.
_NOT_DEVICE_KEYWORDS = frozenset({"dtype", "non_blocking", "copy", "memory_format"})


@dataclass(frozen=True)
class DeviceMove:
    """The device part of a move call: append ``parts`` to move something else to the same device."""

    parts: tuple[str | cst.CSTNode, ...]
    # The call it was read from (where its names must still hold the same values).
    source: cst.Call
    # What it looks like, for messages and fix titles.
    text: str


def device_move(call: cst.CSTNode | None) -> DeviceMove | None:
    """``.to(device)`` from ``model.to(device, dtype=..., non_blocking=True)`` or from
    ``torch.zeros(n, device=device)``; ``.cuda(1)`` from ``.cuda(1, non_blocking=True)``; None when the
    call names no device (``.to(torch.float16)``)."""
    if not isinstance(call, cst.Call):
        return None
    method = patterns.method_name(call)
    device_keyword = patterns.keyword(call, "device")
    code = cst.Module(body=()).code_for_node
    if method not in ("to", "cuda"):
        # Made on a device: ``torch.zeros(n, device=device)``.
        if device_keyword is None:
            return None
        device = device_keyword.value
        return DeviceMove((".to(", device, ")"), call, f".to({' '.join(code(device).split())})")
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if any(a.star for a in call.args):
        return None
    device: cst.BaseExpression | None = device_keyword.value if device_keyword is not None else None
    if device is None and positional:
        device = positional[0].value
    if method == "cuda":
        if device is None:
            return DeviceMove((".cuda()",), call, ".cuda()")
        return DeviceMove((".cuda(", device, ")"), call, f".cuda({code(device)})")
    if device is None or _is_dtype_like(device):
        return None
    return DeviceMove((".to(", device, ")"), call, f".to({' '.join(code(device).split())})")


def moved(node: cst.BaseExpression, *parts: str | cst.CSTNode) -> ReplaceNode:
    """Replace ``node`` with itself followed by ``parts`` (``.to(``, a device node, ``)``), parenthesised
    where the suffix would bind to less than the whole expression."""
    head = patterns.appended(node, "")[:-1]  # ``(node)`` or ``node``
    return ReplaceNode(node, *head, *parts)


def _is_dtype_like(node: cst.BaseExpression) -> bool:
    """``torch.float16``, ``dtype``: a ``.to`` that casts without moving."""
    name = patterns.last_name(node) or ""
    return name.endswith("dtype") or name in (
        "float16",
        "float32",
        "float64",
        "bfloat16",
        "half",
        "float",
        "double",
        "int8",
        "int16",
        "int32",
        "int64",
        "long",
        "bool",
        "uint8",
        "complex64",
        "complex128",
    )


def mangled(attr: str, class_name: str) -> str:
    """The name Python stores ``self.<attr>`` under in class ``class_name`` (``__mask`` is ``_Net__mask``)."""
    stripped = class_name.lstrip("_")
    if attr.startswith("__") and not attr.endswith("__") and stripped:
        return f"_{stripped}{attr}"
    return attr


def one_line(text: str) -> str:
    """``text`` on one line (fix titles and messages show code that may span lines)."""
    return " ".join(text.split())


# -- statements with their comments ---------------------------------------------------------


def comment_lines(text: str) -> frozenset[int]:
    """Lines holding nothing but a comment (tokenized: a ``#`` inside a string is no comment)."""
    found = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT and not token.line[: token.start[1]].strip():
                found.add(token.start[0])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return frozenset()
    return frozenset(found)


def statement_block(
    index: LineIndex, first: int, last: int, comments: Collection[int], barriers: Collection[int]
) -> tuple[int, int]:
    """Offsets of lines ``first``..``last`` with the comment lines right above, at the same indentation
    (never a blank line, never a barrier: a notebook cell's first line)."""
    indent = _indentation(index.line_with_ending(first))
    start = first
    while start - 1 >= 1 and start - 1 in comments and start - 1 not in barriers:
        if _indentation(index.line_with_ending(start - 1)) != indent:
            break
        start -= 1
    begin = index.starts[start - 1]
    end = index.starts[last] if last < index.line_count else len(index.text)
    return begin, end


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def swapped(text: str, first: tuple[int, int], second: tuple[int, int]) -> tuple[str, str]:
    """The new texts of two line blocks (``first`` before ``second``) exchanged, each keeping a line end."""
    upper, lower = text[first[0] : first[1]], text[second[0] : second[1]]
    if not lower.endswith(("\n", "\r")):  # the file's last line, without a newline
        newline = upper[len(upper.rstrip("\r\n")) :] or "\n"
        return lower + newline, upper.rstrip("\r\n")
    return lower, upper
