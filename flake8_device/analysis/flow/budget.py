"""The work budget of the device flow: no input makes the analysis run (or grow) without end.

Every expression and statement the interpreter evaluates costs one step, summaries of called
functions included.  Each scope (the module's top level, each function) may spend a bounded
number of steps, and the file as a whole a bounded number more; both grow linearly with the
size of the code, so that ordinary files never meet them and a pathological one (a call chain
that doubles its work at every link, mutual recursion through summaries, a file of 50,000
statements) stops at a fixed cost.  Where a scope runs out, its facts become unknown: its
events are withdrawn (unknown never makes a finding) and the run goes on with the next scope.
Where the file runs out, the scopes not yet run are not analysed.  Each cut is recorded as a
:class:`Cut`, which the engine passes on (``--verbose``, JSON statistics).

Steps, not seconds: the same input always gives the same findings on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass

# Steps a scope may spend: a base, and more for each statement it holds.
SCOPE_BASE_STEPS = 20_000
SCOPE_STEPS_PER_STATEMENT = 200
# Steps the whole file may spend, likewise.
FILE_BASE_STEPS = 100_000
FILE_STEPS_PER_STATEMENT = 40


class BudgetExhausted(Exception):
    """Raised inside the interpreter when the running scope (or the file) has spent its steps."""


@dataclass(frozen=True)
class Cut:
    """A scope whose facts became unknown because a bound was hit."""

    line: int  # the scope's first line in the parsed source (1 for the module's top level)
    scope: str  # ``<module>``, ``f`` or ``Class.method``
    reason: str  # what ran out

    def describe(self) -> str:
        return f"{self.scope} (line {self.line}): {self.reason}"


class Budget:
    """Steps left to the running scope and to the file (see the module docstring)."""

    def __init__(self, statements: int) -> None:
        self.file_limit = FILE_BASE_STEPS + FILE_STEPS_PER_STATEMENT * statements
        self.file_left = self.file_limit
        self.scope_limit = 0
        # Steps left to the running scope: the interpreter decrements it and calls ``exhausted``
        # below zero (an attribute, not a method call, on the hottest path of the analysis).
        self.left = 0

    def start_scope(self, statements: int) -> bool:
        """Open a scope of ``statements`` statements; False when the file has nothing left."""
        if self.file_left <= 0:
            return False
        self.scope_limit = min(SCOPE_BASE_STEPS + SCOPE_STEPS_PER_STATEMENT * statements, self.file_left)
        self.left = self.scope_limit
        return True

    def end_scope(self) -> None:
        self.file_left -= self.scope_limit - max(self.left, 0)
        self.left = 0

    def exhausted(self) -> None:
        raise BudgetExhausted

    def reason(self) -> str:
        if self.file_left - self.scope_limit <= 0:
            return f"the file's work budget ({self.file_limit:,} steps) ran out; its facts there are unknown"
        return f"the function's work budget ({self.scope_limit:,} steps) ran out; its facts are unknown"
