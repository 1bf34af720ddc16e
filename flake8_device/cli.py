"""The ``flake8-device`` command: lint, ``--fix`` and ``--diff``, a thin layer over the engine.

Exit status: 0 when clean, 1 when findings remain, 2 on a usage or I/O
error or a file that cannot be parsed.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from flake8_device import __version__
from flake8_device.config import AnalysisConfig
from flake8_device.docs import rule_markdown
from flake8_device.engine import Engine
from flake8_device.files import DEFAULT_EXCLUDES, Discovered, FileError, discover, read_bytes, write_atomically
from flake8_device.model import FixSafety, Violation
from flake8_device.registry import all_rules, default_off_codes, rule_by_code
from flake8_device.selection import Selection
from flake8_device.source import SourceError, decode_source

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flake8-device",
        description="Find (and fix) PyTorch device-placement bugs.",
    )
    parser.add_argument("paths", nargs="*", default=["."], help="files or directories to check; - reads stdin")
    parser.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    parser.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, apply unsafe fixes too")
    parser.add_argument("--diff", action="store_true", help="print the fixes as a diff; change nothing")
    parser.add_argument(
        "--select", type=_comma_list, default=None, help="codes or prefixes to check (replaces the default)"
    )
    parser.add_argument("--extend-select", type=_comma_list, default=[], help="codes or prefixes to check in addition")
    parser.add_argument("--ignore", type=_comma_list, default=None, help="codes or prefixes to skip")
    parser.add_argument("--extend-ignore", type=_comma_list, default=[], help="codes or prefixes to skip in addition")
    parser.add_argument(
        "--exclude", type=_comma_list, default=None, help="file or directory patterns to skip (replaces the default)"
    )
    parser.add_argument("--extend-exclude", type=_comma_list, default=[], help="patterns to skip in addition")
    parser.add_argument("--stdin-filename", default="stdin", help="the name to report for code read from stdin")
    parser.add_argument(
        "--device-move-functions",
        type=_comma_list,
        default=[],
        help="extra function names that move a batch to a device (like batch_to_device)",
    )
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="parallel processes (default: all cores)")
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule and exit")
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    parser.add_argument("--version", action="version", version=f"flake8-device {__version__}")
    return parser


@dataclass
class Options:
    rules: tuple[str, ...]
    config: AnalysisConfig
    fix: bool
    diff: bool
    unsafe_fixes: bool
    stdin_filename: str


@dataclass
class Outcome:
    path: str
    violations: list[Violation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    applied: int = 0
    diff: str = ""
    stdout: str | None = None


_ENGINES: dict[tuple[tuple[str, ...], AnalysisConfig], Engine] = {}


def _engine(options: Options) -> Engine:
    key = (options.rules, options.config)
    engine = _ENGINES.get(key)
    if engine is None:
        by_code = {r.code: r for r in all_rules()}
        engine = _ENGINES[key] = Engine([by_code[c] for c in options.rules], options.config)
    return engine


def check_file(task: tuple[str, Options]) -> Outcome:
    """Lint (and maybe fix) one file; every problem ends up in the outcome, never raised."""
    path, options = task
    display = options.stdin_filename if path == "-" else path
    outcome = Outcome(display)
    try:
        data = sys.stdin.buffer.read() if path == "-" else read_bytes(path)
        decoded = decode_source(data)
    except (FileError, SourceError) as error:
        outcome.errors.append(str(error) if isinstance(error, FileError) else f"{display}: {error}")
        return outcome
    engine = _engine(options)
    try:
        if options.fix or options.diff:
            fixed = engine.fix(decoded.text, unsafe_fixes=options.unsafe_fixes)
            result = fixed.remaining
            outcome.warnings += [f"{display}:{line}" for line in fixed.refused]
            outcome.applied = fixed.applied
            if fixed.text != decoded.text:
                if options.diff:
                    outcome.diff = "".join(
                        difflib.unified_diff(
                            decoded.text.splitlines(keepends=True),
                            fixed.text.splitlines(keepends=True),
                            fromfile=display,
                            tofile=display,
                        )
                    )
                elif path == "-":
                    outcome.stdout = fixed.text
                else:
                    write_atomically(path, decoded.encode(fixed.text), expected_current=data)
            elif path == "-" and options.fix:
                outcome.stdout = decoded.text
            outcome.violations = result.violations
        else:
            result = engine.lint(decoded.text, honour_noqa=True)
            outcome.violations = result.violations
    except FileError as error:
        outcome.errors.append(str(error))
        return outcome
    except RecursionError:
        outcome.errors.append(f"{display}: too deeply nested to analyse (the file was skipped)")
        return outcome
    if result.error:
        outcome.errors.append(f"{display}: {result.error}")
    outcome.warnings += [f"{display}: flake8-device internal error: {e}" for e in result.internal_errors]
    return outcome


def _selection(args: argparse.Namespace) -> Selection:
    return Selection(
        select=args.select,
        extend_select=args.extend_select,
        ignore=args.ignore,
        extend_ignore=args.extend_ignore,
        default_off=default_off_codes(),
    )


def _run_all(tasks: list[tuple[str, Options]], jobs: int) -> list[Outcome]:
    on_disk = [t for t in tasks if t[0] != "-"]
    if jobs <= 1 or len(on_disk) < 2:
        return [check_file(t) for t in tasks]
    # stdin is read in this process; files in a pool, results kept in input order.
    outcomes: dict[int, Outcome] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        indexed = [(i, t) for i, t in enumerate(tasks) if t[0] != "-"]
        for (i, _), outcome in zip(indexed, pool.map(check_file, [t for _, t in indexed], chunksize=8)):
            outcomes[i] = outcome
    for i, task in enumerate(tasks):
        if task[0] == "-":
            outcomes[i] = check_file(task)
    return [outcomes[i] for i in range(len(tasks))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.explain:
        rule = rule_by_code(args.explain)
        if rule is None:
            print(f"flake8-device: unknown rule {args.explain!r} (see --list-rules)", file=sys.stderr)
            return EXIT_ERROR
        print(rule_markdown(rule), end="")
        return EXIT_CLEAN
    selection = _selection(args)
    if args.list_rules:
        for rule in all_rules():
            state = "on " if selection.enabled(rule.code) else "off"
            print(f"{rule.code}  {state}  {rule.name}")
        return EXIT_CLEAN
    if args.fix and args.diff:
        parser.error("--fix and --diff cannot be combined (--diff changes nothing)")
    if args.unsafe_fixes and not (args.fix or args.diff):
        parser.error("--unsafe-fixes needs --fix or --diff")
    options = Options(
        rules=tuple(r.code for r in all_rules() if selection.enabled(r.code)),
        config=AnalysisConfig().with_extra_move_functions(args.device_move_functions),
        fix=args.fix,
        diff=args.diff,
        unsafe_fixes=args.unsafe_fixes,
        stdin_filename=args.stdin_filename,
    )
    excludes = [*(args.exclude if args.exclude is not None else DEFAULT_EXCLUDES), *args.extend_exclude]
    errors: list[str] = []
    tasks: list[tuple[str, Options]] = []
    for found in discover(args.paths, excludes):
        if isinstance(found, FileError):
            errors.append(str(found))
        else:
            assert isinstance(found, Discovered)
            tasks.append((found.path, options))
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    outcomes = _run_all(tasks, jobs)
    return _report(outcomes, errors, args)


def _report(outcomes: list[Outcome], errors: list[str], args: argparse.Namespace) -> int:
    out = sys.stdout
    # With --fix on stdin, stdout carries the fixed code; findings go to stderr.
    findings_stream = sys.stderr if any(o.stdout is not None for o in outcomes) else out
    rows: list[tuple[str, Violation]] = [(o.path, v) for o in outcomes for v in o.violations]
    rows.sort(key=lambda row: (row[0], row[1].line, row[1].col, row[1].code))
    for outcome in outcomes:
        if outcome.stdout is not None:
            out.write(outcome.stdout)
        if outcome.diff:
            out.write(outcome.diff)
    if not args.diff:  # --diff prints only the diff on stdout
        for path, violation in rows:
            findings_stream.write(
                f"{path}:{violation.line}:{violation.col + 1}: {violation.code} {violation.message}\n"
            )
    out.flush()
    for outcome in outcomes:
        errors.extend(outcome.errors)
        for warning in outcome.warnings:
            print(warning, file=sys.stderr)
    for error in errors:
        print(f"flake8-device: {error}", file=sys.stderr)
    applied = sum(o.applied for o in outcomes)
    if applied:
        verb = "Would fix" if args.diff else "Fixed"
        print(f"{verb} {_plural(applied, 'finding')}.", file=sys.stderr)
    if rows and not args.fix and not args.diff:
        print(_summary([v for _, v in rows]), file=sys.stderr)
    if errors:
        return EXIT_ERROR
    if (rows or (args.diff and applied)) and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _summary(violations: list[Violation]) -> str:
    safe = sum(1 for v in violations if v.fixable and v.fix_safety is FixSafety.SAFE)
    unsafe = sum(1 for v in violations if v.fixable and v.fix_safety is FixSafety.UNSAFE)
    text = f"Found {_plural(len(violations), 'finding')}"
    if safe:
        text += f"; {safe} fixable with --fix"
    if unsafe:
        text += f"; {unsafe} more with --fix --unsafe-fixes"
    return text + "."
