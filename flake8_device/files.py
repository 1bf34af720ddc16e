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
)

PYTHON_SUFFIXES = (".py",)


class FileError(Exception):
    """A path that cannot be read or written (the message is one clear line)."""


@dataclass(frozen=True)
class Discovered:
    path: str
    # Files named on the command line are checked whatever their suffix.
    explicit: bool


def _excluded(name: str, path: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(path, p) for p in patterns)


def discover(
    paths: Sequence[str], excludes: Sequence[str], suffixes: Sequence[str] = PYTHON_SUFFIXES
) -> Iterator[Discovered | FileError]:
    """Files under ``paths`` in a stable order; problems are yielded, not raised."""
    for given in paths:
        if given == "-":
            yield Discovered("-", explicit=True)
            continue
        if os.path.isfile(given):
            yield Discovered(given, explicit=True)
            continue
        if not os.path.exists(given):
            yield FileError(f"{given}: no such file or directory")
            continue
        if not os.path.isdir(given):
            yield FileError(f"{given}: not a regular file or directory")
            continue
        errors: list[OSError] = []
        walker = os.walk(given, onerror=errors.append, followlinks=False)
        for root, dirs, files in walker:
            dirs[:] = sorted(d for d in dirs if not _excluded(d, os.path.join(root, d), excludes))
            for name in sorted(files):
                full = os.path.join(root, name)
                if name.endswith(tuple(suffixes)) and not _excluded(name, full, excludes):
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
