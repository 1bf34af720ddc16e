"""Output formats: flake8-style text (optionally coloured), JSON, SARIF 2.1.0, GitHub annotations.

Every format writes the same findings; the CLI picks one with ``--format``.
Rule metadata in SARIF (names, descriptions, help) comes from the rule classes,
like the rest of the documentation.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from flake8_device import __version__
from flake8_device.docs import rule_markdown, summary
from flake8_device.links import rule_url
from flake8_device.model import FixSafety, Related, Violation, with_remedy
from flake8_device.rule import Rule

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Finding:
    """One finding as the user sees it (1-based line and column)."""

    path: str
    line: int
    column: int
    code: str
    message: str
    fix_title: str | None = None
    fix_safety: FixSafety = FixSafety.NONE
    fixable: bool = False
    # Why the fix is not applied by `--fix` (unsafe or display-only), when it depends on the finding.
    fix_reason: str | None = None
    # For notebooks: the cell (1-based, counting every cell), the line is within that
    # cell, and ``file_line`` is the line of the .ipynb file holding that source line.
    cell: int | None = None
    file_line: int | None = None
    # Where the reported code ends (1-based; the column just after it), when known.
    end_line: int | None = None
    end_column: int | None = None
    # The line the finding is on, for ``--show-source``.
    source_line: str | None = None
    # The other places the finding involves (0-based columns, as in model.Related).
    related: tuple[Related, ...] = ()

    @classmethod
    def from_violation(
        cls,
        path: str,
        violation: Violation,
        *,
        cell: int | None = None,
        file_line: int | None = None,
        lines: Sequence[str] = (),
    ) -> Finding:
        """``lines``: the text the violation's positions refer to, split, when its line should be shown."""
        return cls(
            path=path,
            line=violation.line,
            column=violation.col + 1,
            code=violation.code,
            message=violation.message,
            fix_title=violation.fix_title,
            fix_safety=violation.fix_safety,
            fixable=violation.fixable,
            fix_reason=violation.fix_reason,
            cell=cell,
            file_line=file_line,
            end_line=violation.end_line,
            end_column=None if violation.end_col is None else violation.end_col + 1,
            source_line=lines[violation.line - 1] if 0 < violation.line <= len(lines) else None,
            related=violation.related,
        )

    @property
    def text(self) -> str:
        """The message as text output shows it (a display-only finding ends with its remedy)."""
        return with_remedy(self.message, self.fix_title, self.fix_safety)

    @property
    def location(self) -> str:
        """``path:line:col``, or ``path:cell_N:line:col`` in a notebook."""
        cell = f"cell_{self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}:{self.column}"

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.code)


# -- text ----------------------------------------------------------------------------------------

_BOLD, _RED, _CYAN, _RESET = "\033[1m", "\033[31m", "\033[36m", "\033[m"


