"""What the CLI prints once every file is checked: findings, diffs, fixed code, and one summary line.

stdout carries the report (or, with ``--fix``/``--add-noqa`` on stdin, the
changed code, the findings then going to stderr; ``--output-file`` takes the
report instead); stderr carries warnings, errors and the summary line, which
never stays silent: ``Found N findings``, ``All checks passed (N files)``, a
warning when no file was found, ``Nothing fixable`` for ``--diff``, and, when a
rule crashed on a file, ``Not every check ran`` (exit status 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from flake8_device.formats import Finding, statistics, wants_color, write_findings
from flake8_device.model import FixSafety
from flake8_device.registry import all_rules
from flake8_device.runner import Outcome

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@dataclass(frozen=True)
class ReportOptions:
    output_format: str = "text"
    color: str = "auto"
    statistics: bool = False
    count: bool = False
    # 1: file names only; 2: nothing (flake8's -q and -qq); either drops the summary line.
    quiet: int = 0
    show_source: bool = False
    exit_zero: bool = False
    diff: bool = False
    # Say where a bound of the analysis made facts unknown (otherwise only how often).
    verbose: bool = False
    # With --fix or --diff: one line for each fix applied.
    show_fixes: bool = False


def plural(count: int, noun: str) -> str:
    """``1 file``, ``2 files``; ``2 rule crashes`` (a noun ending in a hiss takes ``es``)."""
    ending = "es" if noun.endswith(("s", "sh", "ch", "x", "z")) else "s"
    return f"{count} {noun}{'' if count == 1 else ending}"


def found_summary(findings: Sequence[Finding]) -> str:
    safe = sum(1 for f in findings if f.fixable and f.fix_safety is FixSafety.SAFE)
    unsafe = sum(1 for f in findings if f.fixable and f.fix_safety is FixSafety.UNSAFE)
    text = f"Found {plural(len(findings), 'finding')}"
    if safe:
        text += f"; {safe} fixable with --fix"
    if unsafe:
        text += f"; {unsafe} more with --fix --unsafe-fixes"
    return text + "."


def summary_lines(
    outcomes: Sequence[Outcome], findings: Sequence[Finding], options: ReportOptions, *, failed: bool = False
) -> list[str]:
    """The closing lines on stderr (none of them with -q); ``failed``: some file could not be checked."""
    if not outcomes:
        return []  # the CLI warns that no file was found
    applied = sum(o.applied for o in outcomes)
    lines = []
    if options.diff:
        if applied:
            left = f"; {plural(len(findings), 'finding')} would remain" if findings else ""
            lines.append(f"Would fix {plural(applied, 'finding')}{left}.")
        elif findings:
            verb = "remains" if len(findings) == 1 else "remain"
            lines.append(f"Nothing fixable; {plural(len(findings), 'finding')} {verb}.")
    else:
        if applied:
            lines.append(f"Fixed {plural(applied, 'finding')}.")
        added = sum(o.noqa_added for o in outcomes)
        if added:
            on_lines = sum(o.noqa_lines for o in outcomes)
            lines.append(f"Added `# noqa` for {plural(added, 'finding')} on {plural(on_lines, 'line')}.")
        if findings:
            lines.append(found_summary(findings))
    crashed = [o for o in outcomes if o.crashes]
    if crashed:
        # A rule that crashed checked nothing: never "All checks passed".
        crashes = sum(o.crashes for o in crashed)
        lines.append(
            f"Not every check ran: {plural(crashes, 'rule crash')} in {plural(len(crashed), 'file')} "
            "(the internal errors above); please report them."
        )
    elif not findings and not (options.diff and applied) and not failed:
        lines.append(f"All checks passed ({plural(len(outcomes), 'file')}).")
    cuts = sum(len(o.analysis_cuts) for o in outcomes)
    if cuts and not options.verbose:
        # Not an error (the analysis is bounded by design), but no silent pass either.
        lines.append(f"Note: {plural(cuts, 'scope')} too costly to analyse fully (--verbose says which).")
    return lines


def write_bytes(stream: TextIO, data: bytes) -> None:
    """Changed code goes out byte for byte (its own encoding, BOM and line endings)."""
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text-only stream (an embedding program's)
        stream.write(data.decode("utf-8", errors="replace"))
        return
    buffer.write(data)
    buffer.flush()


def report(
    outcomes: list[Outcome],
    errors: list[str],
    options: ReportOptions,
    *,
    stdout: TextIO,
    stderr: TextIO,
    output: TextIO | None = None,
) -> int:
    """Write everything; the exit status."""
    code_on_stdout = any(o.stdout is not None for o in outcomes)
    # With --fix on stdin, stdout carries the fixed code; findings go to stderr.
    report_stream = output or (stderr if code_on_stdout else stdout)
    findings = sorted((f for o in outcomes for f in o.findings), key=Finding.sort_key)
    for outcome in outcomes:
        if outcome.stdout is not None:
            write_bytes(stdout, outcome.stdout)
        if outcome.diff:
            report_stream.write(outcome.diff)
    machine_readable = options.output_format in ("json", "sarif") or options.diff
    if not options.diff:  # --diff prints only the diff
        _write_findings(report_stream, findings, options)
    extra_stream = stderr if machine_readable else report_stream
    if options.statistics and findings:
        extra_stream.writelines(line + "\n" for line in statistics(findings, all_rules()))
    if options.count:
        extra_stream.write(f"{len(findings)}\n")
    if options.show_fixes:
        extra_stream.writelines(line + "\n" for outcome in outcomes for line in outcome.fixes)
    report_stream.flush()
    for outcome in outcomes:
        errors.extend(outcome.errors)
        stderr.writelines(warning + "\n" for warning in outcome.warnings)
        if options.verbose:
            stderr.writelines(f"{outcome.path}: note: analysis cut short in {cut}\n" for cut in outcome.analysis_cuts)
    stderr.writelines(f"flake8-device: {error}\n" for error in errors)
    if not options.quiet:  # (what was fixed and found is said even where a file failed)
        stderr.writelines(line + "\n" for line in summary_lines(outcomes, findings, options, failed=bool(errors)))
    if errors or any(o.crashes for o in outcomes):
        return EXIT_ERROR
    applied = sum(o.applied for o in outcomes)
    if (findings or (options.diff and applied)) and not options.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _write_findings(stream: TextIO, findings: list[Finding], options: ReportOptions) -> None:
    if options.output_format == "text" and options.quiet:
        if options.quiet == 1:  # flake8's -q: the names of the files with findings
            stream.writelines(f"{path}\n" for path in dict.fromkeys(f.path for f in findings))
        return
    if findings or options.output_format in ("json", "sarif"):
        color = wants_color(options.color, stream) and options.output_format == "text"
        write_findings(
            stream, options.output_format, findings, all_rules(), color=color, show_source=options.show_source
        )
