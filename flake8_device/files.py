"""Finding the files to check, and writing fixed files back safely."""

from __future__ import annotations

import fnmatch
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

# flake8's own default excludes, plus virtual environments and build output.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    "CVS",
    ".venv",
    "venv",
    "build",
    "__pycache__",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".flake8-device-cache",
)

# What a directory walk picks up (files named on the command line are checked whatever their suffix).
CHECKED_SUFFIXES = (".py", ".ipynb")


class FileError(Exception):
    """A path that cannot be read or written (the message is one clear line)."""


@dataclass(frozen=True)
class Discovered:
    path: str
    # Files named on the command line are checked whatever their suffix.
    explicit: bool


@dataclass(frozen=True)
class Pattern:
    """A file pattern, as flake8 reads them: without a ``/`` it matches a file or
    directory name; with one, a path relative to ``root`` (the directory of the
    configuration that declares it, or the current directory for flags)."""

    text: str
    root: str = "."

    @property
    def normalized(self) -> str:
        """The pattern as flake8 normalises it: absolute when it has a ``/``, else as written."""
        if "/" in self.text:
            return os.path.normpath(os.path.join(os.path.abspath(self.root), self.text))
        return self.text

    def matches(self, path: str, *, components: bool = False) -> bool:
        """Does the pattern match ``path``: its name or its absolute path, as in flake8?

        With ``components``, any directory named along ``path`` counts too, so
        ``generated`` excludes ``generated/model.py`` when pre-commit names the file.
        """
        absolute = os.path.abspath(path)
        if "/" in self.text:
            return fnmatch.fnmatch(absolute, self.normalized)
        names = _components(absolute) if components else (os.path.basename(path),)
        return any(fnmatch.fnmatch(name, self.text) for name in names) or fnmatch.fnmatch(absolute, self.text)


def _components(absolute: str) -> tuple[str, ...]:
    """The names along a path, from the current directory down when it lies below it (a checkout
    inside a directory called ``build`` must not exclude itself)."""
    relative = os.path.relpath(absolute)
    return Path(absolute if relative.startswith("..") else relative).parts


def excluded(path: str, patterns: Sequence[Pattern], *, components: bool = False) -> bool:
    return any(p.matches(path, components=components) for p in patterns)


@dataclass(frozen=True)
class Excluded:
    """A file named explicitly but skipped: an exclude pattern matches it under ``force-exclude``."""

    path: str


def discover(
    paths: Sequence[str],
    excludes: Sequence[Pattern],
    suffixes: Sequence[str] = CHECKED_SUFFIXES,
    *,
    force_exclude: bool = False,
) -> Iterator[Discovered | Excluded | FileError]:
    """Files under ``paths`` in a stable order; problems are yielded, not raised.

    ``excludes`` prune the directory walk.  A file named explicitly is checked
    whatever the patterns say (as ruff does), unless ``force_exclude`` is set:
    then a pattern matching the file or a directory on its path skips it too.
    pre-commit names every file explicitly, so its hooks pass ``--force-exclude``.
    """
    for given in paths:
        if given == "-":
            yield Discovered("-", explicit=True)
            continue
        if os.path.isfile(given):
            if force_exclude and excluded(given, excludes, components=True):
                yield Excluded(given)
            else:
                yield Discovered(given, explicit=True)
            continue
        if not os.path.exists(given):
            yield FileError(f"{given}: no such file or directory")
            continue
        if not os.path.isdir(given):
            yield FileError(f"{given}: not a regular file or directory")
            continue
        if force_exclude and excluded(given, excludes, components=True):
            yield Excluded(given)
            continue
        errors: list[OSError] = []
        walker = os.walk(given, onerror=errors.append, followlinks=False)
        for root, dirs, files in walker:
            dirs[:] = sorted(d for d in dirs if not excluded(os.path.join(root, d), excludes))
            for name in sorted(files):
                full = os.path.join(root, name)
                if name.endswith(tuple(suffixes)) and not excluded(full, excludes):
                    yield Discovered(full, explicit=False)
        for error in errors:
            yield FileError(f"{error.filename}: {error.strerror or error}")


def read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise FileError(f"{path}: cannot read: {error.strerror or error}") from None


def write_atomically(path: str, data: bytes, expected_current: bytes) -> None:
    """Replace ``path`` with ``data`` (same directory, same mode), unless it changed meanwhile.

    The new content goes to a temporary file beside the original, which is
    renamed over it: readers see the old file or the new one, never half of
    one.  If the file no longer holds ``expected_current`` (an editor saved it
    while we were fixing), nothing is written.
    """
    path = os.path.realpath(path)  # keep a symlink a symlink: write to what it points at
    target = Path(path)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError as error:
        raise FileError(f"{path}: cannot stat: {error.strerror or error}") from None
    if read_bytes(path) != expected_current:
        raise FileError(f"{path}: changed on disk while being fixed; left as it is")
    try:
        handle = tempfile.NamedTemporaryFile(
            "wb", dir=target.parent, prefix=f".{target.name}.", suffix=".flake8-device", delete=False
        )
    except OSError as error:
        raise FileError(f"{path}: cannot write beside it: {error.strerror or error}") from None
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, mode)
        os.replace(handle.name, path)
    except OSError as error:
        try:
            os.unlink(handle.name)
        except OSError:
            pass
        raise FileError(f"{path}: cannot write: {error.strerror or error}") from None
