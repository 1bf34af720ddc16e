"""What a rule sees of the file it checks: one object, shared by every rule."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import libcst as cst

from flake8_device.analysis import patterns
from flake8_device.analysis.classes import ClassInfo, ClassTable
from flake8_device.analysis.defaults import DefaultDeviceSetting, default_device_settings
from flake8_device.analysis.functions import FunctionTable
from flake8_device.analysis.symbols import Symbols
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.model import Fix, InsertImport
from flake8_device.positions import LazyPositions, whole_module_positions
from flake8_device.source import LineIndex
from flake8_device.units import SparseSource

if TYPE_CHECKING:
    from libcst.metadata import CodeRange

    from flake8_device.analysis.bindings import FileBindings
    from flake8_device.analysis.facts import ProjectLoader, ProjectModule
    from flake8_device.analysis.deepspeed import DeepSpeedConfigUse
    from flake8_device.analysis.flow import FlowAnalysis
    from flake8_device.analysis.types import TypeEvidence
    from flake8_device.proof import FixProof
    from flake8_device.versions import ResolvedVersion

# What any default-device setting is written with (a necessary condition, on the file's text): a
# setter, a ``with`` whose header (up to its colon) calls something named ``device``, or an import
# of ``device`` under another name (``from torch import device as place``).
_DEFAULT_DEVICE_TEXT = re.compile(
    r"set_default_(?:device|tensor_type)|\bwith\b[^:]*?device\s*\(|\bimport\b[^\n]*\bdevice\s+as\b"
)


# LibCST generates code (for positions) and the device flow follows blocks by recursion, several
# frames for each nested block: an ``elif`` chain of a thousand arms, which Python's own parser
# accepts, needs more than Python's default limit of 1,000 frames.  (Deeper still, the flow cuts
# the scope short: see analysis/flow/budget.py.)
_CODEGEN_RECURSION_LIMIT = 10_000


@contextmanager
def deeper_recursion(limit: int = _CODEGEN_RECURSION_LIMIT) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def code_without_parens(module: cst.Module, node: cst.CSTNode) -> str:
    """The source of ``node`` over the span PositionProvider gives it (own parentheses excluded).

    The parentheses are cut from the generated text: rebuilding the node without them would
    validate a new node, which costs more than the code generation (and ``()`` needs its own)."""
    code = module.code_for_node(node)
    parens = len(getattr(node, "lpar", ()) or ())
    if parens and not (isinstance(node, cst.Tuple) and not node.elements):
        code = code.strip()
        for _ in range(parens):
            if code.startswith("(") and code.endswith(")"):
                code = code[1:-1].strip()
    return code


class ReportingRule(Protocol):
    """What the engine reads of the rule behind a report (a ``Rule`` subclass: the rule layer
    imports this module, never the other way round)."""

    code: ClassVar[str]

    @classmethod
    def format_message(cls, fields: dict[str, Any]) -> str: ...


@dataclass(frozen=True)
class Place:
    """A place a message names: a node of the file, or a line of the original text.

    The engine writes it (``template`` with ``{where}``), as ``line 12``, or ``cell_3:4`` in a
    notebook, so that messages use the finding's own coordinates; as nothing when it is the
    finding's own line and ``template`` says it only where it is elsewhere (``elsewhere``)."""

    node: cst.CSTNode | None = None
    line: int | None = None
    template: str = " ({where})"
    elsewhere: bool = True

    @classmethod
    def of_line(cls, line: int) -> Place:
        """A line of the original text, written as it is (``line 12``, ``cell_3:4``) even on the
        finding's own line."""
        return cls(line=line, template="{where}", elsewhere=False)


@dataclass
class Report:
    rule: type[ReportingRule]
    node: cst.CSTNode
    fix: Fix | None
    fields: dict[str, Any]
    # Other places the finding involves, each with what happens there (see model.Related).
    related: tuple[tuple[cst.CSTNode, str], ...] = ()


