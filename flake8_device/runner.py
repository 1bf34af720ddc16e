"""Checking files for the CLI: one file in, one :class:`Outcome` out, never an exception.

A file's kind decides how it is read: Python source, or a Jupyter notebook
(``.ipynb``, see :mod:`.notebook`).  Either way the engine does the work.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from flake8_device import noqa
from flake8_device.cache import Cache, decode_findings, encode_findings
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.json_configs import is_config_file, lint_config
from flake8_device.engine import Engine
from flake8_device.files import FileError, read_bytes, write_atomically
from flake8_device.formats import Finding
from flake8_device.model import Violation
from flake8_device.notebook import NOTEBOOK_SUFFIX, NotebookError, add_noqa_to_notebook, fix_notebook, lint_notebook
from flake8_device.options import Options
from flake8_device.project import file_state
from flake8_device.registry import all_rules
from flake8_device.source import SourceError, decode_source, split_lines

__all__ = ["Options", "Outcome", "check_file", "engine_for", "run_all"]


@dataclass
class Outcome:
    path: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    applied: int = 0
    # --add-noqa: findings now covered by a comment, and the lines that got one.
    noqa_added: int = 0
    noqa_lines: int = 0
    diff: str = ""
    # Rules that crashed on this file (each also a warning): its check is incomplete.
    crashes: int = 0
    # Where a bound of the analysis made facts unknown (said with --verbose, counted otherwise).
    analysis_cuts: list[str] = field(default_factory=list)
    # --fix / --diff: each fix applied, as "path:line:col: CODE title" (shown with --show-fixes).
    fixes: list[str] = field(default_factory=list)
    # The project's other files the findings depend on (see project.py): the cache checks them.
    project_reads: dict[str, Any] = field(default_factory=dict)
    # With --fix on stdin: the bytes to write to stdout (the fixed code, or the input untouched).
    stdout: bytes | None = None


_ENGINES: dict[tuple[tuple[str, ...], AnalysisConfig], Engine] = {}


def engine_for(codes: tuple[str, ...], config: AnalysisConfig, store: Cache | None = None) -> Engine:
    """The process's engine for these codes and settings; ``store``: where it keeps the summaries
    of the project's modules for later processes (None: nowhere)."""
    key = (codes, config)
    engine = _ENGINES.get(key)
    if engine is None:
        by_code = {r.code: r for r in all_rules()}
        engine = _ENGINES[key] = Engine([by_code[c] for c in codes], config)
    engine.project.store = store
    return engine


def is_notebook(name: str) -> bool:
    return name.lower().endswith(NOTEBOOK_SUFFIX)


def check_file(task: tuple[str, Options]) -> Outcome:
    """Lint (and maybe fix) one file; every problem ends up in the outcome, never raised."""
    path, options = task
    from_stdin = path == "-"
    display = options.stdin_filename if from_stdin else path
    outcome = Outcome(display)
    try:
        data = sys.stdin.buffer.read() if from_stdin else read_bytes(path)
    except FileError as error:
        outcome.errors.append(str(error))
        return outcome
    if options.cached and not from_stdin:
        return _cached_check(path, data, options)
    _check(path, display, data, options, outcome)
    return outcome


def _cached_check(path: str, data: bytes, options: Options) -> Outcome:
    """A plain lint through the cache: the entry for these bytes and settings, or a fresh check."""
    assert options.cache_dir is not None
    cache = Cache(options.cache_dir)
    key = cache.key(path, data, options)
    hit = _outcome_of(path, cache.get(key))
    if hit is not None:
        return hit
    outcome = Outcome(path)
    _check(path, path, data, options, outcome)
    if not outcome.crashes:  # a crash is reported again next time, not remembered
        entry = {name: getattr(outcome, name) for name in _CACHED_FIELDS}
        reads = [[path, state] for path, state in sorted(outcome.project_reads.items())]
        cache.put(key, {**entry, "findings": encode_findings(outcome.findings), "reads": reads})
    return outcome


# What a plain lint leaves in an outcome, besides its findings.
_CACHED_FIELDS = ("errors", "warnings", "crashes", "analysis_cuts")


