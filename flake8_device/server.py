"""``flake8-device server``: a Language Server Protocol server on stdio.

Diagnostics on open, change (debounced) and save, with the codes, positions and messages of
the CLI; code actions: the quick fix of a finding (safe ones preferred, unsafe ones labelled),
"fix all safe fixes" (``source.fixAll.flake8-device``) and "add ``# noqa: DEVnnn``".  It is a
thin front end like the others: the engine lints and fixes, the configuration is read as the
CLI reads it (``[tool.flake8-device]`` and flake8's ``[flake8]`` of the file's project, again
when a configuration file changes), and the state kept warm is the process itself (the rules
imported, the engines built) and each open document's last result.

The analysis runs off the message loop (in a worker thread), one document run at a time; an
edit that arrives while a run is pending or running makes that run stale: it is dropped, and
only the newest text's diagnostics are published.  A crash in one file's analysis is logged
to the client and the server goes on.  Needs the ``server`` extra (pygls).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from flake8_device import __version__, noqa
from flake8_device.cache import user_cache
from flake8_device.codes import DEFAULT_OFF_CODES
from flake8_device.configuration.discovery import discover_settings
from flake8_device.engine import Engine, LintResult
from flake8_device.links import rule_url
from flake8_device.model import FixSafety, Related, TextEdit, Violation
from flake8_device.notebook import lint_notebook
from flake8_device.options import Options
from flake8_device.runner import engine_for
from flake8_device.configuration.settings import ConfigError
from flake8_device.source import LineIndex

SOURCE = "flake8-device"
FIX_ALL = f"{lsp.CodeActionKind.SourceFixAll.value}.flake8-device"
# Edits closer together than this are linted once, for the last of them (an edit after a pause
# is linted at once: the wait is only for bursts).
DEBOUNCE_S = 0.05
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini", ".flake8")
log = logging.getLogger(__name__)


@dataclass
class Checked:
    """A document's text as last linted, and what the engine said of it."""

    version: int | None
    text: str
    result: LintResult
    engine: Engine
    path: str | None


class DeviceServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            SOURCE,
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            notebook_document_sync=lsp.NotebookDocumentSyncOptions(
                notebook_selector=[
                    lsp.NotebookDocumentFilterWithCells(
                        notebook="jupyter-notebook", cells=[lsp.NotebookCellLanguage(language="python")]
                    )
                ],
                save=True,
            ),
        )
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="flake8-device")
        self.checked: dict[str, Checked] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self._options: dict[str, Options | str] = {}
        self.last_edit: dict[str, float] = {}
        self._lock = threading.Lock()

    # -- configuration ---------------------------------------------------------------------------
    def options_for(self, path: str | None) -> Options | str:
        """The options for a file (as the CLI builds them from its project's files), or why not."""
        directory = os.path.dirname(path) if path else os.getcwd()
        with self._lock:
            known = self._options.get(directory)
            if known is None:
                try:
                    settings = discover_settings(Path(directory))
                    known = Options(
                        selection=settings.selection(DEFAULT_OFF_CODES),
                        config=settings.analysis_config(),
                        per_file_ignores=settings.per_file_ignores,
                    )
                except ConfigError as error:
                    known = str(error)
                self._options[directory] = known
            return known

    def forget_configuration(self) -> None:
        with self._lock:
            self._options.clear()

    # -- linting ----------------------------------------------------------------------------------
    def lint_now(self, uri: str, version: int | None, text: str) -> Checked | str:
        """Lint one text (in the worker thread, which sends nothing to the client); a broken
        configuration gives its message instead."""
        path = _path_of(uri)
        options = self.options_for(path)
        if isinstance(options, str):
            return options
        codes = options.rules_for(path or "stdin")
        engine = engine_for(codes, options.config, user_cache())
        result = engine.lint(text, honour_noqa=True, path=path) if codes else LintResult()
        return Checked(version, text, result, engine, path)

    def schedule(self, uri: str, delay: float) -> None:
        """Lint the document after ``delay`` unless another edit comes first; publish if still current."""
        self._later(uri, delay, self._lint_document)

    def schedule_notebook(self, uri: str, delay: float) -> None:
        self._later(uri, delay, self._lint_notebook)

    def edited(self, key: str) -> float:
        """The delay before linting after an edit: none after a pause, ``DEBOUNCE_S`` in a burst."""
        now = time.monotonic()
        last, self.last_edit[key] = self.last_edit.get(key), now
        in_burst = key in self.pending or (last is not None and now - last < DEBOUNCE_S)
        return DEBOUNCE_S if in_burst else 0.0

    def _later(self, key: str, delay: float, job: Callable[[str], Awaitable[None]]) -> None:
        previous = self.pending.pop(key, None)
        if previous is not None:
            previous.cancel()
        self.pending[key] = asyncio.ensure_future(self._run_later(key, delay, job))

    async def _run_later(self, key: str, delay: float, job: Callable[[str], Awaitable[None]]) -> None:
        try:
            await asyncio.sleep(delay)
            await job(key)
        except asyncio.CancelledError:
            return
        except Exception as error:  # noqa: BLE001 - one file's crash never stops the server
            self.window_log_message(
                lsp.LogMessageParams(
                    lsp.MessageType.Error,
                    f"{SOURCE}: internal error on {key}: {type(error).__name__}: {error}\n{traceback.format_exc()}",
                )
            )
        finally:
            if self.pending.get(key) is asyncio.current_task():
                del self.pending[key]

    async def _lint_document(self, uri: str) -> None:
        document = self.workspace.get_text_document(uri)
        version, text = document.version, document.source
        checked = await asyncio.get_running_loop().run_in_executor(self.pool, self.lint_now, uri, version, text)
        if isinstance(checked, str):
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, f"{SOURCE}: {checked}"))
            return
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return  # edited (or closed) meanwhile: a newer run publishes
        self.checked[uri] = checked
        for problem in checked.result.internal_errors:
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Warning, f"{SOURCE}: {problem}"))
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics(uri, checked))
        )

    async def _lint_notebook(self, uri: str) -> None:
        """A notebook's code cells are one program, as the CLI reads an ``.ipynb``; each cell gets
        its own diagnostics (quick fixes are the CLI's there: ``--fix`` on the notebook)."""
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return
        version = notebook.version
        cells = [
            (cell.document, cell.kind, self.workspace.get_text_document(cell.document).source)
            for cell in notebook.cells
        ]
        found = await asyncio.get_running_loop().run_in_executor(self.pool, self.lint_cells, uri, cells)
        if isinstance(found, str):
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, f"{SOURCE}: {found}"))
            return
        current = self.workspace.get_notebook_document(notebook_uri=uri)
        if current is None or current.version != version:
            return
        for cell_uri, cell_diagnostics in found.items():
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=cell_uri, diagnostics=cell_diagnostics)
            )

    def lint_cells(
        self, uri: str, cells: list[tuple[str, lsp.NotebookCellKind, str]]
    ) -> dict[str, list[lsp.Diagnostic]] | str:
        """A notebook's diagnostics by cell (in the worker thread), or the configuration's error."""
        path = _path_of(uri)
        options = self.options_for(path)
        if isinstance(options, str):
            return options
        engine = engine_for(options.rules_for(path or "notebook.ipynb"), options.config, user_cache())
        document = {
            "cells": [
                {"cell_type": "code" if kind == lsp.NotebookCellKind.Code else "markdown", "source": text}
                for _, kind, text in cells
            ],
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        report = lint_notebook(engine, json.dumps(document).encode(), path or uri)
        found: dict[str, list[lsp.Diagnostic]] = {cell_uri: [] for cell_uri, _, _ in cells}
        texts = {cell_uri: LineIndex(text) for cell_uri, _, text in cells}

        def locate(place: Related) -> tuple[str, LineIndex] | None:
            if place.cell is None or not 0 < place.cell <= len(cells):
                return None
            cell_uri = cells[place.cell - 1][0]
            return cell_uri, texts[cell_uri]

        for cell_violation in report.violations:
            cell_uri = cells[cell_violation.cell - 1][0]
            found[cell_uri].append(_diagnostic(texts[cell_uri], cell_violation.violation, locate))
        return found

    def current(self, uri: str) -> Checked | None:
        """The document's lint for its current text (made now if the last one is stale)."""
        document = self.workspace.get_text_document(uri)
        checked = self.checked.get(uri)
        if checked is not None and checked.version == document.version and checked.text == document.source:
            return checked
        fresh = self.lint_now(uri, document.version, document.source)
        if isinstance(fresh, str):
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, f"{SOURCE}: {fresh}"))
            return None
        self.checked[uri] = fresh
        return fresh


