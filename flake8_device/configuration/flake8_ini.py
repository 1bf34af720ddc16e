"""The ``[flake8]`` section of ``setup.cfg``, ``tox.ini`` or ``.flake8``, read as flake8 reads it.

The CLI reads the flake8-device settings a flake8 user keeps there (``select``,
``ignore``, ``extend-*``, ``per-file-ignores``, ``exclude``,
``extend-exclude``, ``show-source`` and the ``device-*`` options), so that
``flake8-device`` and ``flake8`` agree on one project.  flake8's own rules are
followed: the file is the first of ``setup.cfg``, ``tox.ini``, ``.flake8`` with
a ``[flake8]`` section, in the nearest directory going up (never the home
directory or above it); values are split on commas and whitespace; an
unreadable file is skipped (flake8 skips it too; the CLI says so);
``exclude`` patterns are relative to the file, ``per-file-ignores`` ones to
the current directory.  Codes of other plugins are kept: they simply match no
DEV code, while a bare ``D`` (pydocstyle) matches every one, as under flake8.
"""

from __future__ import annotations

import argparse
import configparser
import os
import re
from pathlib import Path

from flake8_device.files import Pattern
from flake8_device.configuration.settings import (
    COMMON_KEYS,
    ConfigError,
    PerFileIgnores,
    Settings,
    foreign_codes,
    identifiers,
    parse_versions_option,
)

CANDIDATES = ("setup.cfg", "tox.ini", ".flake8")
# The keys read from [flake8] (flake8's own options and other plugins' are left to them).
KNOWN_KEYS = (*COMMON_KEYS, "device-versions")
SECTION = "flake8"
_LIST_SEPARATOR = re.compile(r"[,\s]")


def _comma_list(value: str) -> list[str]:
    """flake8's ``parse_comma_separated_list``: split on commas and whitespace."""
    return [item.strip() for item in _LIST_SEPARATOR.split(value) if item.strip()]


def _read(path: Path) -> configparser.RawConfigParser | str:
    """The parsed file, or why it cannot be read."""
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (UnicodeDecodeError, configparser.Error) as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        return first_line
    return parser


def find_flake8_config(start: Path) -> tuple[Path | None, list[str]]:
    """flake8's search: (the file, notes about unreadable candidates skipped on the way)."""
    home = Path(os.path.expanduser("~"))
    try:
        home_key = home.resolve() if str(home) != "~" else None
    except OSError:
        home_key = None
    notes: list[str] = []
    directory = start.resolve()
    while True:
        for name in CANDIDATES:
            candidate = directory / name
            if not candidate.is_file():
                continue
            parsed = _read(candidate)
            if isinstance(parsed, str):
                notes.append(f"{candidate}: skipped, as flake8 skips it: {parsed}")
            elif parsed.has_section(SECTION) or parsed.has_section("flake8:local-plugins"):
                return candidate, notes
        parent = directory.parent
        if parent == directory or parent == home_key:
            return None, notes
        directory = parent


def _per_file_ignores(value: str, where: str) -> PerFileIgnores:
    """flake8's ``filenames: codes`` mapping, parsed by flake8 itself (patterns relative to the
    current directory, as flake8 has them)."""
    from flake8.exceptions import ExecutionError
    from flake8.utils import parse_files_to_codes_mapping

    try:
        mapping = parse_files_to_codes_mapping(value)
    except ExecutionError:
        raise ConfigError(f"{where}: expected file patterns mapped to codes, like 'tests/*: DEV202'") from None
    cwd = os.getcwd()
    return tuple(
        (Pattern(name, cwd), foreign_codes(codes, where, strict_shape=False)) for name, codes in mapping
    )


def _boolean(parser: configparser.RawConfigParser, key: str, where: str) -> bool:
    try:
        return parser.getboolean(SECTION, key)
    except ValueError:
        raise ConfigError(f"{where}: expected true or false, got {parser.get(SECTION, key)!r}") from None


def load_flake8_config(path: Path) -> Settings | None:
    """The flake8-device settings of a file's ``[flake8]`` section; None when it has none."""
    parsed = _read(path)
    if isinstance(parsed, str):
        raise ConfigError(f"{path}: cannot read: {parsed}")
    if not parsed.has_section(SECTION):
        return None
    # flake8 takes ``extend_ignore`` for ``extend-ignore``.
    values = {key.replace("_", "-"): key for key in parsed.options(SECTION)}
    root = str(path.resolve().parent)
    origin = f"{path} [{SECTION}]"

    def where(key: str) -> str:
        return f"{origin} {key}"

    def raw(key: str) -> str | None:
        option = values.get(key)
        return None if option is None else parsed.get(SECTION, option)

    def codes(key: str, *, strict_shape: bool) -> tuple[str, ...] | None:
        value = raw(key)
        return None if value is None else foreign_codes(_comma_list(value), where(key), strict_shape=strict_shape)

    def patterns(key: str) -> tuple[Pattern, ...] | None:
        value = raw(key)
        return None if value is None else tuple(Pattern(item, root) for item in _comma_list(value))

    per_file = raw("per-file-ignores")
    show_source = values.get("show-source")
    versions = raw("device-versions")
    return Settings(
        select=codes("select", strict_shape=False),
        extend_select=codes("extend-select", strict_shape=False) or (),
        ignore=codes("ignore", strict_shape=True),
        extend_ignore=codes("extend-ignore", strict_shape=True) or (),
        per_file_ignores=_per_file_ignores(per_file, where("per-file-ignores")) if per_file else (),
        exclude=patterns("exclude"),
        extend_exclude=patterns("extend-exclude") or (),
        show_source=None if show_source is None else _boolean(parsed, show_source, where("show-source")),
        device_move_functions=identifiers(
            _comma_list(raw("device-move-functions") or ""), where("device-move-functions")
        ),
        versions=parse_versions_option(_comma_list(versions), where("device-versions")) if versions else (),
        origins=tuple((key, origin) for key in values if key in KNOWN_KEYS),
    )


def flake8_layer(options: argparse.Namespace) -> Settings:
    """flake8's own options, as flake8 merged them (its command line over its ``[flake8]``
    section), as the layer the plugin puts over ``[tool.flake8-device]``."""
    from flake8.defaults import EXCLUDE

    def codes(name: str) -> tuple[str, ...] | None:
        value = getattr(options, name, None)
        return None if value is None else foreign_codes(value, name.replace("_", "-"), strict_shape=False)

    cwd = os.getcwd()
    exclude = getattr(options, "exclude", None)
    user_exclude = exclude is not None and list(exclude) != list(EXCLUDE)  # flake8 always has one
    per_file = getattr(options, "per_file_ignores", None) or ""
    keys = ("select", "extend_select", "ignore", "extend_ignore")
    return Settings(
        select=codes("select"),
        extend_select=codes("extend_select") or (),
        ignore=codes("ignore"),
        extend_ignore=codes("extend_ignore") or (),
        per_file_ignores=_per_file_ignores(per_file, "per-file-ignores") if per_file.strip() else (),
        exclude=tuple(Pattern(p, cwd) for p in exclude) if exclude is not None and user_exclude else None,
        extend_exclude=tuple(Pattern(p, cwd) for p in getattr(options, "extend_exclude", None) or ()),
        device_move_functions=identifiers(
            getattr(options, "device_move_functions", None) or (), "--device-move-functions"
        ),
        versions=parse_versions_option(getattr(options, "device_versions", None) or (), "--device-versions"),
        origins=tuple(
            (key.replace("_", "-"), "flake8's options") for key in keys if getattr(options, key, None) is not None
        ),
    )
