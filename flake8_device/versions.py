"""Which release of a dependency a project runs: its own pins, else the installed distribution.

Known-bug advisories (DEV6xx) only matter on affected releases.  The version
of a package is looked up, in order:

1. an override: ``--device-versions deepspeed=0.14.2`` on the command line, the
   flake8 option of the same name, or ``[tool.flake8-device.versions]`` in
   ``pyproject.toml`` (see :mod:`flake8_device.configuration.settings`);
2. the project's own exact pins, found by walking up from the checked file to
   the repository root (the first directory holding ``.git``): lock files
   (``poetry.lock``, ``uv.lock``, ``pdm.lock``, ``pylock.toml``,
   ``Pipfile.lock``), then ``requirements*.txt`` / ``constraints*.txt`` /
   ``requirements/*.txt``, then ``pyproject.toml`` and ``setup.cfg``; the
   nearest directory wins.  Only an exact pin (``==1.2.3``, or poetry's bare
   ``1.2.3``) names a release; a range does not, and the search goes on;
3. the distribution installed where the linter runs (``importlib.metadata``).

No third-party parser is used: versions are compared with the small PEP 440
subset below, TOML files are read with ``tomllib`` (Python 3.11+) or ``tomli``
when importable (otherwise those files are skipped), and nothing here ever
raises into a lint run: an unreadable file is simply not a source.
"""

from __future__ import annotations

import configparser
import functools
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

_VERSION = re.compile(
    r"""^\s*v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre_l>alpha|beta|preview|pre|rc|a|b|c)[-_.]?(?P<pre_n>\d*))?
    (?:-(?P<post_n1>\d+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d*))?
    (?:[-_.]?dev[-_.]?(?P<dev_n>\d*))?
    (?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*$""",
    re.X | re.I,
)
_PRE_PHASES = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_FINAL = 3


@dataclass(frozen=True, order=True)
class Version:
    """A release number that compares like PEP 440 (epochs, pre, post and dev releases)."""

    key: tuple[Any, ...]
    text: str

    @classmethod
    def parse(cls, text: str) -> Version | None:
        match = _VERSION.match(text)
        if match is None:
            return None
        release = [int(part) for part in match.group("release").split(".")]
        while len(release) > 1 and release[-1] == 0:
            release.pop()  # 2.4 == 2.4.0
        pre_label, dev = match.group("pre_l"), match.group("dev_n")
        post = match.group("post_n1") or match.group("post_n2")
        has_post = match.group("post_n1") is not None or match.group("post_l") is not None
        if pre_label is not None:
            phase = (_PRE_PHASES[pre_label.lower()], int(match.group("pre_n") or 0))
        elif dev is not None and not has_post:
            phase = (-1, 0)  # 1.0.dev1 comes before 1.0a1
        else:
            phase = (_FINAL, 0)
        key = (
            int(match.group("epoch") or 0),
            tuple(release),
            phase,
            int(post or 0) if has_post else -1,
            (0, int(dev or 0)) if dev is not None else (1, 0),
        )
        return cls(key, text.strip())

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class VersionRange:
    """Releases from ``introduced`` (included; None: all earlier ones) up to ``fixed`` (excluded)."""

    introduced: Version | None
    fixed: Version | None

    def __contains__(self, version: Version) -> bool:
        return (self.introduced is None or version >= self.introduced) and (self.fixed is None or version < self.fixed)

    def describe(self) -> str:
        if self.introduced is None and self.fixed is not None:
            return f"before {self.fixed}"
        if self.fixed is None and self.introduced is not None:
            return f"{self.introduced} and later"
        return f"{self.introduced} up to (not including) {self.fixed}"


def normalise(name: str) -> str:
    """PEP 503 names: ``PyTorch_Lightning`` and ``pytorch-lightning`` are one package."""
    return re.sub(r"[-_.]+", "-", name).strip().lower()


@dataclass(frozen=True)
class ResolvedVersion:
    package: str
    version: Version
    # Where the version was read: "pinned in requirements.txt", "installed", "configured".
    source: str


# -- requirement strings --------------------------------------------------------