def _path_of(uri: str) -> str | None:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return os.path.abspath(path) if path else None


# -- positions ------------------------------------------------------------------------------------


def _utf16_column(line_text: str, column: int) -> int:
    """An LSP character offset (UTF-16 code units) for a Python string column."""
    return column + sum(1 for char in line_text[:column] if ord(char) > 0xFFFF)


def _position(index: LineIndex, offset: int) -> lsp.Position:
    line = index.line_of(offset)
    return lsp.Position(line - 1, _utf16_column(index.line_text(line), offset - index.starts[line - 1]))


def _range(index: LineIndex, place: Violation | Related) -> lsp.Range:
    start = lsp.Position(place.line - 1, _utf16_column(index.line_text(place.line), place.col))
    if place.end_line is not None and place.end_col is not None:
        end_text = index.line_text(place.end_line)
        end = lsp.Position(place.end_line - 1, _utf16_column(end_text, place.end_col))
    else:
        end = lsp.Position(start.line, start.character + 1)
    return lsp.Range(start, end)


# Where a related place is: the document (its URI and lines) holding it, None where it is not open.
Locate = Callable[[Related], Optional[tuple[str, LineIndex]]]


def _diagnostic(lines: LineIndex, violation: Violation, locate: Locate) -> lsp.Diagnostic:
    related = []
    for place in violation.related:
        found = locate(place)
        if found is not None:
            location = lsp.Location(found[0], _range(found[1], place))
            related.append(lsp.DiagnosticRelatedInformation(location=location, message=place.message))
    return lsp.Diagnostic(
        range=_range(lines, violation),
        message=violation.flake8_text()[len(violation.code) + 1 :],
        severity=lsp.DiagnosticSeverity.Warning,
        code=violation.code,
        code_description=lsp.CodeDescription(href=rule_url(violation.code)),
        source=SOURCE,
        related_information=related or None,
    )


def diagnostics(uri: str, checked: Checked) -> list[lsp.Diagnostic]:
    lines = LineIndex(checked.text)
    return [_diagnostic(lines, violation, lambda _: (uri, lines)) for violation in checked.result.violations]


def _edits(text: str, edits: list[TextEdit]) -> list[lsp.TextEdit]:
    index = LineIndex(text)
    return [
        lsp.TextEdit(range=lsp.Range(_position(index, e.start), _position(index, e.end)), new_text=e.text)
        for e in sorted(set(edits), key=lambda e: (e.start, e.end))
    ]


def whole_change(old: str, new: str) -> list[lsp.TextEdit]:
    """One edit turning ``old`` into ``new``: the part between their common prefix and suffix."""
    if old == new:
        return []
    prefix = len(os.path.commonprefix([old, new]))
    suffix = len(os.path.commonprefix([old[prefix:][::-1], new[prefix:][::-1]]))
    return _edits(old, [TextEdit(prefix, len(old) - suffix, new[prefix : len(new) - suffix])])


# -- the protocol ---------------------------------------------------------------------------------

server = DeviceServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DeviceServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: DeviceServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, ls.edited(params.text_document.uri))


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DeviceServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: DeviceServer, params: lsp.DidOpenNotebookDocumentParams) -> None:
    ls.schedule_notebook(params.notebook_document.uri, 0)


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_did_change(ls: DeviceServer, params: lsp.DidChangeNotebookDocumentParams) -> None:
    ls.schedule_notebook(params.notebook_document.uri, ls.edited(params.notebook_document.uri))


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
def notebook_did_save(ls: DeviceServer, params: lsp.DidSaveNotebookDocumentParams) -> None:
    ls.schedule_notebook(params.notebook_document.uri, 0)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DeviceServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.checked.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _relint_open_documents(ls: DeviceServer) -> None:
    ls.forget_configuration()
    ls.checked.clear()
    for uri in list(ls.workspace.text_documents):
        ls.schedule(uri, 0)


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: DeviceServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    if any(change.uri.rsplit("/", 1)[-1] in CONFIG_FILES for change in params.changes):
        _relint_open_documents(ls)


