"""``# noqa`` exactly as flake8 reads it, for the CLI and for ``--fix``.

(Under flake8 itself, flake8 applies ``# noqa``; the plugin reports everything.)
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Sequence

from flake8_device.model import Violation
from flake8_device.source import split_lines

# The same expressions flake8 uses (flake8/defaults.py).
_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
_SPLIT = re.compile(r"[,\s]")


def file_is_exempt(text: str) -> bool:
    """A line starting with ``# flake8: noqa`` exempts the whole file (as in flake8)."""
    if "flake8" not in text:
        return False
    return any(_FILE.match(line) for line in split_lines(text))


def _logical_line_text(text: str) -> dict[int, str]:
    """Map each line to the text searched for ``# noqa``: flake8 joins the lines of a
    multi-line string or a backslash continuation, so a ``# noqa`` at its end covers all."""
    lines = split_lines(text)
    mapping: dict[int, str] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return {n: line for n, line in enumerate(lines, start=1)}
    low, high = len(lines) + 2, -1
    for token in tokens:
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        low = min(low, token.start[0])
        high = max(high, token.end[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            joined = "".join(lines[low - 1 : high])
            for line in range(low, high + 1):
                mapping[line] = joined
            low, high = len(lines) + 2, -1
    return mapping


def is_suppressed(code: str, searched: str) -> bool:
    match = _INLINE.search(searched)
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    listed = tuple(c for c in _SPLIT.split(codes) if c)
    return code in listed or code.startswith(listed)


def filter_violations(text: str, violations: Sequence[Violation]) -> list[Violation]:
    if "noqa" not in text.lower():
        return list(violations)
    mapping = _logical_line_text(text)
    lines = split_lines(text)
    kept = []
    for violation in violations:
        searched = mapping.get(violation.line)
        if searched is None:
            searched = lines[violation.line - 1] if violation.line <= len(lines) else ""
        if not is_suppressed(violation.code, searched):
            kept.append(violation)
    return kept
