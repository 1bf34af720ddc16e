"""The ``flake8-device`` command: lint, ``--fix`` and ``--diff``, a thin layer over the engine.

Exit status: 0 when clean, 1 when findings remain, 2 on a usage, configuration
or I/O error or a file that cannot be parsed.  Checking files is
:mod:`.runner`'s job, output formats are :mod:`.formats`', configuration is
:mod:`.settings`'.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from flake8_device import __version__
from flake8_device.config import AnalysisConfig
from flake8_device.docs import rule_markdown
from flake8_device.files import DEFAULT_EXCLUDES, Discovered, FileError, Pattern, discover
from flake8_device.formats import FORMATS, Finding, statistics, wants_color, write_findings
from flake8_device.model import FixSafety
from flake8_device.registry import all_rules, default_off_codes, rule_by_code
from flake8_device.runner import Options, Outcome, run_all
from flake8_device.selection import Selection
from flake8_device.settings import (
    ConfigError,
    Settings,
    discover_settings,
    load_settings,
    parse_per_file_ignores,
    parse_versions_option,
    start_directory,
)

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flake8-device",
        description="Find (and fix) PyTorch device-placement bugs in Python files and Jupyter notebooks.",
        epilog="Settings are read from [tool.flake8-device] in the nearest pyproject.toml; flags override them.",
    )
    parser.add_argument(
        "paths", nargs="*", default=["."], help="files or directories to check (.py and .ipynb); - reads stdin"
    )
    fixing = parser.add_argument_group("fixing")
    fixing.add_argument("--fix", action="store_true", help="apply safe fixes in place (on stdin: print the fixed code)")
    fixing.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, apply unsafe fixes too")
    fixing.add_argument("--diff", action="store_true", help="print the fixes as a diff; change nothing")
    selecting = parser.add_argument_group("what to check")
    selecting.add_argument(
        "--select", type=_comma_list, default=None, help="codes or prefixes to check (replaces the default)"
    )
    selecting.add_argument(
        "--extend-select", type=_comma_list, default=[], help="codes or prefixes to check in addition"
    )
    selecting.add_argument("--ignore", type=_comma_list, default=None, help="codes or prefixes to skip")
    selecting.add_argument(
        "--extend-ignore", type=_comma_list, default=[], help="codes or prefixes to skip in addition"
    )
    selecting.add_argument(
        "--per-file-ignores",
        default=None,
        metavar="PATTERN:CODES ...",
        help='codes to skip in matching files, as in flake8: "tests/*:DEV202,DEV203 scripts/*.py:DEV1"',
    )
    selecting.add_argument(
        "--exclude", type=_comma_list, default=None, help="file or directory patterns to skip (replaces the default)"
    )
    selecting.add_argument("--extend-exclude", type=_comma_list, default=[], help="patterns to skip in addition")
    selecting.add_argument(
        "--stdin-filename", default=None, help="the name to report (and configure by) for code read from stdin"
    )
    analysis = parser.add_argument_group("analysis")
    analysis.add_argument(
        "--device-move-functions",
        type=_comma_list,
        default=[],
        help="extra function names that move a batch to a device (like batch_to_device)",
    )
    analysis.add_argument(
        "--device-versions",
        type=_comma_list,
        default=[],
        metavar="PACKAGE=VERSION,...",
        help="package versions the advisories should assume (e.g. torch=2.1.0)",
    )
    config = parser.add_argument_group("configuration")
    config.add_argument("--config", metavar="PYPROJECT", help="read [tool.flake8-device] from this file only")
    config.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    output = parser.add_argument_group("output")
    output.add_argument(
        "--format", choices=FORMATS, default="text", help="text (flake8 style), json, sarif, or github (annotations)"
    )
    output.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="colour text output (auto: on a terminal)"
    )
    output.add_argument("--statistics", action="store_true", help="count the findings per code")
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="parallel processes (default: all cores)")
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule and exit")
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    parser.add_argument("--version", action="version", version=f"flake8-device {__version__}")
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    if args.isolated:
        return Settings()
    if args.config:
        return load_settings(_existing(args.config))
    return discover_settings(start_directory(args.paths, args.stdin_filename))


def _existing(path: str) -> Path:
    if not os.path.isfile(path):
        raise ConfigError(f"{path}: no such configuration file")
    return Path(path)


def _selection(args: argparse.Namespace, settings: Settings) -> Selection:
    """Flags replace (select, ignore) or extend (extend-*) what the configuration says."""
    select = args.select if args.select is not None else settings.select
    ignore = args.ignore if args.ignore is not None else settings.ignore
    return Selection(
        select=None if select is None else tuple(select),
        extend_select=(*settings.extend_select, *args.extend_select),
        ignore=None if ignore is None else tuple(ignore),
        extend_ignore=(*settings.extend_ignore, *args.extend_ignore),
        default_off=default_off_codes(),
    )


def _options(args: argparse.Namespace, settings: Settings, selection: Selection) -> Options:
    per_file_ignores = settings.per_file_ignores
    if args.per_file_ignores is not None:
        per_file_ignores = parse_per_file_ignores(args.per_file_ignores, os.getcwd())
    config = (
        AnalysisConfig()
        .with_extra_move_functions([*settings.device_move_functions, *args.device_move_functions])
        .with_versions([*settings.versions, *parse_versions_option(args.device_versions, "--device-versions")])
    )
    return Options(
        selection=selection,
        config=config,
        fix=args.fix,
        diff=args.diff,
        unsafe_fixes=args.unsafe_fixes,
        stdin_filename=args.stdin_filename or "stdin",
        per_file_ignores=per_file_ignores,
    )


def _excludes(args: argparse.Namespace, settings: Settings) -> tuple[list[Pattern], list[Pattern]]:
    """(patterns pruning the walk, the user's own patterns that also apply to files named explicitly)."""
    cwd = os.getcwd()
    if args.exclude is not None:
        base = [Pattern(p, cwd) for p in args.exclude]
        user = list(base)
    elif settings.exclude is not None:
        base = list(settings.exclude)
        user = list(base)
    else:
        base, user = [Pattern(p, cwd) for p in DEFAULT_EXCLUDES], []
    extended = [*settings.extend_exclude, *(Pattern(p, cwd) for p in args.extend_exclude)]
    return [*base, *extended], [*user, *extended]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (``flake8-device src | head``): no traceback, and no second
        # error when Python flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("flake8-device: interrupted", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.explain:
        rule = rule_by_code(args.explain)
        if rule is None:
            print(f"flake8-device: unknown rule {args.explain!r} (see --list-rules)", file=sys.stderr)
            return EXIT_ERROR
        print(rule_markdown(rule), end="")
        return EXIT_CLEAN
    if args.fix and args.diff:
        parser.error("--fix and --diff cannot be combined (--diff changes nothing)")
    if args.unsafe_fixes and not (args.fix or args.diff):
        parser.error("--unsafe-fixes needs --fix or --diff")
    try:
        settings = _settings(args)
        selection = _selection(args, settings)
        options = _options(args, settings, selection)
    except ConfigError as error:
        print(f"flake8-device: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.list_rules:
        for rule in all_rules():
            state = "on " if selection.enabled(rule.code) else "off"
            print(f"{rule.code}  {state}  {rule.name}")
        return EXIT_CLEAN
    walk_excludes, explicit_excludes = _excludes(args, settings)
    errors: list[str] = []
    tasks: list[tuple[str, Options]] = []
    for found in discover(args.paths, walk_excludes, explicit_excludes=explicit_excludes):
        if isinstance(found, FileError):
            errors.append(str(found))
        else:
            assert isinstance(found, Discovered)
            tasks.append((found.path, options))
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    progress = ProgressBar(sys.stderr) if len(tasks) >= ProgressBar.MIN_FILES and sys.stderr.isatty() else None
    outcomes = run_all(tasks, jobs, progress)
    if progress is not None:
        progress.clear()
    return _report(outcomes, errors, args)


class ProgressBar:
    """``[####....] 120/1004 files`` on a terminal's stderr, redrawn in place, erased at the end."""

    MIN_FILES = 50
    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        filled = self.WIDTH * done // max(total, 1)
        if filled == self.shown and done != total:
            return  # redraw only when the bar grows
        self.shown = filled
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} files")
        self.stream.flush()

    def clear(self) -> None:
        self.stream.write("\r" + " " * (self.WIDTH + 30) + "\r")
        self.stream.flush()


def _report(outcomes: list[Outcome], errors: list[str], args: argparse.Namespace) -> int:
    out = sys.stdout
    fixed_code_on_stdout = any(o.stdout is not None for o in outcomes)
    # With --fix on stdin, stdout carries the fixed code; findings go to stderr.
    findings_stream = sys.stderr if fixed_code_on_stdout else out
    findings: list[Finding] = sorted((f for o in outcomes for f in o.findings), key=Finding.sort_key)
    for outcome in outcomes:
        if outcome.stdout is not None:
            _write_bytes(out, outcome.stdout)
        if outcome.diff:
            out.write(outcome.diff)
    rules = all_rules()
    if not args.diff:  # --diff prints only the diff on stdout
        color = wants_color(args.color, findings_stream) and args.format == "text"
        if findings or args.format in ("json", "sarif"):
            write_findings(findings_stream, args.format, findings, rules, color=color)
    if args.statistics and findings:
        machine_readable = args.format in ("json", "sarif") or args.diff
        stats_stream = sys.stderr if machine_readable else findings_stream
        stats_stream.writelines(line + "\n" for line in statistics(findings, rules))
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
    if findings and not args.fix and not args.diff:
        print(_summary(findings), file=sys.stderr)
    if errors:
        return EXIT_ERROR
    if (findings or (args.diff and applied)) and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _write_bytes(stream: TextIO, data: bytes) -> None:
    """Fixed code goes out byte for byte (its own encoding, BOM and line endings)."""
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text-only stream (an embedding program's)
        stream.write(data.decode("utf-8", errors="replace"))
        return
    buffer.write(data)
    buffer.flush()


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _summary(findings: list[Finding]) -> str:
    safe = sum(1 for f in findings if f.fixable and f.fix_safety is FixSafety.SAFE)
    unsafe = sum(1 for f in findings if f.fixable and f.fix_safety is FixSafety.UNSAFE)
    text = f"Found {_plural(len(findings), 'finding')}"
    if safe:
        text += f"; {safe} fixable with --fix"
    if unsafe:
        text += f"; {unsafe} more with --fix --unsafe-fixes"
    return text + "."
