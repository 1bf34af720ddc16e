"""The project's own modules, read for the device flow of the files that import them.

``from .model import build`` or ``from utils import set_device`` in a checked file: the device
flow applies the summary of ``build`` or ``set_device`` at their calls, as it does for the
file's own functions (``FlowAnalysis.imported_function``).  The module is found the way Python
would find it from the checked file (relative imports from its package, absolute ones from its
directory or the project's root: the nearest folder above holding ``.git``, ``.hg``,
``pyproject.toml``, ``setup.cfg`` or ``setup.py``) and never outside the project; anything
else (an installed package, a file too large, one that does not parse) is not read.  A name
that a package re-exports (``from .utils import get_device``, or ``from .losses import *``) is
followed one step to the module that defines it (``FileContext.project_function``).

A module is read once per process and kept while its file and the project files it read in
turn are unchanged (size and time): its ``ast`` for the 128 most recently used, its LibCST parse
(made only where a summary is needed) for the 32 most recently used; the summaries of its
functions, each made once, on demand, are kept apart from both, and paid for by every checked
file that calls it (its steps are spent from that file's budget, so that a file's findings never
depend on the files checked before it: see ``ModuleSummaries`` in the device flow).  Every lint
says which modules it read and which candidates were absent (``reads``), so the CLI's cache can
tell when an import changes what a file's findings would be.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional

import libcst as cst

from flake8_device.analysis.symbols import PLAIN_BASES, Symbols
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.source import LineIndex

# At most this many modules are kept per process (the least recently used go first), of which at
# most ``MAX_PARSED`` keep their LibCST parse (the others only their ``ast``); a module over this
# size is not read.
MAX_MODULES = 128
MAX_PARSED = 32
MAX_BYTES = 512_000
# What the analyses derive from the modules (their summaries) is kept for the process apart from
# the modules, at most this many entries: a module dropped from the parsed ones above is not
# parsed again for what was derived from it already.
MAX_KEPT = 20_000
_ROOT_MARKERS = (".git", ".hg", "pyproject.toml", "setup.cfg", "setup.py")

# A file's state: (size, modification time in ns), or None where no file is.
FileState = Optional[tuple[int, int]]  # (``X | None`` is evaluated here: Python 3.9 has no ``|`` for types)


def file_state(path: str) -> FileState:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)


def project_root(path: str) -> str:
    """The nearest folder above ``path`` that marks a project's root, or ``path``'s own folder."""
    return _root_above(os.path.dirname(os.path.abspath(path)))


@functools.lru_cache(maxsize=1024)
def _root_above(start: str) -> str:
    directory = start
    while True:
        if any(os.path.exists(os.path.join(directory, marker)) for marker in _ROOT_MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return start
        directory = parent


@dataclass(eq=False)
class ProjectModule:
    """A module of the project: its ``ast`` (read when it is imported: which functions it has), and
    its facts (a LibCST parse, made only when a call needs a summary)."""

    path: str
    text: str
    tree: ast.Module
    loader: ProjectModules
    # What the analyses derived from it (see ``ProjectModule`` in flake8_device/analysis/facts.py).
    derived: dict[str, Any] = field(default_factory=dict)
    # The project files that what the analyses read back from the store depended on (see ``reads``).
    stored_reads: dict[str, FileState] = field(default_factory=dict)

    @property
    def config(self) -> AnalysisConfig:
        return self.loader.config

    def reads(self) -> dict[str, FileState]:
        """The project files what the analyses derived from the module so far depended on."""
        facts = self.__dict__.get("facts")
        return {**self.stored_reads, **(files_read(facts) if facts is not None else {})}

    def still_as_read(self, reads: dict[str, FileState]) -> bool:
        return all(file_state(path) == state for path, state in reads.items())

    def add_reads(self, reads: dict[str, FileState]) -> None:
        self.stored_reads.update(reads)

    def drop_parse(self) -> None:
        """Forget the LibCST parse and what the analyses keep with it, remembering the files it
        read (the summaries made from it are kept by the loader)."""
        facts = self.__dict__.pop("facts", None)
        if facts is not None:
            self.stored_reads.update(files_read(facts))
        self.derived.clear()

    @cached_property
    def function_names(self) -> frozenset[str]:
        """The functions defined at the module's top level."""
        return frozenset(s.name for s in self.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))

    @cached_property
    def class_names(self) -> frozenset[str]:
        """The classes defined at the module's top level."""
        return frozenset(s.name for s in self.tree.body if isinstance(s, ast.ClassDef))

    @cached_property
    def symbols(self) -> Symbols:
        """What the module's names refer to (its imports)."""
        return Symbols(self.tree)

    def reexported(self, name: str) -> tuple[int, str | None, str] | None:
        """Where the module's top level imports ``name`` from (``from .utils import get_device``
        in a package's ``__init__.py``): the import's level, its module and the name there."""
        for statement in self.tree.body:
            if isinstance(statement, ast.ImportFrom):
                for alias in statement.names:
                    if (alias.asname or alias.name) == name and alias.name != "*":
                        return statement.level, statement.module, alias.name
        return None

    def star_imports(self) -> list[tuple[int, str | None]]:
        """The modules the module's top level imports everything from (``from .mel_loss import *``
        in a package's ``__init__.py``): each import's level and module."""
        return [
            (statement.level, statement.module)
            for statement in self.tree.body
            if isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names)
        ]

    @cached_property
    def facts(self) -> Any:
        """A ``FileContext`` of the whole module (the rule layer's), or None where LibCST cannot parse it."""
        from flake8_device.context import FileContext

        try:
            module = cst.parse_module(self.text)
        except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError):
            return None
        self.loader.parsed(self)
        return FileContext(
            module=module,
            symbols=self.symbols,
            tree=self.tree,
            config=self.loader.config,
            index=LineIndex(self.text),
            path=self.path,
            project=self.loader,
        )


