"""Settings, and the one precedence every front end applies to them.

A :class:`Settings` is what one place says: the ``[tool.flake8-device]`` table
of a ``pyproject.toml`` (:mod:`.pyproject`), the ``[flake8]`` section of
``setup.cfg``, ``tox.ini`` or ``.flake8`` (:mod:`.flake8_ini`), or the command
line.  Layers stack, lowest first: defaults, ``[tool.flake8-device]``,
``[flake8]``, the command line (under flake8, flake8 itself merges its command
line over its ``[flake8]`` section, and the plugin puts the result over the
table).  A layer that sets ``select``, ``ignore``, ``exclude``,
``per-file-ignores``, ``show-source`` or ``force-exclude`` replaces the value
below it; ``extend-select``, ``extend-ignore``, ``extend-exclude`` and
``device-move-functions`` add up; ``device-versions`` merge, the higher layer
winning for a package.  Finding the files is :mod:`.discovery`'s job.

Patterns follow flake8: one without a ``/`` matches a file or directory name
(or the whole absolute path); one with a ``/`` is relative to the directory
of the file that declares it (flake8 reads ``per-file-ignores`` relative to the
current directory, and so does the CLI for that key of ``[flake8]``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

from flake8_device.codes import ALL_CODES
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.files import DEFAULT_EXCLUDES, Pattern
from flake8_device.selection import Selection
from flake8_device.versions import Version

# Ours: the command line and [tool.flake8-device] take flake8-device codes only.
CODE_PREFIX = re.compile(r"DEV\d{0,3}")
# Anyone's: what flake8 accepts as a code or prefix in its own configuration.
FLAKE8_CODE = re.compile(r"[A-Z]{1,3}[0-9]{0,3}")
PACKAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# (pattern, codes) pairs.
PerFileIgnores = tuple[tuple[Pattern, tuple[str, ...]], ...]


# The keys both configuration files take (the readers add their own: see pyproject.py, flake8_ini.py).
COMMON_KEYS = (
    "select",
    "extend-select",
    "ignore",
    "extend-ignore",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "show-source",
    "device-move-functions",
)


class ConfigError(Exception):
    """Bad configuration; the message is one line naming the file (or flag) and the key."""


@dataclass(frozen=True)
class Settings:
    """What one configuration layer says; ``None`` (or empty) means "not set here"."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] | None = None
    extend_ignore: tuple[str, ...] = ()
    per_file_ignores: PerFileIgnores = ()
    exclude: tuple[Pattern, ...] | None = None
    extend_exclude: tuple[Pattern, ...] = ()
    device_move_functions: tuple[str, ...] = ()
    # Package versions the advisories should assume, e.g. (("torch", "2.1.0"),).
    versions: tuple[tuple[str, str], ...] = ()
    show_source: bool | None = None
    force_exclude: bool | None = None
    # Where each key was set ("setup.cfg [flake8]"), for messages; the highest layer's.
    origins: tuple[tuple[str, str], ...] = ()
    # Things worth saying that are not errors (a configuration flake8 would skip, ...).
    notes: tuple[str, ...] = field(default=(), compare=False)

    def over(self, lower: Settings) -> Settings:
        """These settings stacked on ``lower``: a set key replaces, ``extend-*`` keys add up."""

        def pick(mine: Any, theirs: Any) -> Any:
            return theirs if mine is None else mine

        return Settings(
            select=pick(self.select, lower.select),
            extend_select=(*lower.extend_select, *self.extend_select),
            ignore=pick(self.ignore, lower.ignore),
            extend_ignore=(*lower.extend_ignore, *self.extend_ignore),
            per_file_ignores=self.per_file_ignores or lower.per_file_ignores,
            exclude=pick(self.exclude, lower.exclude),
            extend_exclude=(*lower.extend_exclude, *self.extend_exclude),
            device_move_functions=(*lower.device_move_functions, *self.device_move_functions),
            versions=tuple(sorted({**dict(lower.versions), **dict(self.versions)}.items())),
            show_source=pick(self.show_source, lower.show_source),
            force_exclude=pick(self.force_exclude, lower.force_exclude),
            origins=tuple({**dict(lower.origins), **dict(self.origins)}.items()),
            notes=(*lower.notes, *self.notes),
        )

    def origin(self, key: str) -> str | None:
        """Where ``key`` (``"select"``, ``"extend-ignore"``...) was last set, if anywhere."""
        return dict(self.origins).get(key)

    def selection(self, default_off: Sequence[str]) -> Selection:
        return Selection(
            select=self.select,
            extend_select=self.extend_select,
            ignore=self.ignore,
            extend_ignore=self.extend_ignore,
            default_off=tuple(default_off),
        )

    def analysis_config(self) -> AnalysisConfig:
        return AnalysisConfig().with_extra_move_functions(self.device_move_functions).with_versions(self.versions)

    def walk_excludes(self, cwd: str) -> tuple[Pattern, ...]:
        """The patterns that prune a directory walk: ``exclude`` (or the defaults) and ``extend-exclude``."""
        base = self.exclude if self.exclude is not None else tuple(Pattern(p, cwd) for p in DEFAULT_EXCLUDES)
        return (*base, *self.extend_exclude)


