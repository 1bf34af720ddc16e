"""What the analyses read of the file they analyse: plain facts, named by a protocol.

The analyses never import the rule layer's ``FileContext`` (which builds them lazily); they are
typed against this protocol, which ``FileContext`` satisfies, so the layers have no import cycle
(``tests/test_layers.py``).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Protocol

import libcst as cst

if TYPE_CHECKING:
    from flake8_device.analysis.classes import ClassInfo, ClassTable
    from flake8_device.analysis.defaults import DefaultDeviceSetting
    from flake8_device.analysis.functions import FunctionTable
    from flake8_device.analysis.symbols import Symbols
    from flake8_device.configuration.analysis import AnalysisConfig
    from flake8_device.source import LineIndex


class FileFacts(Protocol):
    # The parsed code (only the units that can matter: see flake8_device/units.py).
    module: cst.Module
    # The whole file's ``ast`` (None when not at hand).
    tree: ast.Module | None
    symbols: Symbols
    config: AnalysisConfig
    # The original text (None when unknown).
    index: LineIndex | None

    @property
    def classes(self) -> ClassTable: ...

    @property
    def functions(self) -> FunctionTable | None: ...

    @property
    def default_devices(self) -> list[DefaultDeviceSetting]: ...

    def class_info(self, node: cst.ClassDef) -> ClassInfo | None: ...

    def code_for(self, node: cst.CSTNode) -> str: ...

    def describe(self, node: cst.CSTNode, limit: int = 60) -> str: ...

    def scope_nodes(self, scope: cst.CSTNode) -> tuple[cst.CSTNode, ...]: ...

    def project_function_names(self, level: int, module: str | None) -> frozenset[str]:
        """Names of functions that module may define (a superset, from its text: asking costs no
        parse); empty when it is not the project's."""
        ...

    def project_module(self, level: int, module: str | None) -> ProjectModule | None:
        """A module of the same project that this file imports (``from .model import Net``: level
        1, ``"model"``), read from disk; None when it is not the project's or cannot be read."""
        ...

    def project_function(self, level: int, module: str | None, name: str) -> tuple[ProjectModule, str] | None:
        """The project's module that defines the function this file imports as ``name`` from
        ``module`` (re-exports followed one step), and its name there."""
        ...

    def project_class(self, level: int, module: str | None, name: str) -> tuple[ProjectModule, str] | None:
        """The same for a class."""
        ...


class ProjectLoader(Protocol):
    """Finds and reads the project's modules (flake8_device/project.py)."""

    def load(self, importer: str, level: int, module: str | None) -> tuple[ProjectModule | None, dict[str, Any]]: ...


class ProjectModule(Protocol):
    """Another module of the project, as the device flow of an importing file reads it."""

    path: str
    text: str

    @property
    def function_names(self) -> frozenset[str]: ...

    @property
    def class_names(self) -> frozenset[str]: ...

    @property
    def tree(self) -> ast.Module: ...

    @property
    def symbols(self) -> Symbols: ...

    @property
    def config(self) -> AnalysisConfig: ...

    @property
    def store(self) -> SummaryStore | None: ...

    def reads(self) -> dict[str, Any]:
        """The project files what was derived from the module so far depended on, with their states."""
        ...

    def still_as_read(self, reads: dict[str, Any]) -> bool: ...

    def add_reads(self, reads: dict[str, Any]) -> None:
        """Files that something read back from the store depended on."""
        ...

    @property
    def facts(self) -> Any: ...

    # What the analyses derived from the module (its functions' summaries), kept with it while it
    # and the modules it reads are unchanged.
    derived: dict[str, Any]


class SummaryStore(Protocol):
    """A front end's on-disk cache (``flake8_device.cache.Cache``): JSON entries by key."""

    def entry_key(self, *parts: str) -> str: ...

    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, entry: dict[str, Any]) -> None: ...
