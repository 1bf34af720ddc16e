"""The ``flake8-device`` command: lint, ``--fix``, ``--diff`` and ``--add-noqa``, a thin layer over the engine.

Exit status: 0 when clean, 1 when findings remain, 2 on a usage, configuration
or I/O error or a file that cannot be parsed.  Configuration is
:mod:`.configuration.discovery`'s (the flags are its top layer), checking files
:mod:`.runner`'s, and what is printed at the end :mod:`.report`'s.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

from flake8_device import __version__, progress
from flake8_device.cache import DEFAULT_DIRECTORY as DEFAULT_CACHE_DIRECTORY
from flake8_device.configuration.discovery import discover_settings, load_settings, start_directory
from flake8_device.docs import rule_markdown
from flake8_device.files import Discovered, Excluded, FileError, Pattern, discover, excluded
from flake8_device.formats import FORMATS
from flake8_device.registry import all_rules, default_off_codes, rule_by_code
from flake8_device.report import EXIT_CLEAN, EXIT_ERROR, ReportOptions, plural, report
from flake8_device.runner import Options, run_all
from flake8_device.configuration.settings import (
    ConfigError,
    Settings,
    identifiers,
    own_codes,
    parse_per_file_ignores,
    parse_versions_option,
    selection_warnings,
)


def _comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flake8-device",
        description="Find (and fix) PyTorch device-placement bugs in Python files and Jupyter notebooks.",
        epilog="Settings are read from [tool.flake8-device] in pyproject.toml and from [flake8] in setup.cfg, "
        "tox.ini or .flake8 (which wins); flags override both. See the README.",
    )
    parser.add_argument(
        "paths", nargs="*", default=["."], help="files or directories to check (.py and .ipynb); - reads stdin"
    )
    fixing = parser.add_argument_group("fixing")
    fixing.add_argument("--fix", action="store_true", help="apply safe fixes in place (on stdin: print the fixed code)")
    fixing.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, apply unsafe fixes too")
    fixing.add_argument("--diff", action="store_true", help="print the fixes as a diff; change nothing")
    fixing.add_argument(
        "--show-fixes", action="store_true", help="with --fix or --diff, say each fix applied: where, code and title"
    )
    fixing.add_argument(
        "--add-noqa",
        action="store_true",
        help="add `# noqa: DEVnnn` where flake8 reads it for every current finding (to adopt the tool in one commit)",
    )
    selecting = parser.add_argument_group("what to check")
    selecting.add_argument("--select", type=_comma_list, help="codes or prefixes to check (replaces the default)")
    selecting.add_argument("--extend-select", type=_comma_list, help="codes or prefixes to check in addition")
    selecting.add_argument("--ignore", type=_comma_list, help="codes or prefixes to skip (replaces the configured)")
    selecting.add_argument("--extend-ignore", type=_comma_list, help="codes or prefixes to skip in addition")
    selecting.add_argument(
        "--per-file-ignores",
        metavar="PATTERN:CODES ...",
        help='codes to skip in matching files, as in flake8: "tests/*:DEV202,DEV203 scripts/*.py:DEV1"',
    )
    selecting.add_argument(
        "--exclude", type=_comma_list, help="file or directory patterns to skip (replaces the default)"
    )
    selecting.add_argument("--extend-exclude", type=_comma_list, help="patterns to skip in addition")
    selecting.add_argument(
        "--force-exclude",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="apply the excludes to files named on the command line too (pre-commit's hooks do)",
    )
    selecting.add_argument(
        "--stdin-filename",
        "--stdin-display-name",
        dest="stdin_filename",
        help="the name to report (and configure by) for code read from stdin",
    )
    analysis = parser.add_argument_group("analysis")
    analysis.add_argument(
        "--device-move-functions",
        type=_comma_list,
        help="extra function names that move a batch to a device (like batch_to_device)",
    )
    analysis.add_argument(
        "--device-versions",
        type=_comma_list,
        metavar="PACKAGE=VERSION,...",
        help="package versions the advisories should assume (e.g. torch=2.1.0)",
    )
    config = parser.add_argument_group("configuration")
    config.add_argument(
        "--config", metavar="FILE", help="read only this file: a pyproject.toml's table, or a [flake8] section"
    )
    config.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    output = parser.add_argument_group("output")
    output.add_argument(
        "--format", choices=FORMATS, default="text", help="text (flake8 style), json, sarif, or github (annotations)"
    )
    output.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="colour text output (auto: on a terminal)"
    )
    output.add_argument(
        "--show-source",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show each finding's line and a caret under its column",
    )
    output.add_argument("--statistics", action="store_true", help="count the findings per code")
    output.add_argument("--count", action="store_true", help="print the number of findings at the end")
    output.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of stdout")
    output.add_argument(
        "-q", "--quiet", action="count", default=0, help="only the names of files with findings (-qq: nothing)"
    )
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    output.add_argument(
        "-v", "--verbose", action="store_true", help="say where the analysis hit a bound (its facts there are unknown)"
    )
    parser.add_argument("-j", "--jobs", type=int, default=0, help="parallel processes (default: all cores)")
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help=f"where to keep the findings of unchanged files (default: {DEFAULT_CACHE_DIRECTORY} here)",
    )
    parser.add_argument("--no-cache", action="store_true", help="check every file afresh; read and write no cache")
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule and exit")
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    parser.add_argument("--version", action="version", version=f"flake8-device {__version__}")
    return parser


def flag_settings(args: argparse.Namespace) -> Settings:
    """The command line as the top configuration layer."""
    cwd = os.getcwd()

    def codes(value: list[str] | None, flag: str) -> tuple[str, ...] | None:
        return None if value is None else own_codes(value, flag)

    def patterns(value: list[str] | None) -> tuple[Pattern, ...] | None:
        return None if value is None else tuple(Pattern(p, cwd) for p in value)

    flags = {
        "select": "--select",
        "extend-select": "--extend-select",
        "ignore": "--ignore",
        "extend-ignore": "--extend-ignore",
        "per-file-ignores": "--per-file-ignores",
    }
    return Settings(
        select=codes(args.select, "--select"),
        extend_select=codes(args.extend_select, "--extend-select") or (),
        ignore=codes(args.ignore, "--ignore"),
        extend_ignore=codes(args.extend_ignore, "--extend-ignore") or (),
        per_file_ignores=(
            parse_per_file_ignores(args.per_file_ignores, cwd) if args.per_file_ignores is not None else ()
        ),
        exclude=patterns(args.exclude),
        extend_exclude=patterns(args.extend_exclude) or (),
        force_exclude=args.force_exclude,
        show_source=args.show_source,
        device_move_functions=identifiers(args.device_move_functions or (), "--device-move-functions"),
        versions=parse_versions_option(args.device_versions or (), "--device-versions"),
        origins=tuple((key, flag) for key, flag in flags.items() if getattr(args, key.replace("-", "_")) is not None),
    )


def configured(args: argparse.Namespace) -> Settings:
    """Every layer of the run's configuration, the flags on top."""
    if args.isolated:
        files = Settings()
    elif args.config:
        files = load_settings(Path(args.config))
    else:
        files = discover_settings(start_directory(args.paths, args.stdin_filename))
    return flag_settings(args).over(files)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["server"]:
        return _server(arguments[1:])
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