def per_file_codes(entries: PerFileIgnores, path: str) -> tuple[str, ...]:
    """The codes ``per-file-ignores`` adds to ``extend-ignore`` for ``path``.

    As in flake8, one entry applies: of those whose pattern matches, the one with
    the longest (normalised) pattern, the first on a tie.
    """
    best: tuple[Pattern, tuple[str, ...]] | None = None
    for pattern, codes in entries:
        if pattern.matches(path) and (best is None or len(pattern.normalized) > len(best[0].normalized)):
            best = (pattern, codes)
    return best[1] if best is not None else ()


# -- codes ---------------------------------------------------------------------------------------


def _matching_rules(prefix: str) -> bool:
    return any(code.startswith(prefix) for code in ALL_CODES)


def own_codes(items: Iterable[str], where: str, *, allow_empty: bool = False) -> tuple[str, ...]:
    """Codes given to flake8-device itself (flags, ``[tool.flake8-device]``): each must be a
    flake8-device code or prefix that matches a rule.  A flag must name at least one (an
    empty ``--select ''`` would silently check nothing); a file may say ``ignore = []``."""
    codes = tuple(item.strip().upper() for item in items if item.strip())
    if not codes and not allow_empty:
        raise ConfigError(f"{where}: no codes given (name codes or prefixes: DEV, DEV1, DEV101, ...)")
    for code in codes:
        if not CODE_PREFIX.fullmatch(code):
            raise ConfigError(f"{where}: {code!r} is not a flake8-device code or prefix (DEV, DEV1, DEV101, ...)")
        if not _matching_rules(code):
            raise ConfigError(f"{where}: {code!r} matches no flake8-device rule (see --list-rules)")
    return codes


def foreign_codes(items: Iterable[str], where: str, *, strict_shape: bool) -> tuple[str, ...]:
    """Codes from flake8's own configuration, which names every plugin's codes.

    A code of another plugin is kept as it is (it matches no DEV code); one that
    looks like ours (``DEV...``) must match a rule.  ``strict_shape``: flake8
    refuses anything but ``[A-Z]{1,3}[0-9]{0,3}`` in ``ignore`` and ``extend-ignore``.
    """
    codes = tuple(item for item in items if item)
    for code in codes:
        if strict_shape and not FLAKE8_CODE.fullmatch(code):
            raise ConfigError(f"{where}: {code!r} is not a code flake8 accepts ([A-Z]{{1,3}}[0-9]{{0,3}})")
        if code.startswith("DEV") and not (CODE_PREFIX.fullmatch(code) and _matching_rules(code)):
            raise ConfigError(f"{where}: {code!r} matches no flake8-device rule (see flake8-device --list-rules)")
    return codes


def selection_warnings(settings: Settings, selection: Selection) -> list[str]:
    """Why no rule is on, when none is: a ``select`` naming no DEV code, or a bare ``D``
    (pydocstyle's prefix, which flake8 matches against DEV codes too) in an ignore list."""
    if any(selection.enabled(code) for code in ALL_CODES):
        return []
    for key in ("ignore", "extend-ignore"):
        values = settings.ignore if key == "ignore" else settings.extend_ignore
        short = [code for code in values or () if "DEV".startswith(code.upper())]
        if short:
            return [
                f"{key} = {short[0]} ({settings.origin(key) or 'configuration'}) also matches every DEV code "
                "(flake8 matches codes by prefix), so every flake8-device rule is off; add "
                "`extend-select = DEV` to keep them, or ignore pydocstyle's codes by their own prefixes (D1, D2, D4)"
            ]
    if settings.select is not None:
        listed = ",".join(settings.select) or "(empty)"
        return [
            f"select = {listed} ({settings.origin('select') or 'configuration'}) names no DEV code, so every "
            "flake8-device rule is off; add DEV to it"
        ]
    return ["the configuration switches every flake8-device rule off"]


# -- values shared by the readers ------------------------------------------------------------------


def parse_versions(value: Mapping[str, Any], fail: Callable[[str, str], ConfigError]) -> tuple[tuple[str, str], ...]:
    """Validated ``package -> version`` pairs, sorted (hashable, so engines can be cached)."""
    pairs = []
    for name, version in value.items():
        if not PACKAGE_NAME.fullmatch(str(name)):
            raise fail("", f"{name!r} is not a package name")
        # (Version.parse: the advisories compare releases, so a version must be one they can read.)
        if not isinstance(version, str) or Version.parse(version) is None:
            raise fail(name, f'expected a version string like "2.1.0", got {describe(version)}')
        pairs.append((str(name).lower(), version.strip()))
    return tuple(sorted(pairs))


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


def identifiers(items: Iterable[str], where: str) -> tuple[str, ...]:
    names = tuple(item.strip() for item in items if item.strip())
    for name in names:
        if not IDENTIFIER.fullmatch(name):
            raise ConfigError(f"{where}: {name!r} is not a function name")
    return names


def parse_per_file_ignores(value: str, root: str) -> PerFileIgnores:
    """The ``--per-file-ignores`` flag, in flake8's syntax: ``"tests/*:DEV202,DEV203 scripts/*.py:DEV1"``."""
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
        entries[-1][1].extend(own_codes([token], "--per-file-ignores"))
    return tuple((pattern, tuple(codes)) for pattern, codes in entries)


def describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        odd = [v for v in value if not isinstance(v, str)]
        return f"a list containing {describe(odd[0])}" if odd else "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
