"""``[tool.flake8-device]`` in ``pyproject.toml``, read without evaluating anything.

``tomllib`` on Python 3.11+, else ``tomli`` (a dependency on older Pythons).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flake8_device.files import Pattern
from flake8_device.configuration.settings import (
    COMMON_KEYS,
    ConfigError,
    PerFileIgnores,
    Settings,
    describe,
    identifiers,
    own_codes,
    parse_versions,
)

TABLE = "tool.flake8-device"
# flake8 has no force-exclude (it always excludes named files); versions are a table here.
KNOWN_KEYS = (*COMMON_KEYS, "force-exclude", "versions")


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


def read_table(path: Path) -> dict[str, Any] | None:
    """The ``[tool.flake8-device]`` table of a pyproject file, or None when it has none."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    if "flake8-device" not in text:  # cheap: most pyproject files never mention us
        return None
    tool = _load_toml(text, str(path)).get("tool")
    table = tool.get("flake8-device") if isinstance(tool, dict) else None
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


class _Reader:
    def __init__(self, table: Mapping[str, Any], where: str, root: str) -> None:
        self.table = table
        self.where = where
        self.root = root

    def key(self, key: str) -> str:
        return f"{self.where}: [{TABLE}] {key}"

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.key(key)}: {problem}")

    def strings(self, key: str) -> tuple[str, ...] | None:
        """A list of strings; a comma-separated string is accepted too (flake8's habit)."""
        if key not in self.table:
            return None
        value = self.table[key]
        if isinstance(value, str):
            return tuple(item.strip() for item in value.split(",") if item.strip())
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(item.strip() for item in value if item.strip())
        raise self.fail(key, f"expected a list of strings, got {describe(value)}")

    def codes(self, key: str) -> tuple[str, ...] | None:
        items = self.strings(key)
        return None if items is None else own_codes(items, self.key(key), allow_empty=True)

    def patterns(self, key: str) -> tuple[Pattern, ...] | None:
        items = self.strings(key)
        return None if items is None else tuple(Pattern(item, self.root) for item in items)

    def boolean(self, key: str) -> bool | None:
        value = self.table.get(key)
        if value is None or isinstance(value, bool):
            return value
        raise self.fail(key, f"expected true or false, got {describe(value)}")

    def per_file_ignores(self, key: str) -> PerFileIgnores:
        if key not in self.table:
            return ()
        value = self.table[key]
        if not isinstance(value, dict):
            example = '{"tests/*" = ["DEV202"]}'
            raise self.fail(key, f"expected a table of patterns to codes, like {example}, got {describe(value)}")
        entries = []
        for pattern, codes in value.items():
            if isinstance(codes, str):
                codes = [c for c in codes.split(",") if c.strip()]
            if not (isinstance(codes, list) and all(isinstance(c, str) for c in codes)):
                raise self.fail(f"{key}.{pattern}", f"expected a list of codes, got {describe(codes)}")
            checked = own_codes(codes, self.key(f"{key}.{pattern}"), allow_empty=True)
            entries.append((Pattern(pattern, self.root), checked))
        return tuple(entries)

    def versions(self, key: str) -> tuple[tuple[str, str], ...]:
        if key not in self.table:
            return ()
        value = self.table[key]
        if not isinstance(value, dict):
            example = '{torch = "2.1.0"}'
            raise self.fail(key, f"expected a table of package versions, like {example}, got {describe(value)}")
        return parse_versions(value, lambda name, problem: self.fail(f"{key}.{name}" if name else key, problem))


def settings_from_table(table: Mapping[str, Any], where: str, root: str) -> Settings:
    for key in table:
        if key not in KNOWN_KEYS:
            hint = key.replace("_", "-")
            suggestion = f" (did you mean {hint!r}?)" if hint in KNOWN_KEYS else ""
            raise ConfigError(f"{where}: [{TABLE}] {key}: unknown setting{suggestion}; known: {', '.join(KNOWN_KEYS)}")
    reader = _Reader(table, where, root)
    return Settings(
        select=reader.codes("select"),
        extend_select=reader.codes("extend-select") or (),
        ignore=reader.codes("ignore"),
        extend_ignore=reader.codes("extend-ignore") or (),
        per_file_ignores=reader.per_file_ignores("per-file-ignores"),
        exclude=reader.patterns("exclude"),
        extend_exclude=reader.patterns("extend-exclude") or (),
        force_exclude=reader.boolean("force-exclude"),
        show_source=reader.boolean("show-source"),
        device_move_functions=identifiers(
            reader.strings("device-move-functions") or (), reader.key("device-move-functions")
        ),
        versions=reader.versions("versions"),
        origins=tuple((key, f"{where} [{TABLE}]") for key in table),
    )


def load_pyproject(path: Path) -> Settings | None:
    """The settings of a pyproject file's table; None when it has no ``[tool.flake8-device]``."""
    table = read_table(path)
    if table is None:
        return None
    return settings_from_table(table, str(path), str(path.resolve().parent))
