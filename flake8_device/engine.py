"""The engine: source text in, violations (and fixed text) out.

This is the only place that parses, runs rules, applies ``# noqa`` and applies
fixes; the flake8 plugin, the CLI and the codemod are thin layers over it, so
they report the same violations at the same positions.

Per file: one ``ast`` parse (or flake8's tree), a text prefilter, one LibCST
parse of the units some enabled rule could fire in (see :mod:`.units`), one
walk calling every enabled rule, and positions resolved only when something
was reported.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange

from flake8_device import fixes, noqa, walk
from flake8_device.analysis.symbols import Symbols
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.context import FileContext, Place, Report
from flake8_device.model import (
    Fix,
    FixSafety,
    InsertImport,
    Related,
    ReplaceNode,
    SwapStatements,
    TextEdit,
    Violation,
)
from flake8_device.positions import known_tree
from flake8_device.project import FileState, ProjectModules, files_read, project_functions, project_module_classes
from flake8_device.rule import FLOW_GATE, Rule, moves_pattern
from flake8_device.source import LineIndex
from flake8_device.units import Marker, MarkerSpec, SparseSource, UnitIndex

MAX_FIX_ROUNDS = 10
_SCOPE_TYPES: frozenset[type] = frozenset({cst.ClassDef, cst.FunctionDef})
_IMPORT_TYPES: frozenset[type] = frozenset({cst.Import, cst.ImportFrom})


@dataclass(frozen=True)
class _FileScope:
    """What the engine knows of a file before its rules run."""

    tree: ast.Module
    symbols: Symbols
    index: LineIndex
    # Where each rule may report: the line ranges of the units its markers selected (for a flow
    # rule, of every unit the flow analysed).
    report_ranges: dict[str, list[tuple[int, int]]]
    # The checked file, when known: where the project's pinned versions are looked up.
    path: str | None = None
    # Lines no fix may cross (a notebook cell's first line, in the program of all cells), each with
    # the number of the cell it opens.
    boundaries: Mapping[int, int] = field(default_factory=dict)


@dataclass
class LintResult:
    violations: list[Violation] = field(default_factory=list)
    # A reason the file could not be checked at all (syntax error, too deep, ...).
    error: str | None = None
    # A rule that crashed on this file: "DEV101 (name) crashed: ValueError: ..." (others still ran).
    internal_errors: list[str] = field(default_factory=list)
    # Scopes whose device facts a bound of the analysis made unknown (see analysis/flow/budget.py):
    # "f (line 12): the function's work budget (...) ran out; ...".  Nothing is reported there.
    analysis_cuts: list[str] = field(default_factory=list)
    # The project's other files its findings depend on (imported modules and the places looked at
    # for them): path -> (size, modification time), None where no file was (see project.py).
    project_reads: dict[str, FileState] = field(default_factory=dict)


@dataclass(frozen=True)
class AppliedFix:
    """A fix ``fix`` applied: where its finding was in the original text, its code and title."""

    line: int
    col: int
    code: str
    title: str


@dataclass
class FixResult:
    text: str
    applied: int
    remaining: LintResult
    # Fixes refused because their result did not parse (reported, never written).
    refused: list[str] = field(default_factory=list)
    # What was applied, in the order applied (``--show-fixes``).
    fixes: list[AppliedFix] = field(default_factory=list)


def _syntax_error_message(error: SyntaxError, text: str) -> str:
    line, column = error.lineno, error.offset
    if line is None and "\0" in text:  # Python does not say where the null byte is
        offset = text.index("\0")
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    if line is None:
        return f"syntax error: {error.msg}"
    where = f"line {line}" + (f", column {column}" if column else "")
    return f"syntax error at {where}: {error.msg}"


def parse_ast(text: str) -> tuple[ast.Module | None, str | None]:
    """The stdlib tree, or a one-line reason it could not be built."""
    try:
        return ast.parse(text), None
    except SyntaxError as error:
        return None, _syntax_error_message(error, text)
    except (ValueError, TypeError) as error:  # null bytes
        return None, f"cannot parse: {error}"
    except (RecursionError, MemoryError):
        return None, "too deeply nested to analyse (the file was skipped)"


class Engine:
    """Runs a fixed set of rule classes over source texts."""

    def __init__(
        self,
        rules: Sequence[type[Rule]],
        config: AnalysisConfig | None = None,
        *,
        select_units: bool = True,
    ) -> None:
        self.rules = tuple(rules)
        self.config = config or AnalysisConfig()
        self.specs = {rule: rule.marker_spec_for(self.config.move_functions) for rule in self.rules}
        # The project's other modules, read for the device flow of the files that import them
        # (only where a flow rule is on and the file passes the flow gate: see rule.FLOW_GATE).
        self.project = ProjectModules(self.config)
        flows = any(rule.uses_flow for rule in self.rules)
        gate = FLOW_GATE.replace("{moves}", moves_pattern(self.config.move_functions))
        self._flow_gate = re.compile(gate) if flows else None
        # Turning unit selection off parses whole files (the test suite checks both agree).
        self.select_units = select_units

    # -- linting --------------------------------------------------------------
    def lint(
        self,
        text: str,
        *,
        tree: ast.Module | None = None,
        honour_noqa: bool = False,
        path: str | None = None,
        cell_markers: Mapping[str, int] | None = None,
    ) -> LintResult:
        """Lint ``text``; ``path`` (when known) is where the project's pins are looked up from.

        ``cell_markers`` are the lines (without line ends) that open a notebook cell in a
        program made of a notebook's cells, each with that cell's number: no fix may move code
        across one, and messages name lines as ``cell_N:line``."""
        if tree is None:
            tree, error = parse_ast(text)
            if tree is None:
                return LintResult(error=error)
        if honour_noqa and noqa.file_is_exempt(text):
            return LintResult()
        symbols = Symbols(tree)
        # The project's modules this file imports: their functions may build tensors and modules.
        follows_imports = path is not None and self._flow_gate is not None and self._flow_gate.search(text)
        spellings, looked = project_functions(self.project, path, symbols) if follows_imports else ([], {})
        if follows_imports and symbols.imported_bases():
            assert path is not None
            bases, plain, seen = project_module_classes(self.project, path, symbols)
            symbols.add_project_modules(bases, plain)
            looked = {**looked, **seen}
        result = self._lint_parsed(text, tree, symbols, spellings, path, cell_markers)
        result.project_reads = {**looked, **result.project_reads}
        if honour_noqa and result.violations:
            result.violations = noqa.filter_violations(text, result.violations)
        return result

    def _lint_parsed(
        self,
        text: str,
        tree: ast.Module,
        symbols: Symbols,
        spellings: list[str],
        path: str | None,
        cell_markers: Mapping[str, int] | None,
    ) -> LintResult:
        vocabulary = symbols.vocabulary(text, tree, spellings)
        specs = {rule: self.specs[rule].for_file(vocabulary) for rule in self.rules}
        candidates = self._rules_with_markers(text, specs)
        if not candidates:
            return LintResult()
        index = LineIndex(text)
        selection = self._select(tree, index, [(rule, specs[rule]) for rule in candidates])
        if selection is None:
            return LintResult()
        sparse, report_ranges = selection
        module, sparse, error = self._parse(sparse, index)
        if module is None:
            return LintResult(error=error)
        boundaries = {
            number: cell_markers[line]
            for number, line in enumerate(text.splitlines(), start=1)
            if line in cell_markers
        } if cell_markers else {}
        scope = _FileScope(tree, symbols, index, report_ranges, path, boundaries)
        # Positions read the statements' lines from ``tree`` rather than parse the text again.
        known_tree(sparse.text, tree, None if sparse.complete else sparse.line_map)
        try:
            return self._run_rules(module, sparse, scope, candidates)
        finally:
            known_tree(None)

    def _rules_with_markers(self, text: str, specs: Mapping[type[Rule], MarkerSpec]) -> list[type[Rule]]:
        """Rules whose first (cheapest) marker, and every file-level marker, occur in the file at all."""
        found: dict[object, bool] = {}

        def present(marker: Marker) -> bool:
            hit = found.get(marker)
            if hit is None:
                alternatives = marker if isinstance(marker, tuple) else (marker,)
                hit = found[marker] = any(p.search(text) is not None for p in alternatives)  # type: ignore[union-attr]
            return hit

        candidates = []
        for rule in self.rules:
            spec = specs[rule]
            lead = spec.patterns[0]
            assert not isinstance(lead, tuple), f"{rule.code}: the first marker must be a single pattern"
            if present(lead) and all(present(p) for p in spec.file_patterns):
                candidates.append(rule)
        return candidates

    def _select(
        self, tree: ast.Module, index: LineIndex, rules: Sequence[tuple[type[Rule], MarkerSpec]]
    ) -> tuple[SparseSource, dict[str, list[tuple[int, int]]]] | None:
        """The code to parse, and where each rule may report.

        The flow of the selected units reads the code they call, are called from, and their
        classes: that code is parsed too (see UnitIndex.flow_context), and the flow rules report
        anywhere in it; the others only in the units they selected.  With or without unit
        selection, the ranges are the same, so both find the same."""
        units = UnitIndex(tree)
        chosen = units.select(index, (spec for _, spec in rules))
        selected = set().union(*chosen)
        flow_units = set().union(*(c for (rule, _), c in zip(rules, chosen) if rule.uses_flow))
        # The flow reads what the selected units call, are called from, and their classes: a flow
        # rule reports wherever the flow analysed (in the kinds of unit it reports in at all: its
        # ``wants_unit``), since a finding the analysis made there (a host tensor made in a helper
        # whose text names no marker) is no less a finding.  Other rules report in the units
        # their markers chose.
        analysed = flow_units | units.flow_context(index, flow_units) if flow_units else set()
        report_ranges = {
            rule.code: units.line_ranges(units.wanted(index, analysed, spec) if rule.uses_flow else c)
            for (rule, spec), c in zip(rules, chosen)
        }
        if not self.select_units:
            return SparseSource(index.text, [], complete=True), report_ranges
        if not selected:
            return None
        sparse = units.sparse_source(index, units.with_headers(selected | analysed))
        return sparse, report_ranges

    @staticmethod
    def _parse(sparse: SparseSource, index: LineIndex) -> tuple[cst.Module | None, SparseSource, str | None]:
        try:
            return cst.parse_module(sparse.text), sparse, None
        except cst.ParserSyntaxError as error:
            if not sparse.complete:
                # The cut program did not parse (an odd layout the unit index
                # did not foresee): fall back to the whole file.
                return Engine._parse(SparseSource(index.text, [], complete=True), index)
            return None, sparse, f"LibCST cannot parse this file: {error.message} (line {error.raw_line})"
        except RecursionError:
            return None, sparse, "too deeply nested to analyse (the file was skipped)"

    def _run_rules(
        self, module: cst.Module, sparse: SparseSource, scope: _FileScope, rules: Sequence[type[Rule]]
    ) -> LintResult:
        result = LintResult()
        ctx: FileContext | None = None  # (none where every rule crashed)
        try:
            ctx = self._walk(module, sparse, scope, rules)
            reports = ctx.reports
        except Exception:  # noqa: BLE001 - isolate the failing rule, keep the others
            reports = []
            for rule in rules:
                try:
                    ctx = self._walk(module, sparse, scope, [rule])
                    reports.extend(ctx.reports)
                except RecursionError:
                    result.internal_errors.append(f"{rule.code} ({rule.name}) skipped: too deeply nested")
                except Exception as error:  # noqa: BLE001
                    result.internal_errors.append(f"{rule.code} ({rule.name}) crashed: {type(error).__name__}: {error}")
        flow = ctx.__dict__.get("flow") if ctx is not None else None  # (a cached property: where asked for)
        if flow is not None:
            result.analysis_cuts = [cut.describe() for cut in flow.cuts]
            result.project_reads = files_read(ctx)
        if reports and ctx is not None:
            try:
                result.violations = self._violations(ctx, scope, reports)
            except RecursionError:
                result.internal_errors.append("fixes skipped: too deeply nested")
                result.violations = self._violations(ctx, scope, reports, prove=False)
            result.violations = [v for v in result.violations if _within(v, scope.report_ranges)]
        return result

    def _walk(
        self, module: cst.Module, sparse: SparseSource, scope: _FileScope, rules: Iterable[type[Rule]]
    ) -> FileContext:
        # Imports and classes met inside functions are added to ``symbols`` during the
        # walk; adding them again on a retry changes nothing.
        ctx = FileContext(
            module=module,
            symbols=scope.symbols,
            tree=scope.tree,
            config=self.config,
            index=scope.index,
            path=scope.path,
            sparse=sparse,
            project=self.project,
        )
        instances = [rule(ctx) for rule in rules]
        table = walk.visitor_table(r.bound_visitors() for r in instances)
        scopes = ctx.scopes

        def before_visit(node: cst.CSTNode) -> None:
            kind = type(node)
            if kind in _SCOPE_TYPES:
                scopes.append(node)  # type: ignore[arg-type]
                if kind is cst.ClassDef and len(scopes) > 1:
                    ctx.symbols.add_cst_class(node)  # type: ignore[arg-type]
            elif kind in _IMPORT_TYPES and scopes:
                ctx.symbols.add_cst_import(node)  # type: ignore[arg-type]

        def after_leave(node: cst.CSTNode) -> None:
            if scopes and node is scopes[-1]:
                scopes.pop()

        walk.walk(module, table, before_visit, after_leave, leave_types=_SCOPE_TYPES)
        return ctx

    # -- positions and fixes ----------------------------------------------------
    def _violations(
        self, ctx: FileContext, scope: _FileScope, reports: list[Report], *, prove: bool = True
    ) -> list[Violation]:
        sparse, index = ctx.sparse, scope.index
        assert sparse is not None
        positions = ctx.positions
        layout = _Layout(index, scope.boundaries)
        seen: set[tuple[int, int, str]] = set()
        violations: list[Violation] = []
        for report in reports:
            where = positions.get(report.node)
            if where is None:
                continue
            line = sparse.original_line(where.start.line)
            col = where.start.column
            end_line = sparse.original_line(where.end.line)
            key = (line, col, report.rule.code)
            if key in seen:
                continue
            seen.add(key)
            edits: tuple[TextEdit, ...] = ()
            title = reason = subject = None
            safety = FixSafety.NONE
            fix = report.fix
            if fix is not None:
                if prove:
                    fix = ctx.proof.verify(fix)
                title, safety, reason = fix.title, fix.safety, fix.reason
                edits = self._text_edits(sparse, layout, positions, fix)
                if edits and safety.applies(unsafe_fixes=True) and layout.crosses_boundary(edits):
                    safety, reason = FixSafety.DISPLAY_ONLY, "it would move code across a notebook cell boundary"
                if fix.subject is not None and prove:
                    subject = ctx.proof.subject_key(fix.subject)
            related = tuple(self._related(sparse, positions, report, line))
            violations.append(
                Violation(
                    line=line,
                    col=col,
                    code=report.rule.code,
                    message=report.rule.format_message(self._placed(report.fields, sparse, positions, layout, line)),
                    fix_title=title,
                    fix_safety=safety,
                    text_edits=edits,
                    end_line=end_line,
                    end_col=where.end.column,
                    fix_reason=reason,
                    fix_subject=subject,
                    related=related,
                )
            )
        violations.sort()
        return violations

    @staticmethod
    def _related(
        sparse: SparseSource, positions: Mapping[cst.CSTNode, CodeRange], report: Report, line: int
    ) -> Iterator[Related]:
        """The report's other places that lie in this file and off the finding's own line."""
        seen = {line}
        for node, text in report.related:
            where = positions.get(node)
            if where is None:
                continue  # a node of another module (a summary's), or one the sparse parse dropped
            start, end = sparse.original_line(where.start.line), sparse.original_line(where.end.line)
            if start in seen:
                continue
            seen.add(start)
            yield Related(start, where.start.column, text, end, where.end.column)

    @staticmethod
    def _placed(
        fields: dict[str, Any],
        sparse: SparseSource,
        positions: Mapping[cst.CSTNode, CodeRange],
        layout: _Layout,
        line: int,
    ) -> dict[str, Any]:
        """The report's fields with each :class:`Place` written in the finding's coordinates."""
        if not any(isinstance(value, Place) for value in fields.values()):
            return fields
        placed = dict(fields)
        for name, value in fields.items():
            if not isinstance(value, Place):
                continue
            where = value.line
            if value.node is not None:
                found = positions.get(value.node)
                where = sparse.original_line(found.start.line) if found is not None else None
            if where is None or (value.elsewhere and where == line):
                placed[name] = ""
            else:
                placed[name] = value.template.format(where=layout.name_line(where))
        return placed

    def _text_edits(
        self, sparse: SparseSource, layout: _Layout, positions: Mapping[cst.CSTNode, CodeRange], fix: Fix
    ) -> tuple[TextEdit, ...]:
        index = layout.index

        def span(node: cst.CSTNode, *, outer: bool) -> tuple[int, int] | None:
            """Offsets of ``node`` in the original text; ``outer`` includes its own parentheses."""
            where = positions.get(node)
            lpar, rpar = getattr(node, "lpar", ()), getattr(node, "rpar", ())
            if outer and lpar and rpar:
                first, last = positions.get(lpar[0]), positions.get(rpar[-1])
                if first is None or last is None:
                    return None
                where = CodeRange(first.start, last.end)
            if where is None:
                return None
            start_line = sparse.original_line(where.start.line)
            end_line = sparse.original_line(where.end.line)
            if end_line - start_line != where.end.line - where.start.line:
                return None  # the node spans dropped lines: never edit blind
            return index.offset(start_line, where.start.column), index.offset(end_line, where.end.column)

        def lines(node: cst.CSTNode) -> tuple[int, int] | None:
            where = positions.get(node)
            if where is None:
                return None
            first, last = sparse.original_line(where.start.line), sparse.original_line(where.end.line)
            return (first, last) if last - first == where.end.line - where.start.line else None

        edits: list[TextEdit] = []
        for edit in fix.edits:
            if isinstance(edit, ReplaceNode):
                # The replaced span takes the node's own parentheses; copied parts do not,
                # so ``(a + 1).numpy()`` can become ``(a + 1).cpu().numpy()``.
                target = span(edit.node, outer=True)
                if target is None:
                    return ()
                text = []
                for part in edit.parts:
                    if isinstance(part, str):
                        text.append(part)
                        continue
                    source = span(part, outer=False)
                    if source is None:
                        return ()
                    text.append(index.text[source[0] : source[1]])
                edits.append(TextEdit(target[0], target[1], "".join(text)))
            elif isinstance(edit, InsertImport):
                insertion = import_insertion(index, edit.statement)
                if insertion is not None:
                    edits.append(insertion)
            elif isinstance(edit, SwapStatements):
                upper, lower = lines(edit.first), lines(edit.second)
                if upper is None or lower is None:
                    return ()
                first, second = layout.block(*upper), layout.block(*lower)
                new_first, new_second = fixes.swapped(index.text, first, second)
                edits += [TextEdit(first[0], first[1], new_first), TextEdit(second[0], second[1], new_second)]
        return tuple(edits)

    # -- fixing -------------------------------------------------------------------
    def fix(
        self,
        text: str,
        *,
        unsafe_fixes: bool = False,
        honour_noqa: bool = True,
        path: str | None = None,
        cell_markers: Mapping[str, int] | None = None,
    ) -> FixResult:
        refused: list[str] = []
        done: list[AppliedFix] = []
        # The edits of each round so far, to say where a later round's finding was in the original.
        rounds: list[list[TextEdit]] = []
        original = LineIndex(text)

        def applied_fix(violation: Violation, current: str) -> AppliedFix:
            offset = LineIndex(current).offset(violation.line, violation.col)
            for edits in reversed(rounds):
                offset = _offset_before(offset, edits)
            line = original.line_of(offset)
            return AppliedFix(line, offset - original.starts[line - 1], violation.code, violation.fix_title or "")

        for _ in range(MAX_FIX_ROUNDS):
            result = self.lint(text, honour_noqa=honour_noqa, path=path, cell_markers=cell_markers)
            chosen = choose_edits(
                v for v in result.violations if v.fixable and v.fix_safety.applies(unsafe_fixes=unsafe_fixes)
            )
            if not chosen:
                return FixResult(text, len(done), result, refused, done)
            edits = [e for v in chosen for e in v.text_edits]
            new_text = apply_edits(text, edits)
            if parses(new_text):
                done.extend(applied_fix(v, text) for v in chosen)
                rounds.append(edits)
                text = new_text
                continue
            # Try each fix alone; keep those that leave the program parseable.
            progress = False
            for violation in chosen:
                candidate = apply_edits(text, list(violation.text_edits))
                if parses(candidate):
                    done.append(applied_fix(violation, text))
                    rounds.append(list(violation.text_edits))
                    text, progress = candidate, True
                    break
                refused.append(
                    f"{violation.line}:{violation.col + 1}: {violation.code} fix skipped: its result does not parse"
                )
            if not progress:
                break
        remaining = self.lint(text, honour_noqa=honour_noqa, path=path, cell_markers=cell_markers)
        return FixResult(text, len(done), remaining, refused, done)


def _offset_before(offset: int, edits: Sequence[TextEdit]) -> int:
    """Where ``offset`` of the text after ``edits`` was before them (inside a replacement: its start)."""
    shift = 0
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        new_start = edit.start + shift
        if offset < new_start:
            break
        if offset < new_start + len(edit.text):
            return edit.start
        shift += len(edit.text) - (edit.end - edit.start)
    return offset - shift


def _within(violation: Violation, ranges: Mapping[str, list[tuple[int, int]]]) -> bool:
    """Reported where its rule may report (see ``Engine._select``)."""
    return any(first <= violation.line <= last for first, last in ranges.get(violation.code, ()))


def _overlap(a: TextEdit, b: TextEdit) -> bool:
    if a.start == a.end and b.start == b.end:
        return a.start == b.start and a.text != b.text
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


def choose_edits(violations: Iterable[Violation]) -> list[Violation]:
    """Fixes whose edits do not overlap, earliest first (later ones wait for the next round).

    Fixes of the same value (two rules seeing one unmoved tensor) are applied one per
    round too: after the first, the value is repaired and the other finding is gone."""
    chosen: list[Violation] = []
    taken: list[TextEdit] = []
    subjects: set[str] = set()
    for violation in sorted(violations, key=lambda v: min(e.start for e in v.text_edits)):
        if violation.fix_subject is not None and violation.fix_subject in subjects:
            continue
        if any(_overlap(edit, other) for edit in violation.text_edits for other in taken):
            continue
        chosen.append(violation)
        taken.extend(violation.text_edits)
        if violation.fix_subject is not None:
            subjects.add(violation.fix_subject)
    return chosen


class _Layout:
    """The original text's lines as fixes see them: comment lines, and notebook cell boundaries."""

    def __init__(self, index: LineIndex, boundaries: Mapping[int, int]) -> None:
        self.index = index
        self.boundaries = boundaries
        self._comments: frozenset[int] | None = None

    def block(self, first: int, last: int) -> tuple[int, int]:
        """A statement's lines with the comment lines right above it, as offsets."""
        if self._comments is None:
            self._comments = fixes.comment_lines(self.index.text)
        return fixes.statement_block(self.index, first, last, self._comments, self.boundaries)

    def crosses_boundary(self, edits: Sequence[TextEdit]) -> bool:
        """Do the edits (imports aside) span the first line of a notebook cell?"""
        if not self.boundaries:
            return False
        spans = [e for e in edits if not (e.start == e.end and e.text.lstrip().startswith(("import ", "from ")))]
        if not spans:
            return False
        start, end = min(e.start for e in spans), max(e.end for e in spans)
        return any(start <= self.index.starts[line - 1] < end for line in self.boundaries)

    def name_line(self, line: int) -> str:
        """``line`` as a message names it: ``line 12``, or ``cell_3:4`` in a notebook."""
        opening = max((b for b in self.boundaries if b < line), default=None)
        if opening is not None:
            return f"cell_{self.boundaries[opening]}:{line - opening}"
        return f"line {line}"


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    unique = sorted(set(edits), key=lambda e: (e.start, e.end), reverse=True)
    for edit in unique:
        text = text[: edit.start] + edit.text + text[edit.end :]
    return text


