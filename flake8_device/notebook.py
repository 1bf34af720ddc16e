"""Jupyter notebooks: the code cells checked as one program, fixes written back cell by cell.

A notebook runs its cells in order in one namespace, so the code cells are
joined, in order, into one Python program (a model moved in one cell and
given a new layer in a later one is the same bug as in a script).  The engine
lints and fixes that program like any file; this module only builds it and
maps positions back.

- IPython syntax (``%magic``, ``!shell``, ``x = !cmd``, ``obj?``, autocall
  ``/f x``) is not Python: each such line becomes a neutral placeholder with
  the same number of lines (a comment, or ``pass`` where a statement is
  needed), so every other line keeps its exact position.  A cell magic whose
  body is Python (``%%time``, ``%%timeit``, ``%%capture``, ``%%prun``) keeps its
  body; any other cell magic (``%%bash``, ``%%writefile``...) leaves the cell
  out.  A cell that is still not Python is left out with a warning.
- Each cell is preceded in the program by a unique comment line, so the fixed
  program can be cut back into cells; the placeholders are then swapped for
  the original lines.  Anything that does not map back exactly refuses the
  fix (the notebook is left as it was).
- Only the ``source`` values of the changed cells are rewritten, in place in
  the JSON text (see :mod:`.jsonpos`), in the layout they had: outputs,
  metadata, ids, key order, indentation, escapes and the final newline stay
  byte for byte.
"""

from __future__ import annotations

import codecs
import copy
import dataclasses
import difflib
import json
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flake8_device import noqa
from flake8_device.engine import Engine, parse_ast
from flake8_device.jsonpos import JsonError, JsonValue
from flake8_device.jsonpos import parse as parse_json
from flake8_device.model import Violation
from flake8_device.source import split_lines

NOTEBOOK_SUFFIX = ".ipynb"

# Cell magics whose body is Python that IPython runs as such.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})

# IPython escapes, only ever looked for where a Python statement would start
# (never inside brackets, strings or continued lines).  Each is a syntax error
# in Python, so treating it as an escape can never hide real code.
_ESCAPE_START = re.compile(r"[ \t]*(?:[%!?]|[/,;]\S)")
_ASSIGNED_ESCAPE = re.compile(r"[ \t]*[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[%!]")
_HELP_SUFFIX = re.compile(r"[ \t]*[A-Za-z_][\w.]*(?:\(\))?\?\??[ \t]*$")
_CELL_MAGIC = re.compile(r"[ \t]*%%(\w*)")
_NON_ASCII_ESCAPE = re.compile(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F][0-9a-fA-F])[0-9a-fA-F]{2}")


class NotebookError(Exception):
    """A notebook that cannot be read or written back (the message is one clear line)."""


# -- reading ----------------------------------------------------------------------------------


@dataclass
class CodeCell:
    number: int  # 1-based position among all cells (markdown ones count), as a notebook UI shows
    text: str
    span: JsonValue  # the ``source`` value in the JSON text (with its offsets)
    # The JSON array items when ``source`` is a list of lines (the usual form), else None.
    items: list[str] | None


