"""The fixer as a LibCST codemod command, for projects that run their refactorings with ``libcst.tool``.

::

    python -m libcst.tool codemod -x flake8_device.codemod.FixDeviceBugs --no-format src/

(or, with ``modules: [flake8_device]`` in ``.libcst.codemod.yaml``, the command
``codemod.FixDeviceBugs``).  It is a thin wrapper: the engine fixes the module's
code exactly as ``flake8-device --fix`` would (same rules, same ``# noqa``, the
same ``[tool.flake8-device]`` configuration), and the result is parsed back into
the tree LibCST expects.  Pass ``--no-format``: the fixes touch only their own
nodes, and a formatter would reformat the rest of the file.
"""

from __future__ import annotations

import argparse
import functools
import os
from pathlib import Path

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext, SkipFile

from flake8_device.configuration.discovery import discover_settings
from flake8_device.engine import Engine
from flake8_device.registry import default_off_codes
from flake8_device.runner import Options, engine_for
from flake8_device.configuration.settings import ConfigError, Settings


@functools.lru_cache(maxsize=64)
def _settings_for(directory: str) -> Settings:
    return discover_settings(Path(directory))


def engine_for_file(filename: str | None) -> Engine:
    """The engine ``flake8-device --fix`` would use for ``filename`` (its project's configuration)."""
    directory = os.path.dirname(os.path.abspath(filename)) if filename else os.getcwd()
    settings = _settings_for(directory)
    config = settings.analysis_config()
    options = Options(
        selection=settings.selection(default_off_codes()), config=config, per_file_ignores=settings.per_file_ignores
    )
    return engine_for(options.rules_for(filename or "stdin"), config)


class FixDeviceBugs(CodemodCommand):
    DESCRIPTION = "Apply flake8-device's fixes for PyTorch device-placement bugs (safe ones; unsafe on request)."

    def __init__(self, context: CodemodContext, unsafe_fixes: bool = False) -> None:
        super().__init__(context)
        self.unsafe_fixes = unsafe_fixes

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument(
            "--unsafe-fixes",
            action="store_true",
            default=False,
            help="also apply the unsafe fixes (see `flake8-device --explain CODE`)",
        )

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        try:
            engine = engine_for_file(self.context.filename)
        except ConfigError as error:
            raise SkipFile(str(error)) from None
        code = tree.code
        fixed = engine.fix(code, unsafe_fixes=self.unsafe_fixes)
        if fixed.remaining.error:
            raise SkipFile(fixed.remaining.error)
        for refused in fixed.refused:
            self.warn(refused)
        if fixed.text == code:
            return tree
        # Parse the bytes so the module keeps its encoding.
        return cst.parse_module(fixed.text.encode(tree.encoding))
