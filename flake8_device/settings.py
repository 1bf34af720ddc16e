"""Project settings: ``[tool.flake8-device]`` in ``pyproject.toml``, read without evaluating anything.

The table is looked for upward from the checked paths (one configuration per
run, from the nearest ``pyproject.toml`` that has the table).  Command-line
flags override it: ``--select``/``--ignore``/``--exclude`` replace the
configured value, the ``extend-*`` flags and ``--device-move-functions`` add
to it.  Under flake8, flake8's own configuration holds the same settings (see
the README).

Patterns (``exclude``, ``per-file-ignores``) follow flake8: a pattern without
a ``/`` matches a file or directory name; one with a ``/`` is relative to the
directory of the file that declares it.

No runtime dependency is added for this: ``tomllib`` on Python 3.11+, else
``tomli`` when it is installed, else a clear message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flake8_device.files import Pattern
from flake8_device.versions import Version

TABLE = "tool.flake8-device"
CODE_PREFIX = re.compile(r"DEV\d{0,3}")
PACKAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ConfigError(Exception):
    """Bad configuration; the message is one line naming the file and the key."""


@dataclass(frozen=True)
class Settings:
    """What a configuration file (or the absence of one) says; ``None`` means "not set"."""

    source: str | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] | None = None
    extend_ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[Pattern, tuple[str, ...]], ...] = ()
    exclude: tuple[Pattern, ...] | None = None
    extend_exclude: tuple[Pattern, ...] = ()
    device_move_functions: tuple[str, ...] = ()
    # Package versions the advisories should assume, e.g. {"torch": "2.1.0"}.
    versions: tuple[tuple[str, str], ...] = field(default=())

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """Codes ignored for ``path`` by ``per-file-ignores``."""
        return tuple(code for pattern, codes in self.per_file_ignores if pattern.matches(path) for code in codes)


def _load_toml(text: str, where: str) -> dict[str, Any]:
    try:
        import tomllib as toml  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        try:
            import tomli as toml  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            raise ConfigError(
                f"{where}: reading [{TABLE}] needs Python 3.11+ or the tomli package (pip install tomli)"
            ) from None
    try:
        return toml.loads(text)  # type: ignore[no-any-return]
    except toml.TOMLDecodeError as error:
        raise ConfigError(f"{where}: not valid TOML: {error}") from None


def _table_of(document: Mapping[str, Any]) -> Any:
    tool = document.get("tool")
    return tool.get("flake8-device") if isinstance(tool, dict) else None


def read_table(path: Path) -> dict[str, Any] | None:
    """The ``[tool.flake8-device]`` table of a pyproject file, or None when it has none."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    if "flake8-device" not in text:  # cheap: most pyproject files never mention us
        return None
    table = _table_of(_load_toml(text, str(path)))
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{TABLE}] must be a table")
    return table


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has a ``[tool.flake8-device]`` table."""
    directory = start.resolve()
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / "pyproject.toml"
        if candidate.is_file() and read_table(candidate) is not None:
            return candidate
    return None


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


# -- validation -------------------------------------------------------------------------------


class _Reader:
    def __init__(self, table: Mapping[str, Any], where: str, root: str) -> None:
        self.table = table
        self.where = where
        self.root = root

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.where}: [{TABLE}] {key}: {problem}")

    def strings(self, key: str) -> tuple[str, ...] | None:
        """A list of strings; a comma-separated string is accepted too (flake8's habit)."""
        if key not in self.table:
            return None
        value = self.table[key]
        if isinstance(value, str):
            return tuple(item.strip() for item in value.split(",") if item.strip())
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(item.strip() for item in value if item.strip())
        return self._wrong(key, "a list of strings", value)  # type: ignore[no-any-return]

    def _wrong(self, key: str, expected: str, value: Any) -> Any:
        raise self.fail(key, f"expected {expected}, got {_describe(value)}")

    def codes(self, key: str, value: Iterable[str] | None = None) -> tuple[str, ...] | None:
        items = self.strings(key) if value is None else tuple(value)
        if items is None:
            return None
        for item in items:
            if not CODE_PREFIX.fullmatch(item.upper()):
                raise self.fail(key, f"{item!r} is not a flake8-device code or prefix (DEV, DEV1, DEV101, ...)")
        return tuple(item.upper() for item in items)

    def patterns(self, key: str) -> tuple[Pattern, ...] | None:
        items = self.strings(key)
        return None if items is None else tuple(Pattern(item, self.root) for item in items)

    def per_file_ignores(self, key: str) -> tuple[tuple[Pattern, tuple[str, ...]], ...]:
        if key not in self.table:
            return ()
        value = self.table[key]
        if not isinstance(value, dict):
            return self._wrong(key, 'a table of patterns to codes, like {"tests/*" = ["DEV202"]}', value)
        entries = []
        for pattern, codes in value.items():
            if isinstance(codes, str):
                codes = [c for c in codes.split(",") if c.strip()]
            if not (isinstance(codes, list) and all(isinstance(c, str) for c in codes)):
                raise self.fail(f"{key}.{pattern}", f"expected a list of codes, got {_describe(codes)}")
            checked = self.codes(f"{key}.{pattern}", [c.strip() for c in codes]) or ()
            entries.append((Pattern(pattern, self.root), checked))
        return tuple(entries)

    def identifiers(self, key: str) -> tuple[str, ...]:
        items = self.strings(key) or ()
        for item in items:
            if not IDENTIFIER.fullmatch(item):
                raise self.fail(key, f"{item!r} is not a function name")
        return items

    def versions(self, key: str) -> tuple[tuple[str, str], ...]:
        if key not in self.table:
            return ()
        value = self.table[key]
        if not isinstance(value, dict):
            return self._wrong(key, 'a table of package versions, like {torch = "2.1.0"}', value)
        return parse_versions(value, lambda name, problem: self.fail(f"{key}.{name}" if name else key, problem))


def parse_versions(value: Mapping[str, Any], fail: Any) -> tuple[tuple[str, str], ...]:
    """Validated ``package -> version`` pairs, sorted (hashable, so engines can be cached)."""
    pairs = []
    for name, version in value.items():
        if not PACKAGE_NAME.fullmatch(str(name)):
            raise fail("", f"{name!r} is not a package name")
        # (Version.parse: the advisories compare releases, so a version must be one they can read.)
        if not isinstance(version, str) or Version.parse(version) is None:
            raise fail(name, f'expected a version string like "2.1.0", got {_describe(version)}')
        pairs.append((str(name).lower(), version.strip()))
    return tuple(sorted(pairs))


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        odd = [v for v in value if not isinstance(v, str)]
        return f"a list containing {_describe(odd[0])}" if odd else "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


KNOWN_KEYS = (
    "select",
    "extend-select",
    "ignore",
    "extend-ignore",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "device-move-functions",
    "versions",
)


def settings_from_table(table: Mapping[str, Any], where: str, root: str) -> Settings:
    for key in table:
        if key not in KNOWN_KEYS:
            hint = key.replace("_", "-")
            suggestion = f" (did you mean {hint!r}?)" if hint in KNOWN_KEYS else ""
            raise ConfigError(f"{where}: [{TABLE}] {key}: unknown setting{suggestion}; known: {', '.join(KNOWN_KEYS)}")
    reader = _Reader(table, where, root)
    return Settings(
        source=where,
        select=reader.codes("select"),
        extend_select=reader.codes("extend-select") or (),
        ignore=reader.codes("ignore"),
        extend_ignore=reader.codes("extend-ignore") or (),
        per_file_ignores=reader.per_file_ignores("per-file-ignores"),
        exclude=reader.patterns("exclude"),
        extend_exclude=reader.patterns("extend-exclude") or (),
        device_move_functions=reader.identifiers("device-move-functions"),
        versions=reader.versions("versions"),
    )


def load_settings(pyproject: Path) -> Settings:
    table = read_table(pyproject)
    if table is None:
        raise ConfigError(f"{pyproject}: has no [{TABLE}] table")
    return settings_from_table(table, str(pyproject), str(pyproject.resolve().parent))


def discover_settings(start: Path) -> Settings:
    """The settings in force for code under ``start`` (defaults when no file declares any)."""
    found = find_pyproject(start)
    return Settings() if found is None else load_settings(found)


def parse_per_file_ignores(value: str, root: str) -> tuple[tuple[Pattern, tuple[str, ...]], ...]:
    """flake8's ``--per-file-ignores`` syntax: ``"tests/*:DEV202,DEV203 scripts/*.py:DEV1"``."""
    entries: list[tuple[Pattern, list[str]]] = []
    for token in re.split(r"[\s,]+", value.strip()):
        if not token:
            continue
        if ":" in token:
            pattern, _, code = token.rpartition(":")
            entries.append((Pattern(pattern, root), []))
            token = code
            if not token:
                continue
        if not entries:
            raise ConfigError(f"--per-file-ignores: {token!r} comes before any file pattern (use PATTERN:CODES)")
        if not CODE_PREFIX.fullmatch(token.upper()):
            raise ConfigError(f"--per-file-ignores: {token!r} is not a flake8-device code or prefix")
        entries[-1][1].append(token.upper())
    return tuple((pattern, tuple(codes)) for pattern, codes in entries)


def parse_versions_option(values: Sequence[str], option: str) -> tuple[tuple[str, str], ...]:
    """``["torch=2.1.0", "deepspeed=0.14.0"]`` (from a command-line or flake8 option)."""
    mapping: dict[str, str] = {}
    for item in values:
        name, equals, version = item.partition("=")
        if not equals:
            raise ConfigError(f"{option}: {item!r} is not PACKAGE=VERSION")
        mapping[name.strip()] = version.strip()

    def fail(name: str, problem: str) -> ConfigError:
        return ConfigError(f"{option}: {name + ': ' if name else ''}{problem}")

    return parse_versions(mapping, fail)
