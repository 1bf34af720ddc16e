"""The on-disk cache: a file's findings (the CLI's), and the summaries of the project's modules
(every front end's), each kept until anything it depends on changes.

A lint of one file depends on its bytes, the name it is reported under, the options (the codes
checked there, the analysis settings, ``--show-source``), the tool itself, the pinned versions
the advisories read (the lock, requirements, ``pyproject.toml`` and ``setup.cfg`` files of the
file's directory and those above it, up to the repository root) and the versions installed in
this environment of the packages the advisories name.  The cache key is a SHA-256 of all of
these, so an entry is never stale: a change anywhere makes a new key (old entries are simply
never read again; deleting the folder is always safe).  The project's other files the findings
depend on (modules it imports) are listed in the entry, with their sizes and times, and checked
when it is read.

A summary of a function of another module (``ModuleSummaries`` in the device flow) is kept under
a key of the tool, the analysis settings, the module's path and text and the function's name,
with the project files its making read (checked likewise): a file that changes while the modules
it imports do not is analysed without parsing them again.

Layout (like ruff's and mypy's): a folder holding a ``.gitignore`` of ``*`` and a
``CACHEDIR.TAG``, and one JSON file per entry under ``entries/<first two hex digits>/``.  The CLI
uses ``.flake8-device-cache`` in the working directory unless ``--cache-dir`` says otherwise, and
no cache at all with ``--no-cache``; only its plain lint runs read and write findings (``--fix``,
``--diff``, ``--add-noqa`` and stdin always check afresh), and every run keeps summaries.  The
flake8 plugin and the language server keep summaries only, in the user's cache folder
(:func:`user_directory`), at most ``USER_ENTRIES_PER_FOLDER`` per folder.  Entries are written to
a temporary file and renamed into place, so parallel runs (``-j``, two hooks at once) never read a
half-written entry; a corrupt or unreadable entry is a miss.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flake8_device import __version__
from flake8_device.versions import pin_directories, pin_files

if TYPE_CHECKING:  # (the flake8 plugin imports this module for its summaries, not for findings)
    from flake8_device.formats import Finding
    from flake8_device.options import Options

DEFAULT_DIRECTORY = ".flake8-device-cache"
# Bumped when the entry format changes.
FORMAT = 2
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# flake8-device's cache: see https://bford.info/cachedir/\n"


@functools.lru_cache(maxsize=1)
def _tool_fingerprint() -> str:
    """The tool's version and its code as installed (an edited checkout is another tool)."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{__version__}:{FORMAT}".encode())
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".json"):
            stat = path.stat()
            digest.update(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _environment_fingerprint() -> str:
    """The installed versions of the packages the advisories name (they read them)."""
    from flake8_device.advisories import advisories
    from flake8_device.versions import installed_version

    names = sorted({p for advisory in advisories().values() for p in advisory.packages})
    found = [(name, str(v.version) if (v := installed_version(name)) is not None else "") for name in names]
    return json.dumps(found)


@functools.lru_cache(maxsize=4096)
def _directory_pins(directory: str) -> str:
    """What the pin lookup reads in ``directory``: names, sizes, times.  (Where the lookup stops, at
    a repository's root, shows in which directories ``_pins_fingerprint`` lists.)"""
    parts = [directory]
    for path in pin_files(directory):
        try:
            stat = os.stat(path)
        except OSError:
            continue
        parts.append(f"{os.path.basename(path)}:{stat.st_size}:{stat.st_mtime_ns}")
    return "|".join(parts)


def _pins_fingerprint(display: str) -> str:
    return "\n".join(_directory_pins(directory) for directory in pin_directories(display))


def user_directory() -> Path:
    """The user's cache folder for the front ends that have no ``--cache-dir`` (the flake8 plugin,
    the language server): ``$XDG_CACHE_HOME/flake8-device`` (``~/.cache/flake8-device``), or the
    platform's own place on Windows and macOS."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "flake8-device" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "flake8-device"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "flake8-device"


# The user's cache keeps at most this many entries per folder (of 256): the oldest go first.
USER_ENTRIES_PER_FOLDER = 64


@functools.lru_cache(maxsize=1)
def user_cache() -> Cache:
    return Cache(str(user_directory()), bound=USER_ENTRIES_PER_FOLDER)


class Cache:
    """Entries under ``directory`` (created on the first write); ``bound``: at most that many
    entries in each of its folders, the least recently written removed first (None: no bound)."""

    def __init__(self, directory: str, *, bound: int | None = None) -> None:
        self.directory = Path(directory)
        self.bound = bound
        self._prepared = False

    def key(self, display: str, data: bytes, options: Options) -> str:
        """The key of the findings of ``data`` (a file's bytes) linted as ``display``."""
        return self.entry_key(
            _environment_fingerprint(),
            _pins_fingerprint(display),
            display,
            ",".join(options.rules_for(display)),
            ",".join(sorted(options.config.move_functions)),
            repr(options.config.versions),
            str(options.show_source),
            data=data,
        )

    def entry_key(self, *parts: str, data: bytes = b"") -> str:
        """The key of an entry that depends on ``parts``, ``data`` and the tool (also the analyses'
        own entries: the summaries of the project's modules, see ``ModuleSummaries`` in the flow)."""
        digest = hashlib.sha256(_tool_fingerprint().encode())
        for part in parts:
            digest.update(b"\0")
            digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / "entries" / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and entry.get("format") == FORMAT else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Write an entry atomically; a cache that cannot be written is no error (the run goes on)."""
        path = self._path(key)
        try:
            self._prepare()
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump({**entry, "format": FORMAT}, stream)
            os.replace(temporary, path)
            if self.bound is not None:
                self._prune(path.parent)
        except OSError:
            return

    def _prune(self, folder: Path) -> None:
        entries = [p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith(".")]
        if len(entries) <= self.bound:
            return
        entries.sort(key=lambda p: p.stat().st_mtime_ns)
        for old in entries[: len(entries) - self.bound]:
            old.unlink(missing_ok=True)

    def _prepare(self) -> None:
        if self._prepared:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "# Created by flake8-device.\n*\n"), ("CACHEDIR.TAG", _TAG)):
            marker = self.directory / name
            if not marker.exists():
                marker.write_text(text, encoding="utf-8")
        self._prepared = True


def encode_findings(findings: list[Finding]) -> list[dict[str, Any]]:
    return [{**asdict(f), "fix_safety": f.fix_safety.value} for f in findings]


def decode_findings(rows: list[dict[str, Any]]) -> list[Finding]:
    from flake8_device.formats import Finding
    from flake8_device.model import FixSafety, Related

    return [
        Finding(
            **{
                **row,
                "fix_safety": FixSafety(row["fix_safety"]),
                "related": tuple(Related(**place) for place in row.get("related", ())),
            }
        )
        for row in rows
    ]