@dataclass
class FileContext:
    module: cst.Module
    symbols: Symbols
    tree: ast.Module | None
    config: AnalysisConfig
    # The original text, when known (positions of functions come from ``tree``).
    index: LineIndex | None = None
    # Line ranges the flow analysis must cover (the units flow rules selected); None: all.
    # The checked file (None when unknown): where the project's pinned versions are looked up.
    path: str | None = None
    # The kept lines LibCST parsed (None: the whole file): maps its lines back to the file's.
    sparse: SparseSource | None = None
    reports: list[Report] = field(default_factory=list)
    # Enclosing ClassDef / FunctionDef nodes of the node being visited, outermost first.
    scopes: list[cst.ClassDef | cst.FunctionDef] = field(default_factory=list)
    _scope_nodes: dict[cst.CSTNode, tuple[cst.CSTNode, ...]] = field(default_factory=dict, repr=False)
    _code: dict[cst.CSTNode, str] = field(default_factory=dict, repr=False)
    # Reads the project's other modules (None: this file alone), and what this file's flow read.
    project: ProjectLoader | None = None
    project_reads: dict[str, Any] = field(default_factory=dict, repr=False)
    project_used: list[ProjectModule] = field(default_factory=list, repr=False)

    def project_function_names(self, level: int, module: str | None, importer: str | None = None) -> frozenset[str]:
        """The functions the project's module that ``importer`` (by default this file) imports may
        define (a superset, read from its text)."""
        if self.project is None or self.path is None:
            return frozenset()
        names, looked = self.project.function_names(importer or self.path, level, module)
        self.project_reads.update(looked)
        return names

    def project_module(self, level: int, module: str | None, importer: str | None = None) -> ProjectModule | None:
        """The project's module that ``importer`` (by default this file) imports as ``module``."""
        if self.project is None or self.path is None:
            return None
        loaded, looked = self.project.load(importer or self.path, level, module)
        self.project_reads.update(looked)
        if loaded is not None and all(known is not loaded for known in self.project_used):
            self.project_used.append(loaded)
        return loaded

    def project_function(self, level: int, module: str | None, name: str) -> tuple[ProjectModule, str] | None:
        """The project's module that defines the function imported as ``name`` from ``module``, and
        its name there: that module, or the one it re-exports the function from (one step, as a
        package's ``__init__.py`` does with ``from .utils import get_device``)."""
        return self._project_definition(level, module, name, lambda m: m.function_names, prefilter=True)

    def project_class(self, level: int, module: str | None, name: str) -> tuple[ProjectModule, str] | None:
        """The project's module that defines the class imported as ``name`` from ``module``, and its
        name there (re-exports followed one step, as for functions)."""
        return self._project_definition(level, module, name, lambda m: m.class_names, prefilter=False)

    def _project_definition(
        self,
        level: int,
        module: str | None,
        name: str,
        defined: Callable[[ProjectModule], frozenset[str]],
        *,
        prefilter: bool,
    ) -> tuple[ProjectModule, str] | None:
        importer: str | None = None
        for _ in range(2):  # the module imported, then the one it re-exports the name from
            if prefilter and name not in self.project_function_names(level, module, importer):
                return None  # (no parse of a module that cannot define it)
            loaded = self.project_module(level, module, importer=importer)
            if loaded is None:
                return None
            if name in defined(loaded):
                return loaded, name
            source = loaded.reexported(name) or self._star_source(loaded, name, defined, prefilter=prefilter)
            if source is None:
                return None
            (level, module, name), importer = source, loaded.path
        return None

    def _star_source(
        self,
        loaded: ProjectModule,
        name: str,
        defined: Callable[[ProjectModule], frozenset[str]],
        *,
        prefilter: bool,
    ) -> tuple[int, str | None, str] | None:
        """The module ``loaded`` imports everything from (``from .mel_loss import *``) that defines
        ``name``, as a re-export's source."""
        for level, module in loaded.star_imports():
            if prefilter and name not in self.project_function_names(level, module, loaded.path):
                continue
            star = self.project_module(level, module, importer=loaded.path)
            if star is not None and name in defined(star):
                return level, module, name
        return None

    def add_report(
        self,
        rule: ReportingRule,
        node: cst.CSTNode,
        fix: Fix | None,
        fields: dict[str, Any],
        related: tuple[tuple[cst.CSTNode, str], ...] = (),
    ) -> None:
        self.reports.append(Report(type(rule), node, fix, fields, related))

    def scope_nodes(self, scope: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        """Every node of a function's (or the module's) own scope, walked once per file."""
        nodes = self._scope_nodes.get(scope)
        if nodes is None:
            nodes = self._scope_nodes[scope] = tuple(patterns.scope_nodes(scope))
        return nodes

    def code_for(self, node: cst.CSTNode) -> str:
        """The source of ``node`` (own outer parentheses excluded), for analysis.

        Continuation lines lose their block indentation here, so fixes never
        build text from it: they name nodes and the engine copies the original.
        (Kept per node: the analysis asks again for the same nodes in loops and summaries.)
        """
        code = self._code.get(node)
        if code is None:
            code = self._code[node] = code_without_parens(self.module, node)
        return code

    def spelling(self, qualified: str) -> tuple[str, tuple[InsertImport, ...]]:
        """How to write ``torch.X`` in this file (``nn.ModuleList``), and the import a fix then
        needs (``import torch`` when no alias reaches it)."""
        alias = self.symbols.alias_for(qualified)
        if alias is not None:
            return alias, ()
        return qualified, (InsertImport("import torch"),)

    def describe(self, node: cst.CSTNode, limit: int = 60) -> str:
        """``node`` on one line, shortened, for messages."""
        text = " ".join(self.code_for(node).split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # -- scopes ---------------------------------------------------------------
    @property
    def current_function(self) -> cst.FunctionDef | None:
        for scope in reversed(self.scopes):
            if isinstance(scope, cst.FunctionDef):
                return scope
        return None

    @property
    def current_class(self) -> cst.ClassDef | None:
        """The class whose body holds the current function (None inside a plain function)."""
        if (
            len(self.scopes) >= 2
            and isinstance(self.scopes[-1], cst.FunctionDef)
            and isinstance(self.scopes[-2], cst.ClassDef)
        ):
            return self.scopes[-2]
        if self.scopes and isinstance(self.scopes[-1], cst.ClassDef):
            return self.scopes[-1]
        return None

    def in_method_of_module(self, *names: str) -> bool:
        """Inside a method (optionally one of ``names``) of an ``nn.Module`` subclass."""
        function = self.current_function
        owner = self.current_class
        if function is None or owner is None or self.scopes[-1] is not function:
            return False
        if names and function.name.value not in names:
            return False
        return self.symbols.is_local_module_class(owner.name.value)

    # -- shared analyses, computed on first use --------------------------------
    @cached_property
    def classes(self) -> ClassTable:
        return ClassTable(self.tree)

    def class_info(self, node: cst.ClassDef) -> ClassInfo | None:
        return self.classes.get(node.name.value)

    @cached_property
    def functions(self) -> FunctionTable | None:
        return FunctionTable(self.tree, self.index) if self.index is not None else None

    @cached_property
    def default_devices(self) -> list[DefaultDeviceSetting]:
        """Where the file sets PyTorch's default device (read from the whole file's ``ast``)."""
        if self.index is not None and not _DEFAULT_DEVICE_TEXT.search(self.index.text):
            return []  # (most files: no setter, no ``with ...device(...)`` block)
        return default_device_settings(self.tree, self.symbols)

    @cached_property
    def flow(self) -> FlowAnalysis:
        from flake8_device.analysis.flow import FlowAnalysis

        with deeper_recursion():
            return FlowAnalysis(self)

    # -- positions and proofs (for fixes) -------------------------------------------------
    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Where each node of the parsed code is (lines of the parsed text: see ``original_line``),
        computed for the statements asked about (see :mod:`flake8_device.positions`)."""
        if self.sparse is None:
            with deeper_recursion():
                return whole_module_positions(self.module)
        return LazyPositions(self.module, self.sparse.text, deeper_recursion)

    def original_line(self, line: int) -> int:
        return self.sparse.original_line(line) if self.sparse is not None else line

    @cached_property
    def bindings(self) -> FileBindings | None:
        """Definite bindings and reaching definitions of the whole file (None without its text)."""
        from flake8_device.analysis.bindings import FileBindings

        if self.tree is None:
            return None
        text = self.index.text if self.index is not None else self.module.code
        return FileBindings(self.tree, text)

    @cached_property
    def proof(self) -> FixProof:
        from flake8_device.proof import FixProof

        return FixProof(self)

    @cached_property
    def types(self) -> TypeEvidence | None:
        from flake8_device.analysis.types import TypeEvidence

        bindings = self.bindings
        return TypeEvidence(bindings, self.symbols, self.classes) if bindings is not None else None

    @cached_property
    def deepspeed_configs(self) -> list[DeepSpeedConfigUse]:
        from flake8_device.analysis.deepspeed import configs_in_module

        return configs_in_module(self)

    def package_version(self, *packages: str) -> ResolvedVersion | None:
        """The release of the first known of ``packages``: override, the project's pins, else installed."""
        from flake8_device import versions

        return versions.resolve(packages, self.path, dict(self.config.versions))
