"""Where each value of a JSON document sits in its text, so one value can be replaced in place.

``json.loads`` gives values but forgets where they were; rewriting a whole
notebook with ``json.dumps`` would change its indentation, key order or
escapes wherever the writer differed from ours.  This scanner records the
span of every value (strings, numbers and literals are matched with regular
expressions, so megabytes of embedded images cost little), and the notebook
fixer replaces only the spans of the cell sources it changed.

The text is assumed to be valid JSON (``json.loads`` has accepted it first).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


class JsonLayoutError(Exception):
    """The text is not the JSON it was said to be."""


@dataclass
class Span:
    """A value's ``[start, end)`` in the text; objects and arrays keep their members' spans."""

    start: int
    end: int
    members: dict[str, Span] = field(default_factory=dict)
    items: list[Span] = field(default_factory=list)


def scan(text: str) -> Span:
    position = _skip(text, 0)
    span, position = _value(text, position)
    if _skip(text, position) != len(text):
        raise JsonLayoutError(f"unexpected text at offset {position}")
    return span


def _skip(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _value(text: str, position: int) -> tuple[Span, int]:
    if position >= len(text):
        raise JsonLayoutError("unexpected end of the document")
    first = text[position]
    if first == "{":
        return _object(text, position)
    if first == "[":
        return _array(text, position)
    match = (_STRING if first == '"' else _SCALAR).match(text, position)
    if match is None:
        raise JsonLayoutError(f"no JSON value at offset {position}")
    return Span(position, match.end()), match.end()


def _object(text: str, start: int) -> tuple[Span, int]:
    span = Span(start, start)
    position = _skip(text, start + 1)
    if text.startswith("}", position):
        span.end = position + 1
        return span, span.end
    while True:
        key = _STRING.match(text, position)
        if key is None:
            raise JsonLayoutError(f"expected a key at offset {position}")
        position = _skip(text, key.end())
        if not text.startswith(":", position):
            raise JsonLayoutError(f"expected ':' at offset {position}")
        value, position = _value(text, _skip(text, position + 1))
        span.members[_decode_key(key.group())] = value
        position = _skip(text, position)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
            continue
        if text.startswith("}", position):
            span.end = position + 1
            return span, span.end
        raise JsonLayoutError(f"expected ',' or '}}' at offset {position}")


def _array(text: str, start: int) -> tuple[Span, int]:
    span = Span(start, start)
    position = _skip(text, start + 1)
    if text.startswith("]", position):
        span.end = position + 1
        return span, span.end
    while True:
        item, position = _value(text, position)
        span.items.append(item)
        position = _skip(text, position)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
            continue
        if text.startswith("]", position):
            span.end = position + 1
            return span, span.end
        raise JsonLayoutError(f"expected ',' or ']' at offset {position}")


def _decode_key(raw: str) -> str:
    decoded = json.loads(raw)
    assert isinstance(decoded, str)
    return decoded