_REQUIREMENT = re.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?P<specs>[^;#@]*)")
_EXACT = re.compile(r"^\s*===?\s*(?P<version>[^\s,*]+)\s*$")


def exact_pin(requirement: str) -> tuple[str, str | None] | None:
    """``("deepspeed", "0.14.2")`` for ``deepspeed==0.14.2``; ``(name, None)`` for a range or a bare name."""
    match = _REQUIREMENT.match(requirement)
    if match is None:
        return None
    name = normalise(match.group("name"))
    for spec in match.group("specs").split(","):
        exact = _EXACT.match(spec)
        if exact is not None and Version.parse(exact.group("version")) is not None:
            return name, exact.group("version")
    return name, None


def requirement_lines(text: str) -> Iterator[str]:
    """Requirement strings of a pip requirements file (comments, options and continuations handled)."""
    joined = re.sub(r"\\\r?\n", " ", text)
    for raw in joined.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if line and not line.startswith("-"):
            yield line


# -- pin files ------------------------------------------------------------------


def _load_toml(path: str) -> Mapping[str, Any] | None:
    try:
        import tomllib as toml  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        try:
            import tomli as toml  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            return None  # no TOML reader here: this source is skipped
    try:
        with open(path, "rb") as handle:
            data = toml.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, Mapping) else None


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _pins_from_requirements(requirements: Iterable[Any]) -> dict[str, str]:
    pins: dict[str, str] = {}
    for requirement in requirements:
        if not isinstance(requirement, str):
            continue
        found = exact_pin(requirement)
        if found is not None and found[1] is not None:
            pins.setdefault(found[0], found[1])
    return pins


def _locked_packages(data: Mapping[str, Any] | None) -> dict[str, str]:
    """``[[package]]`` (poetry, uv, pdm) or ``[[packages]]`` (PEP 751) tables: exact versions."""
    pins: dict[str, str] = {}
    if data is None:
        return pins
    for table in ("package", "packages"):
        entries = data.get(table)
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if (
                isinstance(entry, Mapping)
                and isinstance(entry.get("name"), str)
                and isinstance(entry.get("version"), str)
            ):
                pins.setdefault(normalise(entry["name"]), entry["version"])
    return pins


def _pipfile_lock(path: str) -> dict[str, str]:
    text = _read_text(path)
    pins: dict[str, str] = {}
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:
        return pins
    if not isinstance(data, dict):
        return pins
    for section in ("default", "develop"):
        packages = data.get(section)
        if not isinstance(packages, dict):
            continue
        for name, entry in packages.items():
            version = entry.get("version") if isinstance(entry, dict) else None
            if isinstance(version, str):
                found = exact_pin(f"{name}{version}")
                if found is not None and found[1] is not None:
                    pins.setdefault(found[0], found[1])
    return pins


def _poetry_constraint(value: Any) -> str | None:
    """Poetry's ``"1.2.3"`` and ``"==1.2.3"`` are exact; ``"^1.2"``, ``"~1.2"``, ``">=1"`` are not."""
    if isinstance(value, Mapping):
        value = value.get("version")
    if not isinstance(value, str):
        return None
    value = value.strip()
    if value.startswith("=="):
        value = value[2:].strip()
    elif value.startswith("="):
        value = value[1:].strip()
    return value if Version.parse(value) is not None else None


def _pyproject(path: str) -> dict[str, str]:
    data = _load_toml(path)
    if data is None:
        return {}
    requirements: list[Any] = []
    project = data.get("project")
    if isinstance(project, Mapping):
        requirements += list(project.get("dependencies") or [])
        optional = project.get("optional-dependencies")
        if isinstance(optional, Mapping):
            for group in optional.values():
                requirements += list(group or [])
    groups = data.get("dependency-groups")
    if isinstance(groups, Mapping):
        for group in groups.values():
            if isinstance(group, list):
                requirements += group
    pins = _pins_from_requirements(requirements)
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), Mapping) else None
    if isinstance(poetry, Mapping):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        poetry_groups = poetry.get("group")
        if isinstance(poetry_groups, Mapping):
            tables += [g.get("dependencies") for g in poetry_groups.values() if isinstance(g, Mapping)]
        for table in tables:
            if not isinstance(table, Mapping):
                continue
            for name, value in table.items():
                version = _poetry_constraint(value)
                if version is not None:
                    pins.setdefault(normalise(name), version)
    return pins


def _setup_cfg(path: str) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return {}
    requirements: list[str] = []
    if parser.has_option("options", "install_requires"):
        requirements += parser.get("options", "install_requires").splitlines()
    if parser.has_section("options.extras_require"):
        for _, value in parser.items("options.extras_require"):
            requirements += value.splitlines()
    return _pins_from_requirements(r.strip() for r in requirements if r.strip())


