"""Reading and writing source files without losing a byte the user cares about."""

from __future__ import annotations

import codecs
import io
import itertools
import re
import tokenize
from bisect import bisect_right
from dataclasses import dataclass

# LibCST, flake8 and the tokenizer all split lines on exactly these.
_NEWLINE = re.compile(r"\r\n|\r|\n")
_LONE_CR = re.compile(rb"\r(?!\n)")


class SourceError(Exception):
    """A file that cannot be read as Python text (the message is one clear line)."""


@dataclass(frozen=True)
class DecodedSource:
    text: str
    encoding: str
    bom: bool

    def encode(self, text: str) -> bytes:
        data = text.encode(self.encoding)
        return codecs.BOM_UTF8 + data if self.bom else data


def decode_source(data: bytes) -> DecodedSource:
    """Decode like Python does (BOM, PEP 263 coding cookie), keeping newlines as they are."""
    bom = data.startswith(codecs.BOM_UTF8)
    # ``detect_encoding`` reads lines split at ``\n`` only; old Mac files end lines with a
    # lone ``\r``, which Python itself accepts.  Same length, so nothing else moves.
    lines = _LONE_CR.sub(b"\n", data) if b"\r" in data else data
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(lines).readline)
    except SyntaxError as error:
        raise SourceError(f"cannot detect the encoding: {error.msg}") from None
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    try:
        text = body.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise SourceError(f"cannot decode as {encoding}: {error}") from None
    return DecodedSource(text=text, encoding=encoding, bom=bom)


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split the way LibCST and flake8 split them."""
    lines: list[str] = []
    start = 0
    for match in _NEWLINE.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


class LineIndex:
    """Maps (1-based line, 0-based column) to offsets in a text, and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text:
            self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        else:  # the common case, several times faster than the regular expression
            self.starts = [0, *itertools.accumulate(len(line) + 1 for line in text.split("\n"))][:-1]

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def line_with_ending(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return self.text[start:end]

    def line_text(self, line: int) -> str:
        return self.line_with_ending(line).rstrip("\r\n")

    @property
    def line_count(self) -> int:
        """Number of lines; a final newline does not start another one."""
        return len(self.starts) - (1 if self.starts[-1] == len(self.text) else 0)