@dataclass
class Notebook:
    raw: str
    bom: bool
    data: dict[str, Any]
    cells: list[CodeCell]
    language: str | None

    @classmethod
    def parse(cls, data: bytes) -> Notebook:
        bom = data.startswith(codecs.BOM_UTF8)
        try:
            raw = data[len(codecs.BOM_UTF8) :].decode("utf-8") if bom else data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise NotebookError(f"not a valid notebook: cannot decode as UTF-8: {error.reason}") from None
        try:
            document = json.loads(raw)
        except json.JSONDecodeError as error:
            raise NotebookError(
                f"not a valid notebook: invalid JSON: {error.msg} at line {error.lineno} column {error.colno}"
            ) from None
        except RecursionError:
            raise NotebookError("not a valid notebook: nested too deeply") from None
        if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
            version = document.get("nbformat") if isinstance(document, dict) else None
            if isinstance(version, int) and version < 4:
                raise NotebookError(f"notebook format {version} is not supported (convert it with nbconvert)")
            raise NotebookError("not a valid notebook: no list of cells")
        try:
            spans = parse_json(raw)
        except (JsonError, RecursionError) as error:
            raise NotebookError(f"not a valid notebook: {error}") from None
        cells = []
        for position, (cell, cell_span) in enumerate(zip(document["cells"], spans.members["cells"].items), start=1):
            if not isinstance(cell, dict):
                raise NotebookError(f"not a valid notebook: cell {position} is not an object")
            if cell.get("cell_type") != "code":
                continue
            source = cell.get("source")
            source_span = cell_span.members.get("source")
            if isinstance(source, str) and source_span is not None:
                cells.append(CodeCell(position, source, source_span, None))
            elif isinstance(source, list) and all(isinstance(s, str) for s in source) and source_span is not None:
                cells.append(CodeCell(position, "".join(source), source_span, list(source)))
            else:
                raise NotebookError(f"not a valid notebook: cell {position} has no source text")
        return cls(raw=raw, bom=bom, data=document, cells=cells, language=_language(document))

    def file_line(self, cell: CodeCell, offset: int) -> int:
        """The line of the JSON text that holds character ``offset`` of the cell's source."""
        start = cell.span.start
        if cell.items and cell.span.items:
            ends, total = [], 0
            for item in cell.items:
                total += len(item)
                ends.append(total)
            index = min(bisect_right(ends, offset), len(cell.span.items) - 1)
            start = cell.span.items[index].start
        return self.raw.count("\n", 0, start) + 1

    def with_sources(self, sources: dict[int, str]) -> bytes:
        """The notebook's bytes with the given cells' sources replaced, everything else untouched."""
        by_number = {cell.number: cell for cell in self.cells}
        ensure_ascii = self.raw.isascii() and _NON_ASCII_ESCAPE.search(self.raw) is not None
        replacements = sorted(
            ((by_number[n].span, self._encode(by_number[n], text, ensure_ascii)) for n, text in sources.items()),
            key=lambda pair: pair[0].start,
            reverse=True,
        )
        raw = self.raw
        for span, encoded in replacements:
            raw = raw[: span.start] + encoded + raw[span.end :]
        self._check_rewrite(raw, sources)
        data = raw.encode("utf-8")
        return codecs.BOM_UTF8 + data if self.bom else data

    def _encode(self, cell: CodeCell, text: str, ensure_ascii: bool) -> str:
        if cell.items is None:
            return json.dumps(text, ensure_ascii=ensure_ascii)
        items = _split_like(cell.items, text)
        # Unchanged lines keep their exact original encoding (escapes and all).
        original = {value: self.raw[s.start : s.end] for value, s in zip(cell.items, cell.span.items)}
        encoded = [original.get(item) or json.dumps(item, ensure_ascii=ensure_ascii) for item in items]
        if not encoded:
            return "[]"
        opening, separator, closing = self._list_layout(cell.span)
        return "[" + opening + separator.join(encoded) + closing + "]"

    def _list_layout(self, span: JsonValue) -> tuple[str, str, str]:
        raw = self.raw
        if span.items:
            first, last = span.items[0], span.items[-1]
            opening = raw[span.start + 1 : first.start]
            closing = raw[last.end : span.end - 1]
            separator = raw[first.end : span.items[1].start] if len(span.items) > 1 else "," + opening
            return opening, separator, closing
        # The list was empty: lay it out like the rest of the document.
        if "\n" not in raw:
            return "", ", " if ", " in raw else ",", ""
        newline = "\r\n" if "\r\n" in raw else "\n"
        line_start = raw.rfind("\n", 0, span.start) + 1
        key_indent = re.match(r"[ \t]*", raw[line_start:]).group()  # type: ignore[union-attr]
        unit_match = re.match(r"\{\r?\n([ \t]+)", raw)
        unit = unit_match.group(1) if unit_match else " "
        return newline + key_indent + unit, "," + newline + key_indent + unit, newline + key_indent

    def _check_rewrite(self, raw: str, sources: dict[int, str]) -> None:
        """Refuse any rewrite that changed more than the given sources (never corrupt a notebook)."""
        expected = copy.deepcopy(self.data)
        for number, text in sources.items():
            cell = expected["cells"][number - 1]
            cell["source"] = text if isinstance(cell["source"], str) else _split_like(cell["source"], text)
        try:
            rewritten = json.loads(raw)
        except json.JSONDecodeError:
            rewritten = None
        if rewritten != expected:
            raise NotebookError("the fixed notebook did not come out as intended; it was left unchanged")


def _language(document: dict[str, Any]) -> str | None:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return None
    for key, field_name in (("kernelspec", "language"), ("language_info", "name")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(field_name), str):
            return str(section[field_name])
    return None


def _split_like(items: Sequence[str], text: str) -> list[str]:
    """Cut ``text`` into lines the way the original list was cut (``splitlines`` or on ``\\n``)."""
    joined = "".join(items)
    if joined.splitlines(keepends=True) != list(items) and _split_on_newline(joined) == list(items):
        return _split_on_newline(text)
    return text.splitlines(keepends=True)