def _outcome_of(path: str, entry: dict[str, Any] | None) -> Outcome | None:
    """The outcome an entry keeps, while the project's files it depends on are as they were."""
    if entry is None:
        return None
    try:
        for read, state in entry["reads"]:
            now = file_state(read)
            if (list(now) if now is not None else None) != state:
                return None  # an imported module changed (or appeared, or went away)
        fields = {name: entry[name] for name in _CACHED_FIELDS}
        return Outcome(path, findings=decode_findings(entry["findings"]), **fields)
    except (KeyError, TypeError, ValueError):
        return None  # an entry of another shape: a miss


def cached_outcome(task: tuple[str, Options]) -> Outcome | None:
    """The cached outcome of a plain lint of a file, without checking anything; None on a miss."""
    path, options = task
    if not options.cached or path == "-":
        return None
    try:
        data = read_bytes(path)
    except FileError:
        return None
    assert options.cache_dir is not None
    cache = Cache(options.cache_dir)
    return _outcome_of(path, cache.get(cache.key(path, data, options)))


def _check(path: str, display: str, data: bytes, options: Options, outcome: Outcome) -> None:
    from_stdin = path == "-"
    store = Cache(options.cache_dir) if options.cache_dir is not None else None
    engine = engine_for(options.rules_for(display), options.config, store)
    if is_config_file(display):
        check = _check_config
    else:
        check = _check_notebook if is_notebook(display) else _check_python
    try:
        check(path, display, data, engine, options, outcome)
    except FileError as error:
        outcome.errors.append(str(error))
    except RecursionError:
        outcome.errors.append(f"{display}: too deeply nested to analyse (the file was skipped)")
    if from_stdin and (options.fix or options.add_noqa) and outcome.stdout is None:
        outcome.stdout = data  # an editor replaces its buffer with stdout: never leave it empty


def _write_back(path: str, outcome: Outcome, old: bytes, new: bytes) -> None:
    """A changed file: written in place, or to stdout when it came from stdin."""
    if new == old:
        return
    if path == "-":
        outcome.stdout = new
    else:
        write_atomically(path, new, expected_current=old)


def _check_python(path: str, display: str, data: bytes, engine: Engine, options: Options, outcome: Outcome) -> None:
    try:
        decoded = decode_source(data)
    except SourceError as error:
        outcome.errors.append(f"{display}: {error}")
        return
    text = decoded.text
    if options.fix or options.diff:
        fixed = engine.fix(text, unsafe_fixes=options.unsafe_fixes, path=display)
        result = fixed.remaining
        outcome.warnings += [f"{display}:{line}" for line in fixed.refused]
        outcome.applied = fixed.applied
        outcome.fixes = [f"{display}:{f.line}:{f.col + 1}: {f.code} {f.title}" for f in fixed.fixes]
        if options.diff:
            outcome.diff = _unified_diff(text, fixed.text, display, display) if fixed.text != text else ""
        else:
            _write_back(path, outcome, data, decoded.encode(fixed.text))
        text = fixed.text
    else:
        result = engine.lint(text, honour_noqa=True, path=display)
        if options.add_noqa and result.violations:
            added = noqa.add_comments(text, result.violations)
            outcome.noqa_added, outcome.noqa_lines = added.covered, added.lines
            outcome.warnings += [_no_comment_here(display, v) for v in added.skipped]
            _write_back(path, outcome, data, decoded.encode(added.text))
            result.violations, text = added.skipped, added.text
    lines = split_lines(text) if options.show_source else []
    outcome.findings = [Finding.from_violation(display, v, lines=lines) for v in result.violations]
    if result.error:
        outcome.errors.append(f"{display}: {result.error}")
    outcome.warnings += [f"{display}: flake8-device internal error: {e}" for e in result.internal_errors]
    outcome.crashes += len(result.internal_errors)
    outcome.analysis_cuts = list(result.analysis_cuts)
    outcome.project_reads = dict(result.project_reads)


def _no_comment_here(display: str, violation: Violation) -> str:
    return (
        f"{display}:{violation.line}:{violation.col + 1}: {violation.code} left as it is: no `# noqa` comment"
        " can go where flake8 would read it for this line"
    )


