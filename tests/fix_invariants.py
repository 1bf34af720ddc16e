"""The invariants every ``--fix`` must keep, checked by the tests and by ``bench/reliability``.

A fix result parses, a second fix changes nothing, and only the lines some reported fix
edits change (or whole lines with the imports a fix needs are added, or lines a fix
edits move, as a swap of two statements moves them): nothing else in the file is
reformatted.
"""

from __future__ import annotations

import difflib

from flake8_device.engine import Engine, parses
from flake8_device.source import LineIndex, split_lines


def edited_lines(engine: Engine, text: str) -> set[int]:
    """0-based lines that some fix (of any safety) reported on ``text`` may edit."""
    index = LineIndex(text)
    return {
        line
        for violation in engine.lint(text).violations
        for edit in violation.text_edits
        for line in range(index.line_of(edit.start) - 1, index.line_of(max(edit.start, edit.end - 1)))
    }


def fix_problem(engine: Engine, text: str) -> str | None:
    """What is wrong with ``--fix --unsafe-fixes`` on ``text`` (None: nothing)."""
    fixed = engine.fix(text, unsafe_fixes=True)
    if fixed.remaining.internal_errors:
        return f"a rule crashed: {fixed.remaining.internal_errors}"
    if fixed.text == text:
        return None
    if not parses(fixed.text):
        return "the fixed code does not parse"
    if engine.fix(fixed.text, unsafe_fixes=True).text != fixed.text:
        return "a second fix changes more"
    touched = edited_lines(engine, text)
    # Lines as Python counts them (``str.splitlines`` also splits at form feeds and the like).
    old, new = split_lines(text), split_lines(fixed.text)
    # A swap moves whole lines a fix edits (a statement with its comments): they may reappear elsewhere.
    moved = {old[line].rstrip("\r\n") for line in touched if line < len(old)}
    for tag, first, last, new_first, new_last in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if not set(range(first, last)) <= touched:
            return f"lines {first + 1}-{last} changed without a fix there"
        added = [line for line in new[new_first:new_last] if line.rstrip("\r\n") not in moved]
        if tag == "insert" and not all(line.startswith(("import ", "from ")) for line in added):
            return f"lines other than imports were added: {added}"
    return None