def wants_color(choice: str, stream: IO[str]) -> bool:
    """``auto``: only on a terminal, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    if choice in ("always", "never"):
        return choice == "always"
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def text_line(finding: Finding, *, color: bool = False) -> str:
    if not color:
        return f"{finding.location}: {finding.code} {finding.text}"
    colon = f"{_CYAN}:{_RESET}"
    cell = [f"cell_{finding.cell}"] if finding.cell is not None else []
    location = colon.join([f"{_BOLD}{finding.path}{_RESET}", *cell, str(finding.line), str(finding.column)])
    return f"{location}{colon} {_BOLD}{_RED}{finding.code}{_RESET} {finding.text}"


def source_lines(finding: Finding) -> str:
    """``--show-source``: the line and a caret under the column, as flake8 shows them ("" when unknown)."""
    if finding.source_line is None:
        return ""
    line = finding.source_line.rstrip("\r\n")
    indent = "".join(c if c.isspace() else " " for c in line[: finding.column - 1])
    return f"{line}\n{indent}^\n"


def statistics(findings: Sequence[Finding], rules: Iterable[type[Rule]]) -> list[str]:
    """One line per code: count, code, rule name, and how many ``--fix`` can repair."""
    names = {rule.code: rule.name for rule in rules}
    counts = Counter(f.code for f in findings)
    fixable = Counter(f.code for f in findings if f.fixable and f.fix_safety is FixSafety.SAFE)
    lines = []
    for code in sorted(counts):
        line = f"{counts[code]:<5} {code} {names.get(code, '')}".rstrip()
        if fixable[code]:
            line += f" ({fixable[code]} fixable with --fix)"
        lines.append(line)
    return lines


# -- JSON -----------------------------------------------------------------------------------------


def json_document(findings: Sequence[Finding], rules: Iterable[type[Rule]]) -> list[dict[str, Any]]:
    names = {rule.code: rule.name for rule in rules}
    items = []
    for finding in findings:
        item: dict[str, Any] = {
            "filename": finding.path,
            "line": finding.line,
            "column": finding.column,
            "code": finding.code,
            "name": names.get(finding.code),
            "end_line": finding.end_line,
            "end_column": finding.end_column,
            "message": finding.message,
            "url": rule_url(finding.code),
            "fix": None
            if finding.fix_title is None
            else {
                "title": finding.fix_title,
                "safety": finding.fix_safety.value,
                "applied_by": _applied_by(finding),
                "reason": finding.fix_reason,
            },
        }
        if finding.cell is not None:
            item["cell"] = finding.cell
        item["related"] = [_json_related(place) for place in finding.related]
        items.append(item)
    return items


def _json_related(place: Related) -> dict[str, Any]:
    item: dict[str, Any] = {
        "line": place.line,
        "column": place.col + 1,
        "end_line": place.end_line,
        "end_column": None if place.end_col is None else place.end_col + 1,
        "message": place.message,
    }
    if place.cell is not None:
        item["cell"] = place.cell
    return item


def _applied_by(finding: Finding) -> str | None:
    if not finding.fixable:
        return None
    return "--fix" if finding.fix_safety is FixSafety.SAFE else "--fix --unsafe-fixes"


# -- SARIF ------------------------------------------------------------------------------------------


def _artifact_location(path: str, base: Path) -> dict[str, str]:
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(base)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": "%SRCROOT%"}


def _rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    sections = rule.doc_sections()
    markdown = rule_markdown(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": summary(rule)},
        "fullDescription": {"text": sections.get("What it does", summary(rule))},
        "help": {"text": markdown, "markdown": markdown},
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"level": "error", "enabled": rule.default_enabled},
        "properties": {"tags": [rule.family], "fix": rule.fix_safety.value},
    }


def sarif_document(
    findings: Sequence[Finding], rules: Sequence[type[Rule]], base: Path | None = None
) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run; paths are relative to ``base`` (%SRCROOT%) where possible."""
    base = (base or Path.cwd()).resolve()
    index = {rule.code: position for position, rule in enumerate(rules)}
    results = []
    for finding in findings:
        region: dict[str, int] = {}
        message = finding.message
        if finding.cell is not None:
            # A notebook's cells are inside the JSON: point at the line of the file holding
            # the source line, and say where it is in the cell.
            message = f"cell_{finding.cell}:{finding.line}:{finding.column}: {message}"
            if finding.file_line is not None:
                region = {"startLine": finding.file_line}
        else:
            region = {"startLine": finding.line, "startColumn": finding.column}
            if finding.end_line is not None and finding.end_column is not None:
                region.update(endLine=finding.end_line, endColumn=finding.end_column)
        location: dict[str, Any] = {"artifactLocation": _artifact_location(finding.path, base)}
        if region:
            location["region"] = region
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "level": "error",
            "message": {"text": message},
            "locations": [{"physicalLocation": location}],
        }
        if finding.related:
            result["relatedLocations"] = [
                _sarif_related(number, place, finding.path, base) for number, place in enumerate(finding.related, 1)
            ]
        if finding.code in index:
            result["ruleIndex"] = index[finding.code]
        if finding.cell is not None:
            result["properties"] = {"cell": finding.cell, "line": finding.line, "column": finding.column}
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "flake8-device",
                        "version": __version__,
                        "rules": [_rule_descriptor(rule) for rule in rules],
                    }
                },
                # Columns count characters (code points), as Python strings do.
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base.as_uri() + "/"}},
                "results": results,
            }
        ],
    }


# -- GitHub Actions workflow commands ----------------------------------------------------------------


def _sarif_related(number: int, place: Related, path: str, base: Path) -> dict[str, Any]:
    """A related location; in a notebook, the message says the cell (as for the result itself)."""
    location: dict[str, Any] = {"artifactLocation": _artifact_location(path, base)}
    message = place.message
    if place.cell is not None:
        message = f"cell_{place.cell}:{place.line}:{place.col + 1}: {message}"
    else:
        region = {"startLine": place.line, "startColumn": place.col + 1}
        if place.end_line is not None and place.end_col is not None:
            region.update(endLine=place.end_line, endColumn=place.end_col + 1)
        location["region"] = region
    return {"id": number, "physicalLocation": location, "message": {"text": message}}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(finding: Finding) -> str:
    """An ``::error`` workflow command: GitHub shows it on the line in the pull request."""
    line = finding.file_line if finding.cell is not None else finding.line
    properties = [
        f"title={_escape_property(f'flake8-device ({finding.code})')}",
        f"file={_escape_property(finding.path)}",
    ]
    if line is not None:
        properties.append(f"line={line}")
        if finding.cell is None:
            properties.append(f"col={finding.column}")
    return f"::error {','.join(properties)}::{_escape_data(f'{finding.location}: {finding.code} {finding.text}')}"


# -- writing ------------------------------------------------------------------------------------------


def write_findings(
    stream: IO[str],
    output_format: str,
    findings: Sequence[Finding],
    rules: Sequence[type[Rule]],
    *,
    color: bool,
    show_source: bool = False,
) -> None:
    if output_format == "text":
        for finding in findings:
            stream.write(text_line(finding, color=color) + "\n")
            if show_source:
                stream.write(source_lines(finding))
    elif output_format == "github":
        stream.writelines(github_line(f) + "\n" for f in findings)
    elif output_format == "json":
        stream.write(json.dumps(json_document(findings, rules), indent=2, ensure_ascii=False) + "\n")
    elif output_format == "sarif":
        stream.write(json.dumps(sarif_document(findings, rules), indent=2, ensure_ascii=False) + "\n")
    else:
        raise ValueError(f"unknown output format {output_format!r}")
