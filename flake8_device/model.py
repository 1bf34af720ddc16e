"""Plain data shared by the engine and every front end: violations and fixes."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Union

import libcst as cst


class FixSafety(enum.Enum):
    """How far a fix may be trusted to keep the program's behaviour.

    The ordering follows ruff's fix levels: ``SAFE`` fixes are applied by
    ``--fix``, ``UNSAFE`` ones need ``--unsafe-fixes``, ``DISPLAY_ONLY`` ones
    are only shown (``--diff`` and ``--explain``), and ``NONE`` means the rule
    has no fix at all.
    """

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"
    NONE = "none"

    def applies(self, *, unsafe_fixes: bool) -> bool:
        return self is FixSafety.SAFE or (unsafe_fixes and self is FixSafety.UNSAFE)


Part = Union[str, cst.CSTNode]


@dataclass(frozen=True)
class ReplaceNode:
    """Replace the source of ``node`` with ``parts`` joined.

    A part is new text, or a node whose *original* source is copied verbatim
    (so a multi-line argument keeps its exact layout, comments and
    indentation).  Node spans exclude the node's own grouping parentheses.
    """

    node: cst.CSTNode
    parts: tuple[Part, ...]

    def __init__(self, node: cst.CSTNode, *parts: Part) -> None:
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "parts", parts)


@dataclass(frozen=True)
class InsertImport:
    """Make sure ``statement`` (e.g. ``import torch``) is present at module level."""

    statement: str


Edit = Union[ReplaceNode, InsertImport]


@dataclass(frozen=True)
class Fix:
    """A fix is data: the edits, how safe they are, and a one-line description."""

    title: str
    safety: FixSafety
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class TextEdit:
    """A fix edit resolved to character offsets in the original text."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, order=True)
class Violation:
    """One finding, positioned in the original file (1-based line, 0-based column)."""

    line: int
    col: int
    code: str
    message: str
    fix_title: str | None = field(default=None, compare=False)
    fix_safety: FixSafety = field(default=FixSafety.NONE, compare=False)
    text_edits: tuple[TextEdit, ...] = field(default=(), compare=False)
    # Where the reported node ends (the column is 0-based and exclusive); None when unknown.
    end_line: int | None = field(default=None, compare=False)
    end_col: int | None = field(default=None, compare=False)

    @property
    def fixable(self) -> bool:
        return bool(self.text_edits) and self.fix_safety in (FixSafety.SAFE, FixSafety.UNSAFE)

    def flake8_text(self) -> str:
        return f"{self.code} {with_remedy(self.message, self.fix_title, self.fix_safety)}"


def with_remedy(message: str, fix_title: str | None, safety: FixSafety) -> str:
    """The message as text output shows it: a display-only finding (a fix nobody applies for
    you) ends with its remedy, so the line alone says what to do."""
    if safety is not FixSafety.DISPLAY_ONLY or not fix_title:
        return message
    first = fix_title[:1]
    if first.isupper() and fix_title[1:2].islower():  # "Move ..." but not "NCCL ..."
        fix_title = first.lower() + fix_title[1:]
    return f"{message} (to fix: {fix_title})"