def _requirement_files(directory: str) -> list[str]:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found = [
        os.path.join(directory, n)
        for n in names
        if re.fullmatch(r"(?:requirements|constraints)[\w.-]*\.(?:txt|in)", n, re.I)
    ]
    nested = os.path.join(directory, "requirements")
    if os.path.isdir(nested):
        try:
            found += [os.path.join(nested, n) for n in sorted(os.listdir(nested)) if n.endswith((".txt", ".in"))]
        except OSError:
            pass
    return found


@dataclass(frozen=True)
class Pin:
    version: str
    file: str


LOCK_FILES = ("poetry.lock", "uv.lock", "pdm.lock", "pylock.toml")


def pin_files(directory: str) -> list[str]:
    """Every file ``pins_in_directory`` may read in ``directory`` (whether it is there or not)."""
    fixed = (*LOCK_FILES, "Pipfile.lock", "pyproject.toml", "setup.cfg")
    return [os.path.join(directory, name) for name in fixed] + _requirement_files(directory)


@functools.lru_cache(maxsize=256)
def pins_in_directory(directory: str) -> dict[str, Pin]:
    """Exact pins declared by the files of one directory (the first file naming a package wins)."""
    pins: dict[str, Pin] = {}

    def add(found: Mapping[str, str], path: str) -> None:
        for name, version in found.items():
            if name not in pins:
                pins[name] = Pin(version, os.path.basename(path))

    for lock in LOCK_FILES:
        path = os.path.join(directory, lock)
        if os.path.isfile(path):
            add(_locked_packages(_load_toml(path)), path)
    path = os.path.join(directory, "Pipfile.lock")
    if os.path.isfile(path):
        add(_pipfile_lock(path), path)
    for path in _requirement_files(directory):
        text = _read_text(path)
        if text is not None:
            add(_pins_from_requirements(requirement_lines(text)), path)
    path = os.path.join(directory, "pyproject.toml")
    if os.path.isfile(path):
        add(_pyproject(path), path)
    path = os.path.join(directory, "setup.cfg")
    if os.path.isfile(path):
        add(_setup_cfg(path), path)
    return pins


def _directories_upward(start: str) -> Iterator[str]:
    directory = os.path.abspath(start)
    while True:
        yield directory
        if os.path.exists(os.path.join(directory, ".git")) or os.path.exists(os.path.join(directory, ".hg")):
            return  # the repository root: pins above it belong to someone else
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def pin_directories(path: str | None) -> Iterator[str]:
    """The directories whose pins hold for ``path`` (a file or a directory), nearest first."""
    if path is None:
        start = os.getcwd()
    else:
        start = os.path.abspath(path)
        if not os.path.isdir(start):
            start = os.path.dirname(start)
    if not os.path.isdir(start):
        start = os.getcwd()  # a display name for stdin that names no real place
    return _directories_upward(start)


def pinned_version(package: str, path: str | None) -> ResolvedVersion | None:
    """The exact pin of ``package`` nearest to ``path`` (a file or a directory)."""
    name = normalise(package)
    for directory in pin_directories(path):
        pin = pins_in_directory(directory).get(name)
        if pin is not None:
            version = Version.parse(pin.version)
            if version is not None:
                return ResolvedVersion(package, version, f"pinned in {pin.file}")
    return None


@functools.lru_cache(maxsize=64)
def installed_version(package: str) -> ResolvedVersion | None:
    try:
        from importlib import metadata

        text = metadata.version(package)
    except Exception:  # noqa: BLE001 - a broken distribution is no version, never a crash
        return None
    version = Version.parse(text) if isinstance(text, str) else None
    return ResolvedVersion(package, version, "installed") if version is not None else None


def resolve(
    packages: Iterable[str], path: str | None, overrides: Mapping[str, str] | None = None
) -> ResolvedVersion | None:
    """The version of the first of ``packages`` (alternative names of one project) that is known."""
    names = list(packages)
    wanted = {normalise(name): version for name, version in (overrides or {}).items()}
    for package in names:
        override = wanted.get(normalise(package))
        if override is not None:
            version = Version.parse(override)
            if version is not None:
                return ResolvedVersion(package, version, "configured")
    for package in names:
        found = pinned_version(package, path)
        if found is not None:
            return found
    for package in names:
        found = installed_version(package)
        if found is not None:
            return found
    return None
