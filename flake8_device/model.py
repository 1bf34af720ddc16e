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


@dataclass(frozen=True)
class SwapStatements:
    """Exchange two adjacent one-statement lines of one block, each with its comments.

    Whole lines move: the statement's own trailing comment (``# noqa: E501``,
    ``# type: ignore[...]``) and the comment lines right above it (no blank line
    between) travel with it; blank lines stay where they are.  ``shared`` names the
    values both statements may read and write (the batch a transform and its move
    both rebind); any other dependency between them refuses the swap.
    """

    first: cst.SimpleStatementLine
    second: cst.SimpleStatementLine
    shared: frozenset[str] = frozenset()


Edit = Union[ReplaceNode, InsertImport, SwapStatements]


@dataclass(frozen=True)
class Fix:
    """A fix is data: the edits, how safe they are, and a one-line description.

    A fix the rule offers as safe (or unsafe) is still checked before it is
    offered (see :mod:`flake8_device.proof`): every name it inserts must be
    bound where it runs, and still hold what it held at ``source``.  A fix
    that fails is downgraded to display-only, with ``reason`` saying why; a rule
    that downgrades a fix itself gives its reason too.
    """

    title: str
    safety: FixSafety
    edits: tuple[Edit, ...]
    # Why the fix is not applied by `--fix` (unsafe or display-only), for `--explain`-style output.
    reason: str | None = None
    # Where the expression the fix inserts was copied from (the move that ``.to(device)``
    # repeats): its names must have the same definitions at the edit as there.
    source: cst.CSTNode | None = None
    # The value the fix repairs (a tensor's name): when two rules fix the same value, one
    # fix is applied at a time (and the other, re-checked, usually disappears).
    subject: cst.BaseExpression | None = None


@dataclass(frozen=True)
class TextEdit:
    """A fix edit resolved to character offsets in the original text."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Related:
    """Another place a finding names (where its values meet, where a value was made or moved),
    positioned like the finding (1-based lines, 0-based columns), with what happens there."""

    line: int
    col: int
    message: str
    end_line: int | None = None
    end_col: int | None = None
    # In a notebook: the cell (1-based, counting every cell) the lines are in.
    cell: int | None = None


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
    # Why the fix is unsafe or display-only, when that depends on this finding (see Fix.reason).
    fix_reason: str | None = field(default=None, compare=False)
    # Fixes with the same subject repair the same value: applied one per round.
    fix_subject: str | None = field(default=None, compare=False)
    # The other places the finding involves (the meeting point of a value reported where it is made).
    related: tuple[Related, ...] = field(default=(), compare=False)

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