def _package_base(importer: str, package: str, root: str) -> str:
    """Where ``import package...`` is found from inside ``package``'s own folder: its parent (the
    folder the package is imported from, ``src/`` or ``runner/``); the importer's folder when no
    folder above it inside the project has that name."""
    folder = os.path.dirname(importer)
    while os.path.commonpath([root, folder]) == root and folder != root:
        if os.path.basename(folder) == package:
            return os.path.dirname(folder)
        folder = os.path.dirname(folder)
    return os.path.dirname(importer)


@dataclass
class ProjectModules:
    """The modules read for one configuration (an engine's), shared by the files it checks."""

    config: AnalysisConfig
    # A front end's on-disk cache (``flake8_device.cache.Cache``): the analyses keep there what they
    # derive from a module for later processes.  None: nothing is kept on disk.
    store: Any = None
    _loaded: OrderedDict[str, tuple[FileState, ProjectModule | None]] = field(default_factory=OrderedDict)
    _names: dict[str, tuple[FileState, frozenset[str]]] = field(default_factory=dict)
    _kept: OrderedDict[tuple[str, ...], dict[str, Any]] = field(default_factory=OrderedDict)
    # The modules holding a LibCST parse, the least recently used first.
    _parsed: OrderedDict[str, ProjectModule] = field(default_factory=OrderedDict)

    def parsed(self, module: ProjectModule) -> None:
        """``module`` was parsed with LibCST: the least recently used parse beyond ``MAX_PARSED``
        is dropped (what was derived from it is kept: see ``kept``; a later need parses again)."""
        self._parsed[module.path] = module
        self._parsed.move_to_end(module.path)
        while len(self._parsed) > MAX_PARSED:
            _, oldest = self._parsed.popitem(last=False)
            oldest.drop_parse()

    def kept(self, parts: tuple[str, ...]) -> dict[str, Any] | None:
        """What an analysis derived from a module before and kept under ``parts`` (its own name for
        it: the module's content hash, the settings, the function), in this process or in the
        front end's store; None where neither holds it.  The caller checks that the files it was
        derived from are unchanged (``ProjectModule.still_as_read``)."""
        entry = self._kept.get(parts)
        if entry is not None:
            self._kept.move_to_end(parts)
            return entry
        entry = self.store.get(self.store.entry_key(*parts)) if self.store is not None else None
        if entry is not None:
            self._remember(parts, entry)
        return entry

    def keep(self, parts: tuple[str, ...], entry: dict[str, Any]) -> None:
        """Keep what an analysis derived (plain data) for the files checked later, in this process
        and in the front end's store."""
        self._remember(parts, entry)
        if self.store is not None:
            self.store.put(self.store.entry_key(*parts), entry)

    def _remember(self, parts: tuple[str, ...], entry: dict[str, Any]) -> None:
        self._kept[parts] = entry
        self._kept.move_to_end(parts)
        while len(self._kept) > MAX_KEPT:
            self._kept.popitem(last=False)

    def candidates(self, importer: str, level: int, module: str | None) -> list[str]:
        """Where Python would look for the module, from the file ``importer``, inside its project."""
        return list(_candidates(os.path.abspath(importer), level, module))

    def load(
        self, importer: str, level: int, module: str | None
    ) -> tuple[ProjectModule | None, dict[str, FileState]]:
        """The module, and the files looked at to find it with their states (None: absent)."""
        path, state, looked = self._find(importer, level, module)
        return (self._read(path, state) if path is not None else None), looked

    def function_names(
        self, importer: str, level: int, module: str | None
    ) -> tuple[frozenset[str], dict[str, FileState]]:
        """The functions the module may define (a superset: see ``_top_level_defs``; none when it is
        not the project's), and the files looked at.  Kept per file for the whole process: only
        names, never the tree (the prefilter asks this of every import of every checked file)."""
        path, state, looked = self._find(importer, level, module)
        if path is None:
            return frozenset(), looked
        known = self._names.get(path)
        if known is None or known[0] != state:
            text = _read_text(path) if state is not None and state[0] <= MAX_BYTES else None
            known = self._names[path] = (state, _top_level_defs(text) if text is not None else frozenset())
        return known[1], looked

    def _find(
        self, importer: str, level: int, module: str | None
    ) -> tuple[str | None, FileState, dict[str, FileState]]:
        looked: dict[str, FileState] = {}
        for path in self.candidates(importer, level, module):
            state = looked[path] = file_state(path)
            if state is not None:
                return path, state, looked
        return None, None, looked

    def _read(self, path: str, state: FileState) -> ProjectModule | None:
        known = self._loaded.get(path)
        if known is not None and known[0] == state and (known[1] is None or _unchanged(known[1])):
            self._loaded.move_to_end(path)
            if path in self._parsed and self._parsed[path] is known[1]:
                self._parsed.move_to_end(path)
            return known[1]
        loaded = self._parse(path) if state is not None and state[0] <= MAX_BYTES else None
        self._loaded[path] = (state, loaded)
        while len(self._loaded) > MAX_MODULES:
            self._loaded.popitem(last=False)
        return loaded

    def _parse(self, path: str) -> ProjectModule | None:
        text = _read_text(path)
        if text is None:
            return None
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        return ProjectModule(path, text, tree, self)