@server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: DeviceServer, params: lsp.DidChangeConfigurationParams) -> None:
    _relint_open_documents(ls)


@server.feature(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True),
)
def code_action(ls: DeviceServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    uri = params.text_document.uri
    try:
        checked = ls.current(uri)
    except Exception as error:  # noqa: BLE001 - never break the editor's request
        log.exception("code actions failed")
        ls.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, f"{SOURCE}: {error}"))
        return []
    if checked is None:
        return []
    only = params.context.only
    actions: list[lsp.CodeAction] = []
    if only is None or any(kind.startswith(lsp.CodeActionKind.QuickFix) for kind in only):
        actions += _quick_fixes(uri, checked, params.range)
    if only is None or any(FIX_ALL.startswith(kind) for kind in only):
        safe = sum(1 for v in checked.result.violations if v.fixable and v.fix_safety is FixSafety.SAFE)
        if safe:
            actions.append(
                lsp.CodeAction(
                    title=f"flake8-device: fix all safe fixes ({safe})", kind=FIX_ALL, data={"uri": uri, "fix": "all"}
                )
            )
    if not _resolves_edits(ls):
        # A client that cannot resolve an action's edit later gets every edit now.
        actions = [_resolved(ls, action) for action in actions]
    return [action for action in actions if action.edit is not None or _resolves_edits(ls)]


@server.feature(lsp.CODE_ACTION_RESOLVE)
def code_action_resolve(ls: DeviceServer, action: lsp.CodeAction) -> lsp.CodeAction:
    """The edit of "fix all" and "add noqa", computed when the user picks the action (both read the
    whole file: too slow to make for every action list the editor asks for)."""
    return _resolved(ls, action)


def _resolves_edits(ls: DeviceServer) -> bool:
    code_action = ls.client_capabilities.text_document and ls.client_capabilities.text_document.code_action
    support = code_action.resolve_support if code_action else None
    return support is not None and "edit" in support.properties


def _resolved(ls: DeviceServer, action: lsp.CodeAction) -> lsp.CodeAction:
    data = action.data if isinstance(action.data, dict) else None
    if action.edit is not None or data is None:
        return action
    uri = data["uri"]
    checked = ls.current(uri)
    if checked is None:
        return action
    if data["fix"] == "all":
        fixed = checked.engine.fix(checked.text, path=checked.path)
        edits = whole_change(checked.text, fixed.text)
    else:
        wanted = (data["line"], data["col"], data["code"])
        found = [v for v in checked.result.violations if (v.line, v.col, v.code) == wanted]
        commented = noqa.add_comments(checked.text, found) if found else None
        edits = whole_change(checked.text, commented.text) if commented and not commented.skipped else []
    if edits:
        action.edit = lsp.WorkspaceEdit(changes={uri: edits})
    return action


def _touches(violation: Violation, wanted: lsp.Range) -> bool:
    first, last = violation.line - 1, (violation.end_line or violation.line) - 1
    return first <= wanted.end.line and last >= wanted.start.line


def _quick_fixes(uri: str, checked: Checked, wanted: lsp.Range) -> list[lsp.CodeAction]:
    lines = LineIndex(checked.text)
    actions = []
    for violation in checked.result.violations:
        if not _touches(violation, wanted):
            continue
        diagnostic = [_diagnostic(lines, violation, lambda _: (uri, lines))]
        if violation.fixable:
            unsafe = violation.fix_safety is FixSafety.UNSAFE
            title = f"{violation.code}: {violation.fix_title}" + (" (unsafe)" if unsafe else "")
            actions.append(
                lsp.CodeAction(
                    title=title,
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=diagnostic,
                    is_preferred=not unsafe,
                    edit=lsp.WorkspaceEdit(changes={uri: _edits(checked.text, list(violation.text_edits))}),
                )
            )
        actions.append(
            lsp.CodeAction(
                title=f"{violation.code}: add `# noqa: {violation.code}`",
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=diagnostic,
                data={"uri": uri, "fix": "noqa", "line": violation.line, "col": violation.col, "code": violation.code},
            )
        )
    return actions


def main(argv: list[str] | None = None) -> int:
    del argv
    logging.basicConfig(level=logging.WARNING)
    server.start_io()
    return 0
