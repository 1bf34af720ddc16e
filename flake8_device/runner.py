"""Checking files for the CLI: one file in, one :class:`Outcome` out, never an exception.

A file's kind decides how it is read: Python source, or a Jupyter notebook
(``.ipynb``, see :mod:`.notebook`).  Either way the engine does the work.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

from flake8_device.config import AnalysisConfig
from flake8_device.config_files import is_config_file, lint_config
from flake8_device.engine import Engine
from flake8_device.files import FileError, Pattern, read_bytes, write_atomically
from flake8_device.formats import Finding
from flake8_device.notebook import NOTEBOOK_SUFFIX, NotebookError, fix_notebook, lint_notebook
from flake8_device.registry import all_rules
from flake8_device.selection import Selection
from flake8_device.source import SourceError, decode_source


@dataclass(frozen=True)
class Options:
    selection: Selection
    config: AnalysisConfig
    fix: bool = False
    diff: bool = False
    unsafe_fixes: bool = False
    stdin_filename: str = "stdin"
    per_file_ignores: tuple[tuple[Pattern, tuple[str, ...]], ...] = ()

    def rules_for(self, path: str) -> tuple[str, ...]:
        """The codes checked in ``path``: the selection less its ``per-file-ignores``."""
        extra = tuple(code for pattern, codes in self.per_file_ignores if pattern.matches(path) for code in codes)
        key = (self.selection, extra)
        codes = _RULES_FOR.get(key)
        if codes is None:
            selection = replace(self.selection, extend_ignore=(*self.selection.extend_ignore, *extra))
            codes = _RULES_FOR[key] = tuple(r.code for r in all_rules() if selection.enabled(r.code))
        return codes


@dataclass
class Outcome:
    path: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    applied: int = 0
    diff: str = ""
    # With --fix on stdin: the bytes to write to stdout (the fixed code, or the input untouched).
    stdout: bytes | None = None


_RULES_FOR: dict[tuple[Selection, tuple[str, ...]], tuple[str, ...]] = {}
_ENGINES: dict[tuple[tuple[str, ...], AnalysisConfig], Engine] = {}


def engine_for(codes: tuple[str, ...], config: AnalysisConfig) -> Engine:
    key = (codes, config)
    engine = _ENGINES.get(key)
    if engine is None:
        by_code = {r.code: r for r in all_rules()}
        engine = _ENGINES[key] = Engine([by_code[c] for c in codes], config)
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
    engine = engine_for(options.rules_for(display), options.config)
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
    if from_stdin and options.fix and outcome.stdout is None:
        outcome.stdout = data  # an editor replaces its buffer with stdout: never leave it empty
    return outcome


def _check_python(path: str, display: str, data: bytes, engine: Engine, options: Options, outcome: Outcome) -> None:
    try:
        decoded = decode_source(data)
    except SourceError as error:
        outcome.errors.append(f"{display}: {error}")
        return
    if options.fix or options.diff:
        fixed = engine.fix(decoded.text, unsafe_fixes=options.unsafe_fixes, path=display)
        result = fixed.remaining
        outcome.warnings += [f"{display}:{line}" for line in fixed.refused]
        outcome.applied = fixed.applied
        if fixed.text != decoded.text:
            if options.diff:
                outcome.diff = _unified_diff(decoded.text, fixed.text, display, display)
            elif path == "-":
                outcome.stdout = decoded.encode(fixed.text)
            else:
                write_atomically(path, decoded.encode(fixed.text), expected_current=data)
    else:
        result = engine.lint(decoded.text, honour_noqa=True, path=display)
    outcome.findings = [Finding.from_violation(display, v) for v in result.violations]
    if result.error:
        outcome.errors.append(f"{display}: {result.error}")
    outcome.warnings += [f"{display}: flake8-device internal error: {e}" for e in result.internal_errors]


def _check_config(path: str, display: str, data: bytes, engine: Engine, options: Options, outcome: Outcome) -> None:
    """A JSON config (DeepSpeed, see :mod:`.config_files`): reported only, it has nothing to fix."""
    try:
        text = decode_source(data).text
    except SourceError as error:
        outcome.errors.append(f"{display}: {error}")
        return
    result = lint_config(text, engine.rules, options.config, path=display)
    outcome.findings = [Finding.from_violation(display, v) for v in result.violations]
    if result.error:
        outcome.errors.append(f"{display}: {result.error}")


def _check_notebook(path: str, display: str, data: bytes, engine: Engine, options: Options, outcome: Outcome) -> None:
    try:
        if options.fix or options.diff:
            fixed = fix_notebook(engine, data, display, unsafe_fixes=options.unsafe_fixes)
            report = fixed.remaining
            outcome.applied = fixed.applied
            outcome.warnings += fixed.refused
            if fixed.data != data:
                if options.diff:
                    outcome.diff = fixed.diff(display)
                elif path == "-":
                    outcome.stdout = fixed.data
                else:
                    write_atomically(path, fixed.data, expected_current=data)
        else:
            report = lint_notebook(engine, data, display)
    except NotebookError as error:
        outcome.errors.append(f"{display}: {error}")
        return
    outcome.findings = [
        Finding.from_violation(display, cv.violation, cell=cv.cell, file_line=cv.file_line) for cv in report.violations
    ]
    if report.error:
        outcome.errors.append(f"{display}: {report.error}")
    outcome.warnings += report.warnings
    outcome.warnings += [f"{display}: flake8-device internal error: {e}" for e in report.internal_errors]


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
    on_disk = [t for t in tasks if t[0] != "-"]
    tick = progress or (lambda done, total: None)
    if jobs <= 1 or len(on_disk) < 2:
        results = []
        for task in tasks:
            results.append(check_file(task))
            tick(len(results), len(tasks))
        return results
    # stdin is read in this process.
    outcomes: dict[int, Outcome] = {}
    with ProcessPoolExecutor(max_workers=min(jobs, len(on_disk))) as pool:
        indexed = [(i, t) for i, t in enumerate(tasks) if t[0] != "-"]
        for (i, _), outcome in zip(indexed, pool.map(check_file, [t for _, t in indexed], chunksize=8)):
            outcomes[i] = outcome
            tick(len(outcomes), len(tasks))
    for i, task in enumerate(tasks):
        if task[0] == "-":
            outcomes[i] = check_file(task)
    return [outcomes[i] for i in range(len(tasks))]