def _server(arguments: list[str]) -> int:
    """``flake8-device server``: the language server (the ``server`` extra brings pygls)."""
    if arguments:
        print("flake8-device server: takes no arguments (it speaks LSP on stdin and stdout)", file=sys.stderr)
        return EXIT_ERROR
    try:
        from flake8_device.server import main as serve
    except ImportError as error:
        print(
            f"flake8-device server needs the server extra: pip install 'flake8-device[server]' ({error})",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return serve()


def _usage(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if sum((args.fix, args.diff, args.add_noqa)) > 1:
        parser.error("--fix, --diff and --add-noqa cannot be combined")
    if args.unsafe_fixes and not (args.fix or args.diff):
        parser.error("--unsafe-fixes needs --fix or --diff")


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
    _usage(parser, args)
    try:
        settings = configured(args)
    except ConfigError as error:
        print(f"flake8-device: {error}", file=sys.stderr)
        return EXIT_ERROR
    selection = settings.selection(default_off_codes())
    if args.list_rules:
        for rule in all_rules():
            state = "on " if selection.enabled(rule.code) else "off"
            print(f"{rule.code}  {state}  {rule.name}")
        return EXIT_CLEAN
    for note in (*settings.notes, *selection_warnings(settings, selection)):
        print(f"flake8-device: warning: {note}", file=sys.stderr)
    options = Options(
        selection=selection,
        config=settings.analysis_config(),
        fix=args.fix,
        diff=args.diff,
        unsafe_fixes=args.unsafe_fixes,
        add_noqa=args.add_noqa,
        show_source=bool(settings.show_source),
        stdin_filename=args.stdin_filename or "stdin",
        per_file_ignores=settings.per_file_ignores,
        cache_dir=None if args.no_cache else (args.cache_dir or DEFAULT_CACHE_DIRECTORY),
    )
    return _run(args, settings, options)


def _run(args: argparse.Namespace, settings: Settings, options: Options) -> int:
    excludes = settings.walk_excludes(os.getcwd())
    errors: list[str] = []
    tasks: list[tuple[str, Options]] = []
    skipped: list[str] = []
    for found in discover(args.paths, excludes, force_exclude=bool(settings.force_exclude)):
        if isinstance(found, FileError):
            errors.append(str(found))
        elif isinstance(found, Excluded):
            skipped.append(found.path)
        elif found.path == "-" and settings.force_exclude and excluded(
            options.stdin_filename, excludes, components=True
        ):
            skipped.append(options.stdin_filename)
            if args.fix or args.add_noqa:  # an editor replaces its buffer with stdout: give it back
                _echo_stdin()
        else:
            assert isinstance(found, Discovered)
            tasks.append((found.path, options))
    if not tasks and not errors:
        reason = f" ({plural(len(skipped), 'named path')} excluded by --force-exclude)" if skipped else ""
        print(f"flake8-device: warning: No Python files found{reason}", file=sys.stderr)
        return EXIT_CLEAN
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    shown = progress.Progress(sys.stderr) if not args.quiet and progress.wanted(sys.stderr, os.environ) else None
    outcomes = run_all(tasks, jobs, shown)
    if shown is not None:
        shown.clear()
    report_options = ReportOptions(
        output_format=args.format,
        color=args.color,
        statistics=args.statistics,
        count=args.count,
        quiet=args.quiet,
        show_source=options.show_source,
        exit_zero=args.exit_zero,
        diff=args.diff,
        verbose=args.verbose,
        show_fixes=args.show_fixes,
    )
    with ExitStack() as stack:
        output: TextIO | None = None
        if args.output_file:
            try:
                output = stack.enter_context(open(args.output_file, "w", encoding="utf-8"))
            except OSError as error:
                print(f"flake8-device: {args.output_file}: cannot write: {error.strerror or error}", file=sys.stderr)
                return EXIT_ERROR
        return report(outcomes, errors, report_options, stdout=sys.stdout, stderr=sys.stderr, output=output)


def _echo_stdin() -> None:
    data = sys.stdin.buffer.read()
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
