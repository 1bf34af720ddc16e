"""A JSON parser that remembers where every key and value is.

``json.loads`` forgets positions, and a finding in a 200-line DeepSpeed config
is only useful with its line.  This parser reads the JSON that Python's
``json`` module reads (RFC 8259, plus ``NaN`` / ``Infinity``, which DeepSpeed's
``json.load`` accepts too) into the :mod:`flake8_device.analysis.deepspeed`
tree, with a :class:`Position` (1-based line, 0-based column) on every value
and key, and each value's ``[start, end)`` offsets (notebooks replace cell
sources in place, keeping the rest of the file byte for byte).  Malformed
input raises :class:`JsonError`, whose message is one line naming the line
and column; deep nesting is refused, never a crash.
"""

from __future__ import annotations

import json
import re

from flake8_device.analysis.deepspeed import ConfigObject, ConfigValue, Position
from flake8_device.source import LineIndex

MAX_DEPTH = 200

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', re.S)
_CONSTANTS = (
    ("true", True),
    ("false", False),
    ("null", None),
    ("NaN", float("nan")),
    ("Infinity", float("inf")),
    ("-Infinity", float("-inf")),
)


# A JSON value with its positions (the same tree DeepSpeed configs from code use).
JsonValue = ConfigValue


class JsonError(ValueError):
    """Malformed JSON; ``str()`` is one line: ``line 3, column 5: expected ',' or '}'``."""

    def __init__(self, reason: str, line: int, col: int) -> None:
        super().__init__(f"line {line}, column {col + 1}: {reason}")
        self.reason, self.line, self.col = reason, line, col


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.index = LineIndex(text)
        self.at = 0

    def position(self, offset: int) -> Position:
        line = self.index.line_of(offset)
        return Position(line, offset - self.index.starts[line - 1])

    def fail(self, reason: str, offset: int | None = None) -> JsonError:
        where = self.position(self.at if offset is None else offset)
        return JsonError(reason, where.line, where.col)

    def skip_space(self) -> None:
        match = _WHITESPACE.match(self.text, self.at)
        assert match is not None
        self.at = match.end()

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def document(self) -> ConfigValue:
        self.skip_space()
        value = self.value(0)
        self.skip_space()
        if self.at != len(self.text):
            raise self.fail("unexpected data after the JSON value")
        return value

    def value(self, depth: int) -> ConfigValue:
        if depth > MAX_DEPTH:
            raise self.fail("nested too deeply")
        start = self.at
        parsed = self._value(depth)
        return ConfigValue(parsed, self.position(start), start=start, end=self.at)

    def _value(self, depth: int) -> object:
        start = self.at
        char = self.peek()
        if char == "{":
            return self.object(depth)
        if char == "[":
            return self.array(depth)
        if char == '"':
            return self.string()
        for word, constant in _CONSTANTS:
            if self.text.startswith(word, start):
                self.at = start + len(word)
                return constant
        match = _NUMBER.match(self.text, start)
        if match is not None:
            self.at = match.end()
            literal = match.group()
            return float(literal) if any(c in literal for c in ".eE") else int(literal)
        if not char:
            raise self.fail("unexpected end of the file, a value was expected")
        raise self.fail(f"unexpected {char!r}, a value was expected")

    def string(self) -> str:
        match = _STRING.match(self.text, self.at)
        if match is None:
            raise self.fail("unterminated string or a control character inside it")
        try:
            decoded = json.loads(match.group())
        except ValueError:
            raise self.fail("invalid escape in string") from None
        self.at = match.end()
        return str(decoded)

    def object(self, depth: int) -> ConfigObject:
        result = ConfigObject()
        self.at += 1  # {
        self.skip_space()
        if self.peek() == "}":
            self.at += 1
            return result
        while True:
            self.skip_space()
            if self.peek() != '"':
                raise self.fail("expected a key in double quotes")
            key_anchor = self.position(self.at)
            key = self.string()
            self.skip_space()
            if self.peek() != ":":
                raise self.fail("expected ':' after the key")
            self.at += 1
            self.skip_space()
            value = self.value(depth + 1)
            value.key_anchor = key_anchor
            result.entries[key] = value  # a repeated key keeps the last value, as json.load does
            self.skip_space()
            char = self.peek()
            self.at += 1
            if char == "}":
                return result
            if char != ",":
                raise self.fail("expected ',' or '}'", self.at - 1)

    def array(self, depth: int) -> list[ConfigValue]:
        items: list[ConfigValue] = []
        self.at += 1  # [
        self.skip_space()
        if self.peek() == "]":
            self.at += 1
            return items
        while True:
            self.skip_space()
            items.append(self.value(depth + 1))
            self.skip_space()
            char = self.peek()
            self.at += 1
            if char == "]":
                return items
            if char != ",":
                raise self.fail("expected ',' or ']'", self.at - 1)


def parse(text: str) -> ConfigValue:
    """The document's root value; raises :class:`JsonError` on malformed input."""
    if text.startswith("\ufeff"):
        text = text[1:]  # a BOM is invisible in editors: columns count from after it
    return _Parser(text).document()
