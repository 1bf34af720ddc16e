"""``# noqa`` exactly as flake8 reads it, for the CLI and for ``--fix``; and ``--add-noqa``.

(Under flake8 itself, flake8 applies ``# noqa``; the plugin reports everything.)
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field

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


# -- adding ``# noqa`` comments (``--add-noqa``) ----------------------------------------------------


@dataclass
class NoqaResult:
    text: str
    # Findings now covered by a comment, and the lines that got one.
    covered: int = 0
    lines: int = 0
    # Findings no comment can cover where flake8 would read it (the file's code is untouched there).
    skipped: list[Violation] = field(default_factory=list)


def _comment_lines(text: str) -> dict[int, int] | None:
    """For each line, the line whose end takes the comment flake8 reads for it: the last line
    of its token range (a multi-line string, a backslash continuation); None when the text
    does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    mapping: dict[int, int] = {}
    low = None
    for token in tokens:
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        low = token.start[0] if low is None else min(low, token.start[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            for line in range(low, token.start[0] + 1):
                mapping[line] = token.start[0]
            low = None
    return mapping


def _with_codes(line: str, codes: Sequence[str]) -> str:
    """``line`` (without its ending) carrying ``# noqa: CODES``, merged into a ``# noqa: X`` it has."""
    match = _INLINE.search(line)
    if match is not None and match.group("codes"):
        listed = match.group("codes")
        end = match.start("codes") + len(listed.rstrip(", \t"))
        separator = ", " if ", " in listed else ","
        return line[:end] + "".join(separator + code for code in codes) + line[end:]
    return line.rstrip(" \t") + "  # noqa: " + ",".join(codes)


def add_comments(text: str, violations: Sequence[Violation]) -> NoqaResult:
    """``text`` with a ``# noqa: CODE`` comment where flake8 reads one for each of ``violations``.

    The comment goes at the end of the finding's line, or of the last line of the
    string or continued statement it is part of (flake8 joins those lines when it
    looks for ``# noqa``).  A comment that would change the code or not cover its
    finding is not written: the finding is returned in ``skipped``.
    """
    mapping = _comment_lines(text)
    if mapping is None or not violations:
        return NoqaResult(text, skipped=list(violations))
    wanted: dict[int, list[Violation]] = {}
    skipped = []
    for violation in violations:
        target = mapping.get(violation.line)
        if target is None:
            skipped.append(violation)
        else:
            wanted.setdefault(target, []).append(violation)
    original_tree = ast.dump(ast.parse(text))
    new_text = text
    while wanted:  # each round keeps the comments that work, or drops at least one line
        new_text = _apply(text, wanted)
        reported = {id(v) for v in filter_violations(new_text, [v for vs in wanted.values() for v in vs])}
        failed = [line for line, vs in wanted.items() if any(id(v) in reported for v in vs)]
        if not failed and ast.dump(ast.parse(new_text)) != original_tree:
            failed = list(wanted)  # never change the code itself
        if not failed:
            break
        for line in failed:
            skipped.extend(wanted.pop(line))
        new_text = text
    covered = sum(len(vs) for vs in wanted.values())
    return NoqaResult(new_text, covered=covered, lines=len(wanted), skipped=sorted(skipped))


def _apply(text: str, wanted: dict[int, list[Violation]]) -> str:
    lines = split_lines(text)
    for number, found in wanted.items():
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        codes = sorted({v.code for v in found})
        lines[number - 1] = _with_codes(body, codes) + line[len(body) :]
    return "".join(lines)