def _check_config(path: str, display: str, data: bytes, engine: Engine, options: Options, outcome: Outcome) -> None:
    """A JSON config (DeepSpeed, see :mod:`.json_configs`): reported only, it has nothing to fix."""
    try:
        text = decode_source(data).text
    except SourceError as error:
        outcome.errors.append(f"{display}: {error}")
        return
    result = lint_config(text, engine.rules, options.config, path=display)
    lines = split_lines(text) if options.show_source else []
    outcome.findings = [Finding.from_violation(display, v, lines=lines) for v in result.violations]
    if options.add_noqa and result.violations:
        outcome.warnings.append(f"{display}: JSON has no comments, so no `# noqa`: use --extend-ignore or per-file-ignores")
    if result.error:
        outcome.errors.append(f"{display}: {result.error}")


def _check_notebook(path: str, display: str, data: bytes, engine: Engine, options: Options, outcome: Outcome) -> None:
    try:
        if options.fix or options.diff:
            fixed = fix_notebook(engine, data, display, unsafe_fixes=options.unsafe_fixes)
            report = fixed.remaining
            outcome.applied = fixed.applied
            outcome.fixes = fixed.fixes
            outcome.warnings += fixed.refused
            if options.diff:
                outcome.diff = fixed.diff(display)
            else:
                _write_back(path, outcome, data, fixed.data)
        elif options.add_noqa:
            added = add_noqa_to_notebook(engine, data, display)
            report = added.remaining
            outcome.noqa_added, outcome.noqa_lines = added.covered, added.lines
            outcome.warnings += [
                _no_comment_here(f"{display}:cell_{cv.cell}", cv.violation) for cv in report.violations
            ]
            _write_back(path, outcome, data, added.data)
        else:
            report = lint_notebook(engine, data, display)
    except NotebookError as error:
        outcome.errors.append(f"{display}: {error}")
        return
    cell_lines = {n: split_lines(t) for n, t in report.sources.items()} if options.show_source else {}
    outcome.findings = [
        Finding.from_violation(
            display, cv.violation, cell=cv.cell, file_line=cv.file_line, lines=cell_lines.get(cv.cell, ())
        )
        for cv in report.violations
    ]
    if report.error:
        outcome.errors.append(f"{display}: {report.error}")
    outcome.warnings += report.warnings
    outcome.warnings += [f"{display}: flake8-device internal error: {e}" for e in report.internal_errors]
    outcome.crashes += len(report.internal_errors)
    outcome.analysis_cuts = list(report.analysis_cuts)
    outcome.project_reads = dict(report.project_reads)


def _unified_diff(old: str, new: str, from_name: str, to_name: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=from_name, tofile=to_name
        )
    )


def run_all(
    tasks: list[tuple[str, Options]], jobs: int, progress: Callable[[int, int], None] | None = None
) -> list[Outcome]:
    """Check every task; files go to a process pool when there are several, results in input order.

    ``progress(done, total)`` is called as files finish (for a progress bar)."""
    tick = progress or (lambda done, total: None)
    # Cache hits are read here: a warm run over an unchanged tree starts no worker at all.
    outcomes: dict[int, Outcome] = {}
    for i, task in enumerate(tasks):
        hit = cached_outcome(task)
        if hit is not None:
            outcomes[i] = hit
            tick(len(outcomes), len(tasks))
    left = [(i, t) for i, t in enumerate(tasks) if i not in outcomes]
    on_disk = [(i, t) for i, t in left if t[0] != "-"]
    if jobs <= 1 or len(on_disk) < 2:
        for i, task in left:
            outcomes[i] = check_file(task)
            tick(len(outcomes), len(tasks))
        return [outcomes[i] for i in range(len(tasks))]
    with ProcessPoolExecutor(max_workers=min(jobs, len(on_disk))) as pool:
        for (i, _), outcome in zip(on_disk, pool.map(check_file, [t for _, t in on_disk], chunksize=8)):
            outcomes[i] = outcome
            tick(len(outcomes), len(tasks))
    # stdin is read in this process.
    for i, task in left:
        if task[0] == "-":
            outcomes[i] = check_file(task)
    return [outcomes[i] for i in range(len(tasks))]
