"""The rule model: a rule is a small class carrying its code, docs and checks."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

import libcst as cst

from flake8_device.configuration.analysis import DEFAULT_MOVE_FUNCTIONS
from flake8_device.model import Fix, FixSafety
from flake8_device.units import Marker, MarkerSpec, Unit

if TYPE_CHECKING:
    from flake8_device.context import FileContext

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety")
FILE_PLACEHOLDERS = ("{modules}", "{factories}", "{wrappers}", "{classes}")
_SPECS: dict[tuple[type, frozenset[str]], MarkerSpec] = {}
# What a file must contain somewhere for the device flow to make a finding: every finding needs
# a value on an accelerator or made by torch, and those come from torch (a factory, a module
# class, a collective, ``torch.device``: all named through an import of torch or of a package
# whose name holds it) or a move (``.to(``, ``.cuda(``, ``.cpu(``, a configured move helper).  A
# ``device=`` alone places nothing: the factories it is given to are torch's, and NumPy's array
# API takes ``device=`` too.  A flow rule cannot fire in a file without one of these, so the file
# costs no flow analysis (a library's plain modules, the standard library, NumPy's tests).
# Checked against every fixture and benchmark case by tests/test_pathological.py.
FLOW_GATE = r"torch|cuda|\.to\(|\.cpu\(|{moves}"


def moves_pattern(move_functions: frozenset[str]) -> str:
    """What ``{moves}`` in a marker stands for: the configured move helpers' names."""
    return "|".join(re.escape(name) for name in sorted(move_functions)) or "(?!)"