def _split_on_newline(text: str) -> list[str]:
    return [line for line in re.split(r"(?<=\n)", text) if line]


# -- IPython syntax ------------------------------------------------------------------------------


class _LineState:
    """Just enough of Python's lexer to know whether a line starts a statement."""

    def __init__(self) -> None:
        self.quote: str | None = None
        self.depth = 0
        self.continued = False

    @property
    def at_statement_start(self) -> bool:
        return self.quote is None and self.depth == 0 and not self.continued

    def feed(self, line: str) -> None:
        body = line.rstrip("\r\n")
        position, comment = 0, False
        while position < len(body):
            char = body[position]
            if self.quote is not None:
                if char == "\\":
                    position += 2
                elif body.startswith(self.quote, position):
                    position += len(self.quote)
                    self.quote = None
                else:
                    position += 1
                continue
            if char == "#":
                comment = True
                break
            if char in "'\"":
                self.quote = body[position : position + 3] if body[position : position + 3] in ("'''", '"""') else char
                position += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            position += 1
        ends_in_backslash = body.endswith("\\") and not comment
        if self.quote in ("'", '"') and not ends_in_backslash:
            self.quote = None  # an unterminated one-line string: a syntax error the parse will report
        self.continued = ends_in_backslash and self.quote is None


def _is_escape(line: str) -> bool:
    return bool(_ESCAPE_START.match(line) or _ASSIGNED_ESCAPE.match(line) or _HELP_SUFFIX.match(line))


@dataclass
class _NeutralCell:
    text: str
    # Placeholder line (with its ending) -> the original line it stands for.
    restore: dict[str, str] = field(default_factory=dict)


def neutralise(text: str, tag: str) -> _NeutralCell | str:
    """The cell with IPython syntax replaced by placeholders, or the reason it is left out."""
    lines = split_lines(text)
    out: list[str] = []
    restore: dict[str, str] = {}
    counter = 0

    def placeholder(original: str, first: bool) -> str:
        nonlocal counter
        counter += 1
        ending = original[len(original.rstrip("\r\n")) :]
        indent = re.match(r"[ \t]*", original).group()  # type: ignore[union-attr]
        # An indented escape may be the only statement of its block: it needs one.
        body = f"{indent}pass  # {tag}.{counter}" if first and indent else f"# {tag}.{counter}"
        restore[body + ending] = original
        return body + ending

    start = 0
    first_code = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first_code is not None:
        magic = _CELL_MAGIC.match(lines[first_code])
        if magic:
            if magic.group(1) not in PYTHON_CELL_MAGICS:
                return f"cell magic %%{magic.group(1)}"
            out.extend(lines[:first_code])
            out.append(placeholder(lines[first_code], first=False))
            start = first_code + 1
    state = _LineState()
    index = start
    while index < len(lines):
        line = lines[index]
        if state.at_statement_start and _is_escape(line):
            out.append(placeholder(line, first=True))
            # A backslash continues an escape onto the next lines.
            while line.rstrip("\r\n").endswith("\\") and index + 1 < len(lines):
                index += 1
                line = lines[index]
                out.append(placeholder(line, first=False))
            index += 1
            continue
        state.feed(line)
        out.append(line)
        index += 1
    return _NeutralCell("".join(out), restore)


# -- the program ----------------------------------------------------------------------------------


@dataclass
class _ProgramCell:
    cell: CodeCell
    sentinel: str
    neutral: _NeutralCell
    added_newline: bool