@functools.lru_cache(maxsize=4096)
def _candidates(importer: str, level: int, module: str | None) -> tuple[str, ...]:
    """``ProjectModules.candidates`` for an absolute ``importer``: paths only (each lookup reads the
    files' states afresh), so kept for the process."""
    root = project_root(importer)
    parts = module.split(".") if module else []
    if level > 0:
        base = os.path.dirname(importer)
        for _ in range(level - 1):
            base = os.path.dirname(base)
        bases = [base]
    else:
        package = _package_base(importer, parts[0], root) if parts else root
        bases = list(dict.fromkeys((os.path.dirname(importer), package, root)))
    found = []
    for base in bases:
        target = os.path.join(base, *parts)
        for path in (target + ".py", os.path.join(target, "__init__.py")) if parts else (
            os.path.join(target, "__init__.py"),
        ):
            inside = os.path.commonpath([root, os.path.abspath(path)]) == root
            if inside and os.path.abspath(path) != importer:
                found.append(os.path.abspath(path))
    return tuple(found)


def _read_text(path: str) -> str | None:
    from flake8_device.source import SourceError, decode_source

    try:
        with open(path, "rb") as handle:
            return decode_source(handle.read()).text
    except (OSError, SourceError):
        return None


# A ``def`` at the start of a line: every function of a module's top level (``ProjectModule.
# function_names``), and those written at column 0 inside a string, so a superset of them.
_TOP_LEVEL_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)
# A ``from ... import ...`` at the start of a line: the names a package's ``__init__.py`` may
# re-export (``ProjectModule.reexported``).
_TOP_LEVEL_FROM = re.compile(r"^from[ \t]+[\w.]+[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)


def _top_level_defs(text: str) -> frozenset[str]:
    """The names of the functions ``text`` may define or re-export at its top level, from the text
    (no parse: this is asked of every import of every checked file, and most modules are never
    loaded)."""
    imported = (name for names in _TOP_LEVEL_FROM.findall(text) for name in re.findall(r"\w+", names))
    return frozenset((*_TOP_LEVEL_DEF.findall(text), *imported))


def project_functions(
    modules: ProjectModules, importer: str, symbols: Symbols
) -> tuple[list[str], dict[str, FileState]]:
    """How ``importer`` spells calls of the functions of the project's modules it imports, as
    regular expressions for the markers (see ``Symbols.vocabulary``), and the files looked at."""
    spellings: list[str] = []
    looked: dict[str, FileState] = {}
    for local, (level, module, name) in symbols.from_imports.items():
        defined, seen = modules.function_names(importer, level, module)
        looked.update(seen)
        if name in defined:
            spellings.append(re.escape(local))
    for local, (level, module) in symbols.module_imports.items():
        defined, seen = modules.function_names(importer, level, module)
        looked.update(seen)
        if defined:
            names = "|".join(re.escape(n) for n in sorted(defined))
            spellings.append(rf"{re.escape(local)}\.(?:{names})")
    return spellings, looked


def project_module_classes(
    modules: ProjectModules, importer: str, symbols: Symbols
) -> tuple[frozenset[str], frozenset[str], dict[str, FileState]]:
    """The bases of ``importer``'s classes that it imports from the project's own modules: those
    that are module classes there (``from .base import BaseWeightedLoss``, where
    ``BaseWeightedLoss`` derives from ``nn.Module``, or from a module class that module imports
    from the project in turn), those known to be plain classes (deriving from nothing but plain
    classes), and the files looked at.  A class with a ``to``/``cuda``/``_apply`` of its own (or
    deriving from one: TorchRL's ``EnvBase``) is neither: what it holds moves by its own code."""
    looked: dict[str, FileState] = {}
    kinds = {
        local: _class_kind(modules, importer, *symbols.from_imports[local], looked, depth=0)
        for local in sorted(symbols.imported_bases())
    }
    module_classes = frozenset(local for local, kind in kinds.items() if kind is True)
    return module_classes, frozenset(local for local, kind in kinds.items() if kind is False), looked


def _class_kind(
    modules: ProjectModules,
    importer: str,
    level: int,
    module: str | None,
    name: str,
    looked: dict[str, FileState],
    *,
    depth: int,
) -> bool | None:
    """Is ``name``, imported by ``importer`` from ``module``, a module class of the project (True),
    a plain class of it (False), or not known (None)?  (A package's re-export, and the defining
    module's own bases, imported or not, are followed a few steps.)"""
    if depth > 3:
        return None
    loaded, seen = modules.load(importer, level, module)
    looked.update(seen)
    return None if loaded is None else _class_kind_in(modules, loaded, name, looked, depth=depth)


def _class_kind_in(
    modules: ProjectModules, loaded: ProjectModule, name: str, looked: dict[str, FileState], *, depth: int
) -> bool | None:
    if depth > 3:
        return None
    if name not in loaded.class_names:
        source = loaded.reexported(name)
        if source is None:
            for level, module in loaded.star_imports():  # (``from .losses import *``)
                star, seen = modules.load(loaded.path, level, module)
                looked.update(seen)
                if star is not None and name in star.class_names:
                    return _class_kind_in(modules, star, name, looked, depth=depth + 1)
            return None
        return _class_kind(modules, loaded.path, *source, looked, depth=depth + 1)
    defined = loaded.symbols
    if _moves_what_it_holds(loaded.tree, name):
        return None  # (its own ``to``/``_apply`` moves what it holds: where to is not known here)
    if defined.is_local_module_class(name):
        return True
    kinds = []
    for base in defined.bases_of(name):
        if base.split("[")[0] in PLAIN_BASES or defined.qualify_dotted(base.split("[")[0]) in PLAIN_BASES:
            kinds.append(False)  # (``from abc import ABC``)
        elif base in defined.from_imports:
            kinds.append(_class_kind(modules, loaded.path, *defined.from_imports[base], looked, depth=depth + 1))
        elif base in loaded.class_names:
            kinds.append(_class_kind_in(modules, loaded, base, looked, depth=depth + 1))
        else:
            kinds.append(None)
    if True in kinds:
        return True
    return None if None in kinds else False


def _moves_what_it_holds(tree: ast.Module, name: str) -> bool:
    """Does the module's class ``name`` define ``to``, ``cuda`` or ``_apply``?"""
    return any(
        isinstance(statement, ast.ClassDef)
        and statement.name == name
        and any(
            isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.name in ("to", "cuda", "_apply")
            for member in statement.body
        )
        for statement in tree.body
    )


def _unchanged(module: ProjectModule) -> bool:
    """Are the project files the module read in turn (for its summaries) as they were then?"""
    return module.still_as_read(module.reads())


def files_read(facts: Any) -> dict[str, FileState]:
    """Every project file a lint's flow depended on: the modules ``facts`` (a ``FileContext``) read,
    the ones they read in turn, and the candidates found absent."""
    found: dict[str, FileState] = {}
    todo, seen = [facts], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.update(current.project_reads)
        for used in current.project_used:
            found.update(used.stored_reads)
        # (The modules parsed for summaries: only those read further modules.)
        todo.extend(m.facts for m in current.project_used if m.__dict__.get("facts") is not None)
    return found