class Rule:
    """Base class of every rule.

    Subclasses set the class attributes below and define LibCST-style
    ``visit_<Node>`` / ``leave_<Node>`` methods; the engine calls them during
    its single walk over the file (see :mod:`flake8_device.walk`), with
    ``self.ctx`` giving the shared analysis (names, scopes, device flow).
    """

    code: ClassVar[str]
    name: ClassVar[str]
    # One sentence, code in backticks, no trailing period; ``{fields}`` are filled by ``report``.
    message: ClassVar[str]
    # Imperative, e.g. "Move the new submodule to `{device}`"; None when there is no fix.
    fix_title: ClassVar[str | None] = None
    fix_safety: ClassVar[FixSafety] = FixSafety.NONE
    default_enabled: ClassVar[bool] = True
    # Regular expressions that must all match inside one unit of code (a function,
    # a method, the top-level statements) for the rule to be able to fire there.
    markers: ClassVar[tuple[str | tuple[str, ...], ...]] = ()
    # Keep the whole enclosing class when one of its methods matches the markers.
    needs_whole_class: ClassVar[bool] = False
    # Reads the device-flow analysis: the flow covers the units this rule selected.
    uses_flow: ClassVar[bool] = False
    # Regular expressions that must all match somewhere in the file (not necessarily in the
    # unit that fires): for conditions the analysis reads across the file, such as the
    # ``nccl`` backend initialised in another function than the collective that breaks, or a
    # move made by the caller, the class or a helper of the function that reports.  Written like
    # ``markers`` (tuples of alternatives, ``{moves}`` and the file's vocabulary).
    file_markers: ClassVar[tuple[str | tuple[str, ...], ...]] = ()

    # Derived from the above when the class is defined.
    marker_spec: ClassVar[MarkerSpec]
    family: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.marker_spec = cls.marker_spec_for(DEFAULT_MOVE_FUNCTIONS)
        cls.family = cls.__module__.rsplit(".", 1)[-1]

    @classmethod
    def marker_spec_for(cls, move_functions: frozenset[str]) -> MarkerSpec:
        """The compiled markers, with ``{moves}`` standing for the configured move helpers.

        A marker naming the file's vocabulary (``{modules}``, ``{factories}``: see
        Symbols.vocabulary) stays a template; the engine fills it in per file.  A marker
        may be a tuple of alternatives, so that a per-file template stays small (and
        cheap to compile) instead of being folded into a large pattern.
        """
        key = (cls, move_functions)
        spec = _SPECS.get(key)
        if spec is None:
            moves = moves_pattern(move_functions)

            def prepared(marker: str) -> re.Pattern[str] | str:
                marker = marker.replace("{moves}", moves)
                if any(placeholder in marker for placeholder in FILE_PLACEHOLDERS):
                    return marker
                return re.compile(marker)

            def compiled(markers: tuple[str | tuple[str, ...], ...]) -> tuple[Marker, ...]:
                return tuple(tuple(map(prepared, m)) if isinstance(m, tuple) else prepared(m) for m in markers)

            overridden = cls.wants_unit.__func__ is not Rule.wants_unit.__func__  # type: ignore[attr-defined]
            wants = cls.wants_unit if overridden else None
            spec = _SPECS[key] = MarkerSpec(
                patterns=compiled(cls.markers),
                whole_class=cls.needs_whole_class,
                wants=wants,
                file_patterns=compiled((FLOW_GATE, *cls.file_markers) if cls.uses_flow else cls.file_markers),
            )
        return spec

    @classmethod
    def wants_unit(cls, unit: Unit, contains: Callable[[str], bool]) -> bool:
        """Last word on a unit the markers matched (e.g. "not in ``__init__``"): must stay a necessary
        condition for a finding there. ``contains(literal)`` searches the unit's text."""
        return True

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    @classmethod
    def format_message(cls, fields: dict[str, Any]) -> str:
        """The message of one finding; a rule whose wording depends on what is known overrides it."""
        return cls.message.format(**fields)

    def report(
        self,
        node: cst.CSTNode,
        *,
        fix: Fix | None = None,
        related: Iterable[tuple[cst.CSTNode | None, str]] = (),
        **fields: Any,
    ) -> None:
        """Report at ``node`` (where the fix goes). ``related``: the other places the finding
        involves, each with what happens there (where the values meet); ``None`` nodes are left out.
        A field holding a :class:`~flake8_device.context.Place` is written by the engine."""
        kept = tuple((place, text) for place, text in related if place is not None)
        self.ctx.add_report(self, node, fix, fields, kept)

    def make_fix(
        self,
        *edits: Any,
        safety: FixSafety | None = None,
        reason: str | None = None,
        source: cst.CSTNode | None = None,
        subject: cst.BaseExpression | None = None,
        **fields: Any,
    ) -> Fix:
        """A fix with this rule's title and safety (overridable, e.g. down to display-only, with
        the ``reason``); ``source`` and ``subject`` are what the proof checks (see :class:`Fix`)."""
        assert self.fix_title is not None, f"{self.code} has no fix title"
        return Fix(
            title=" ".join(self.fix_title.format(**fields).split()),
            safety=safety or self.fix_safety,
            edits=tuple(edits),
            reason=reason,
            source=source,
            subject=subject,
        )

    # -- class-level helpers used by the registry, docs and the walker -------
    @classmethod
    def visitor_method_names(cls) -> tuple[str, ...]:
        cached = cls.__dict__.get("_visitor_method_names")
        if cached is None:
            cached = tuple(
                name
                for name, member in inspect.getmembers(cls, inspect.isfunction)
                if name.startswith(("visit_", "leave_"))
            )
            cls._visitor_method_names = cached  # type: ignore[attr-defined]
        return cached

    def bound_visitors(self) -> dict[str, Callable[[cst.CSTNode], Any]]:
        return {name: getattr(self, name) for name in self.visitor_method_names()}

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """The docstring split into its fixed sections (What it does, ..., Fix safety)."""
        doc = inspect.cleandoc(cls.__doc__ or "")
        sections: dict[str, str] = {}
        current: str | None = None
        lines: list[str] = []
        for line in doc.splitlines():
            heading = re.fullmatch(r"## (.+)", line.strip())
            if heading and heading.group(1) in DOC_SECTIONS:
                if current is not None:
                    sections[current] = "\n".join(lines).strip()
                current, lines = heading.group(1), []
            else:
                lines.append(line)
        if current is not None:
            sections[current] = "\n".join(lines).strip()
        return sections

    @classmethod
    def code_block(cls, section: str) -> str:
        """The Python code block of a docstring section (Example, Use instead)."""
        text = cls.doc_sections().get(section, "")
        match = re.search(r"```python\n(.*?)```", text, re.S)
        return match.group(1) if match else ""