@dataclass
class Program:
    text: str
    cells: list[_ProgramCell]
    warnings: list[str]

    @property
    def cell_markers(self) -> dict[str, int]:
        """The sentinel lines (without line ends) that open each cell, with the cell's number: no fix
        may cross one."""
        return {program_cell.sentinel.rstrip("\n"): program_cell.cell.number for program_cell in self.cells}

    def line_map(self) -> list[tuple[_ProgramCell, int] | None]:
        """For each line of the program: its cell and its line there (1-based); None for sentinels."""
        mapping: list[tuple[_ProgramCell, int] | None] = []
        for program_cell in self.cells:
            mapping.append(None)
            mapping.extend((program_cell, line) for line in range(1, len(split_lines(program_cell.neutral.text)) + 1))
        return mapping

    def split(self, text: str) -> dict[int, str] | None:
        """The new source of every cell of the program, from the fixed program text."""
        parts: list[list[str]] = []
        prefix: list[str] = []
        for line in split_lines(text):
            if len(parts) < len(self.cells) and line == self.cells[len(parts)].sentinel:
                parts.append([])
            elif parts:
                parts[-1].append(line)
            else:
                prefix.append(line)
        if len(parts) != len(self.cells) or (prefix and not parts):
            return None
        parts[0] = prefix + parts[0]
        sources: dict[int, str] = {}
        for program_cell, lines in zip(self.cells, parts):
            restored = []
            remaining = dict(program_cell.neutral.restore)
            if program_cell.added_newline and lines:
                if not lines[-1].endswith("\n"):
                    return None
                lines[-1] = lines[-1][:-1]
            for line in lines:
                original = remaining.pop(line, None)
                restored.append(line if original is None else original)
            if remaining:  # a placeholder was touched by a fix: refuse
                return None
            sources[program_cell.cell.number] = "".join(restored)
        return sources


def build_program(notebook: Notebook, label: str) -> Program:
    tag = "flake8-device-ipython"
    while tag in notebook.raw:
        tag += "-"
    cells: list[_ProgramCell] = []
    warnings: list[str] = []
    chunks: list[str] = []
    for cell in notebook.cells:
        neutral = neutralise(cell.text, f"{tag} {cell.number}")
        if isinstance(neutral, str):
            warnings.append(f"{label}:cell_{cell.number}: not checked ({neutral})")
            continue
        _, error = parse_ast(neutral.text)
        if error is not None:
            warnings.append(f"{label}:cell_{cell.number}: not checked: {error}")
            continue
        added_newline = bool(neutral.text) and not neutral.text.endswith(("\n", "\r"))
        sentinel = f"# {tag} cell {cell.number}\n"
        cells.append(_ProgramCell(cell, sentinel, neutral, added_newline))
        chunks += [sentinel, neutral.text, "\n" if added_newline else ""]
    return Program("".join(chunks), cells, warnings)


# -- linting and fixing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellViolation:
    cell: int
    violation: Violation  # its line is the line within the cell
    file_line: int  # the line of the .ipynb text that holds it


@dataclass
class NotebookReport:
    violations: list[CellViolation] = field(default_factory=list)
    error: str | None = None
    internal_errors: list[str] = field(default_factory=list)
    analysis_cuts: list[str] = field(default_factory=list)
    project_reads: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # The source of every code cell, by number (for showing the lines of findings).
    sources: dict[int, str] = field(default_factory=dict)


@dataclass
class NotebookFix:
    data: bytes
    applied: int
    remaining: NotebookReport
    refused: list[str] = field(default_factory=list)
    # Each fix applied, as "label:cell_N:line:col: CODE title".
    fixes: list[str] = field(default_factory=list)
    # (cell number, old source, new source) of every changed cell.
    changes: list[tuple[int, str, str]] = field(default_factory=list)

    def diff(self, label: str) -> str:
        chunks = []
        for number, old, new in self.changes:
            name = f"{label}:cell_{number}"
            old_lines = [line if line.endswith("\n") else line + "\n" for line in split_lines(old)]
            new_lines = [line if line.endswith("\n") else line + "\n" for line in split_lines(new)]
            chunks.append("".join(difflib.unified_diff(old_lines, new_lines, fromfile=name, tofile=name)))
        return "".join(chunks)


def _unchecked(notebook: Notebook, label: str) -> str | None:
    if notebook.language is not None and notebook.language.lower() != "python":
        return f"{label}: not checked (a {notebook.language} notebook)"
    return None


def lint_notebook(engine: Engine, data: bytes, label: str) -> NotebookReport:
    try:
        notebook = Notebook.parse(data)
    except NotebookError as error:
        return NotebookReport(error=str(error))
    return _lint(engine, notebook, label)


def _lint(engine: Engine, notebook: Notebook, label: str) -> NotebookReport:
    skipped = _unchecked(notebook, label)
    if skipped:
        return NotebookReport(warnings=[skipped])
    program = build_program(notebook, label)
    report = NotebookReport(warnings=list(program.warnings), sources={c.number: c.text for c in notebook.cells})
    if not program.cells:
        return report
    result = engine.lint(program.text, honour_noqa=True, path=label, cell_markers=program.cell_markers)
    report.error = result.error
    report.internal_errors = list(result.internal_errors)
    report.analysis_cuts = list(result.analysis_cuts)
    report.project_reads = dict(result.project_reads)
    mapping = program.line_map()
    for violation in result.violations:
        where = mapping[violation.line - 1]
        if where is None:
            continue
        program_cell, line = where
        cell_violation = _in_cell(violation, line, mapping)
        offset = sum(len(x) for x in split_lines(program_cell.cell.text)[: line - 1]) + violation.col
        report.violations.append(
            CellViolation(program_cell.cell.number, cell_violation, notebook.file_line(program_cell.cell, offset))
        )
    return report


