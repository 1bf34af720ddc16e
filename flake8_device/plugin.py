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
import sys
from collections.abc import Iterator
from typing import Any

from flake8_device import __version__
from flake8_device.config import AnalysisConfig
from flake8_device.engine import Engine
from flake8_device.registry import all_rules, default_off_codes
from flake8_device.selection import Selection
from flake8_device.settings import ConfigError, parse_versions_option


class Plugin:
    name = "flake8-device"
    version = __version__

    _engine: Engine | None = None

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
        manager.extend_default_ignore(list(default_off_codes()))

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        selection = Selection(
            select=getattr(options, "select", None),
            extend_select=getattr(options, "extend_select", None) or (),
            ignore=getattr(options, "ignore", None),
            extend_ignore=getattr(options, "extend_ignore", None) or (),
            default_off=getattr(options, "extended_default_ignore", None) or default_off_codes(),
        )
        # flake8 decides what is shown; running only what can be shown saves time.
        rules = [r for r in all_rules() if selection.enabled(r.code)]
        try:
            versions = parse_versions_option(getattr(options, "device_versions", None) or [], "--device-versions")
        except ConfigError as error:
            # flake8 shows a plugin's exception as a traceback; a usage error deserves one line.
            sys.stderr.write(f"flake8: {error}\n")
            raise SystemExit(2) from None
        config = (
            AnalysisConfig()
            .with_extra_move_functions(getattr(options, "device_move_functions", None) or [])
            .with_versions(versions)
        )
        cls._engine = Engine(rules, config)

    @classmethod
    def engine(cls) -> Engine:
        if cls._engine is None:
            cls._engine = Engine([r for r in all_rules() if r.default_enabled])
        return cls._engine

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        try:
            path = None if self.filename in ("stdin", "-") else self.filename  # where pins are looked up
            result = self.engine().lint("".join(self.lines), tree=self.tree, path=path)
        except Exception as error:  # noqa: BLE001 - never break the user's flake8 run
            sys.stderr.write(f"{self.filename}: flake8-device internal error: {type(error).__name__}: {error}\n")
            return
        for problem in result.internal_errors:
            sys.stderr.write(f"{self.filename}: flake8-device: {problem}\n")
        for violation in result.violations:
            yield violation.line, violation.col, violation.flake8_text(), type(self)
