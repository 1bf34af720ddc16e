"""Finding the configuration of a run: ``[tool.flake8-device]`` under ``[flake8]`` (see :mod:`.settings`).

Each is looked for upward from a start directory (the CLI: the common
directory of the checked paths; the flake8 plugin: the current directory, where
flake8 looks for its own): the nearest ``pyproject.toml`` with the table, and
the file flake8 would read.  ``--config FILE`` names one file instead (a
``.toml`` file's table, or any other file's ``[flake8]`` section), and
``--isolated`` reads none.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from flake8_device.configuration.flake8_ini import find_flake8_config, load_flake8_config
from flake8_device.configuration.pyproject import TABLE, find_pyproject, load_pyproject
from flake8_device.configuration.settings import ConfigError, Settings


def pyproject_settings(start: Path) -> Settings:
    """The ``[tool.flake8-device]`` layer for code under ``start`` (empty when no file has the table)."""
    found = find_pyproject(start)
    return (load_pyproject(found) if found is not None else None) or Settings()


def flake8_settings(start: Path) -> Settings:
    """The ``[flake8]`` layer flake8 would read from ``start`` (empty when there is none)."""
    found, notes = find_flake8_config(start)
    loaded = load_flake8_config(found) if found is not None else None
    return (loaded or Settings()).over(Settings(notes=tuple(notes)))


def discover_settings(start: Path) -> Settings:
    """The configuration in force for code under ``start``: ``[flake8]`` over ``[tool.flake8-device]``."""
    return flake8_settings(start).over(pyproject_settings(start))


def load_settings(path: Path) -> Settings:
    """The one file ``--config`` names."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such configuration file")
    if path.suffix == ".toml":
        loaded = load_pyproject(path)
        if loaded is None:
            raise ConfigError(f"{path}: has no [{TABLE}] table")
        return loaded
    loaded = load_flake8_config(path)
    if loaded is None:
        raise ConfigError(f"{path}: has no [flake8] section (or, in a .toml file, [{TABLE}] table)")
    return loaded


def start_directory(paths: Sequence[str], stdin_filename: str | None = None) -> Path:
    """Where to look for the configuration: the common directory of the checked paths."""
    named = [stdin_filename if p == "-" else p for p in paths]
    directories = [
        os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in named if p and p != "stdin"
    ]
    if not directories:
        return Path.cwd()
    try:
        return Path(os.path.commonpath(directories))
    except ValueError:  # different drives
        return Path.cwd()