def _in_cell(violation: Violation, line: int, mapping: list[tuple[_ProgramCell, int] | None]) -> Violation:
    shift = violation.line - line
    end_line = None if violation.end_line is None else violation.end_line - shift
    related = []
    for place in violation.related:
        where = mapping[place.line - 1]
        if where is None:
            continue
        place_shift = place.line - where[1]
        place_end = None if place.end_line is None else place.end_line - place_shift
        related.append(dataclasses.replace(place, line=where[1], end_line=place_end, cell=where[0].cell.number))
    return dataclasses.replace(violation, line=line, end_line=end_line, related=tuple(related))


_REFUSED = re.compile(r"(\d+):(\d+): (.*)", re.S)


def fix_notebook(engine: Engine, data: bytes, label: str, *, unsafe_fixes: bool = False) -> NotebookFix:
    try:
        notebook = Notebook.parse(data)
    except NotebookError as error:
        return NotebookFix(data, 0, NotebookReport(error=str(error)))
    if _unchecked(notebook, label):
        return NotebookFix(data, 0, _lint(engine, notebook, label))
    program = build_program(notebook, label)
    if not program.cells:
        return NotebookFix(data, 0, NotebookReport(warnings=list(program.warnings)))
    fixed = engine.fix(program.text, unsafe_fixes=unsafe_fixes, path=label, cell_markers=program.cell_markers)
    mapping = program.line_map()
    refused = []
    for message in fixed.refused:
        match = _REFUSED.fullmatch(message)
        where = mapping[int(match.group(1)) - 1] if match else None
        if match and where is not None:
            refused.append(f"{label}:cell_{where[0].cell.number}:{where[1]}:{match.group(2)}: {match.group(3)}")
        else:
            refused.append(f"{label}: {message}")
    if fixed.text == program.text:
        return NotebookFix(data, 0, _lint(engine, notebook, label), refused)
    sources = program.split(fixed.text)
    if sources is None:
        raise NotebookError("the fixes could not be mapped back onto the cells; the notebook was left unchanged")
    old = {cell.number: cell.text for cell in notebook.cells}
    changed = {number: text for number, text in sources.items() if text != old[number]}
    new_data = notebook.with_sources(changed)
    remaining = _lint(engine, Notebook.parse(new_data), label)
    changes = [(number, old[number], changed[number]) for number in sorted(changed)]
    fixes = []
    for applied in fixed.fixes:
        where = mapping[applied.line - 1]
        if where is not None:
            cell, line = where[0].cell.number, where[1]
            fixes.append(f"{label}:cell_{cell}:{line}:{applied.col + 1}: {applied.code} {applied.title}")
    return NotebookFix(new_data, fixed.applied, remaining, refused, fixes, changes)


@dataclass
class NotebookNoqa:
    data: bytes
    covered: int
    lines: int
    remaining: NotebookReport


def add_noqa_to_notebook(engine: Engine, data: bytes, label: str) -> NotebookNoqa:
    """``--add-noqa`` on a notebook: the comments go into the cells' sources, like ``--fix``'s edits."""
    try:
        notebook = Notebook.parse(data)
    except NotebookError as error:
        return NotebookNoqa(data, 0, 0, NotebookReport(error=str(error)))
    if _unchecked(notebook, label):
        return NotebookNoqa(data, 0, 0, _lint(engine, notebook, label))
    program = build_program(notebook, label)
    result = engine.lint(program.text, honour_noqa=True, path=label) if program.cells else None
    if result is None or result.error or not result.violations:
        return NotebookNoqa(data, 0, 0, _lint(engine, notebook, label))
    added = noqa.add_comments(program.text, result.violations)
    sources = program.split(added.text) if added.covered else None
    if sources is None:
        return NotebookNoqa(data, 0, 0, _lint(engine, notebook, label))
    old = {cell.number: cell.text for cell in notebook.cells}
    new_data = notebook.with_sources({n: text for n, text in sources.items() if text != old[n]})
    return NotebookNoqa(new_data, added.covered, added.lines, _lint(engine, Notebook.parse(new_data), label))