def parses(text: str) -> bool:
    try:
        ast.parse(text)
        cst.parse_module(text)
    except (SyntaxError, ValueError, cst.ParserSyntaxError, RecursionError):
        return False
    return True


_FIRST_NEWLINE = re.compile(r"\r\n|\r|\n")


def import_insertion(index: LineIndex, statement: str) -> TextEdit | None:
    """Where to add ``statement``: after the last top-level import (or docstring), once."""
    text = index.text
    if re.search(rf"^{re.escape(statement)}[ \t]*(#.*)?$", text, re.M):
        return None
    newline_match = _FIRST_NEWLINE.search(text)
    newline = newline_match.group() if newline_match else "\n"
    tree, _ = parse_ast(text)
    if tree is None:
        return None
    line = 0
    for position, node in enumerate(tree.body):
        is_docstring = (
            position == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        if not (is_docstring or isinstance(node, (ast.Import, ast.ImportFrom))):
            break
        line = node.end_lineno or node.lineno
    if line == 0:
        return TextEdit(0, 0, statement + newline)
    if line >= index.line_count:
        offset = len(text)
        prefix = "" if text.endswith(("\n", "\r")) else newline
        return TextEdit(offset, offset, prefix + statement + newline)
    offset = index.starts[line]
    return TextEdit(offset, offset, statement + newline)
