"""The flake8 front end: a thin layer over the engine.

flake8 hands the plugin the lines it read (from a file, or from stdin for
editors) and the ``ast`` tree it already parsed; the plugin lints those lines,
never the file on disk.  A file LibCST cannot parse is skipped silently
(flake8 reports its own E999), and nothing the plugin does can raise into
flake8: an internal error becomes one line on stderr naming the file.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flake8_device import __version__
from flake8_device.codes import ALL_CODES, DEFAULT_OFF_CODES
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.configuration.discovery import pyproject_settings
from flake8_device.files import Pattern, excluded
from flake8_device.configuration.flake8_ini import flake8_layer
from flake8_device.options import Options
from flake8_device.selection import Selection
from flake8_device.configuration.settings import ConfigError, Settings, selection_warnings

# The engine and the rules (LibCST, the analysis) are imported by ``run`` when a file is checked
# with some DEV code selected: flake8 imports every plugin on every run, also runs that select
# none of our codes.


class Plugin:
    name = "flake8-device"
    version = __version__

    _options: Options | None = None
    _excludes: tuple[Pattern, ...] = ()

    def __init__(self, tree: ast.Module, lines: list[str], filename: str = "stdin") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.add_option(
            "--device-move-functions",
            default="",
            parse_from_config=True,
            comma_separated_list=True,
            help="Extra function names that move a batch to a device, like "
            "`batch_to_device(batch, device)` (flake8-device).",
        )
        manager.add_option(
            "--device-versions",
            default="",
            parse_from_config=True,
            comma_separated_list=True,
            help="Package versions the flake8-device advisories should assume, like `torch=2.1.0,deepspeed=0.14.0`.",
        )
        manager.extend_default_ignore(list(DEFAULT_OFF_CODES))

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        try:
            cls._configure(options)
        except ConfigError as error:
            # flake8 shows a plugin's exception as a traceback; a usage error deserves one line.
            sys.stderr.write(f"flake8: {error}\n")
            raise SystemExit(2) from None

    @classmethod
    def _configure(cls, options: argparse.Namespace) -> None:
        """flake8's options (its command line over its ``[flake8]`` section) over ``[tool.flake8-device]``."""
        ours = flake8_layer(options)
        table = Settings() if _isolated() else pyproject_settings(Path.cwd())
        merged = ours.over(table)
        default_off = getattr(options, "extended_default_ignore", None) or DEFAULT_OFF_CODES
        selection = merged.selection(default_off)
        for note in selection_warnings(merged, selection) if _short_prefix_ignored(merged) else ():
            sys.stderr.write(f"flake8-device: warning: {note}\n")
        # flake8 shows only the codes it selects itself: the ones the table switches on
        # (``extend-select = ["DEV404"]``) are added to its explicit selection.
        flake8_alone = ours.selection(default_off)
        extra = [code for code in ALL_CODES if selection.enabled(code) and not flake8_alone.enabled(code)]
        if extra:
            options.extend_select = [*(getattr(options, "extend_select", None) or []), *extra]
        cls._options = Options(
            selection=selection, config=merged.analysis_config(), per_file_ignores=merged.per_file_ignores
        )
        cls._excludes = merged.walk_excludes(os.getcwd())

    @classmethod
    def options(cls) -> Options:
        if cls._options is None:
            cls._options = Options(selection=Selection(default_off=DEFAULT_OFF_CODES), config=AnalysisConfig())
        return cls._options

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if excluded(self.filename, self._excludes, components=True):
            return  # the same files as the CLI checks (flake8's own exclude still applies first)
        try:
            options = self.options()
            codes = options.rules_for(self.filename)
            if not codes:
                return
            from flake8_device.cache import user_cache
            from flake8_device.runner import engine_for

            engine = engine_for(codes, options.config, user_cache())
            path = None if self.filename in ("stdin", "-") else self.filename  # where pins are looked up
            result = engine.lint("".join(self.lines), tree=self.tree, path=path)
        except Exception as error:  # noqa: BLE001 - never break the user's flake8 run
            sys.stderr.write(f"{self.filename}: flake8-device internal error: {type(error).__name__}: {error}\n")
            return
        for problem in result.internal_errors:
            sys.stderr.write(f"{self.filename}: flake8-device: {problem}\n")
        for violation in result.violations:
            yield violation.line, violation.col, violation.flake8_text(), type(self)


def _short_prefix_ignored(settings: Settings) -> bool:
    """A bare ``D`` or ``DE`` in an ignore list: pydocstyle's prefix switching DEV off by accident."""
    return any("DEV".startswith(code.upper()) for code in (*(settings.ignore or ()), *settings.extend_ignore))


def _isolated() -> bool:
    """``flake8 --isolated``: flake8 reads that flag before its options exist and keeps it out of them,
    so it is read again from the command line the same way (``flake8.main.options``)."""
    try:
        from flake8.main.options import stage1_arg_parser

        first_stage, _ = stage1_arg_parser().parse_known_args(sys.argv[1:])
    except (ImportError, SystemExit):  # another flake8, or an argv that is not flake8's
        return False
    return bool(getattr(first_stage, "isolated", False))
