"""``flake8-device server`` over its protocol (JSON-RPC on pipes, tests/lsp_client.py): the same
findings and fixes as the CLI, stale runs dropped, broken code and configuration changes handled."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the server extra (pygls) is not installed")

from cli_support import BUG, FIXED, code_cell, markdown_cell, notebook_json, run, write  # noqa: E402
from lsp_client import Client, apply_edits  # noqa: E402

TWO_BUGS = BUG + "\n\ndef step():\n    model2 = nn.Linear(3, 3).cuda()\n    y = torch.zeros(3)\n    return model2(y)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the project's root: configuration above it is not read
    return tmp_path


@pytest.fixture
def client(project: Path) -> Iterator[Client]:
    started = Client(project)
    started.initialize(project)
    yield started
    stderr = started.close()
    assert "Traceback" not in stderr, stderr


def _cli_findings(project: Path, name: str) -> list[tuple[int, int, str]]:
    found = run("--no-cache", "--format", "json", name, cwd=project)
    import json

    return [(f["line"], f["column"], f["code"]) for f in json.loads(found.stdout)]


def _lsp_findings(diagnostics: list[dict]) -> list[tuple[int, int, str]]:
    return [(d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"]) for d in diagnostics]


def _actions(client: Client, uri: str, diagnostic: dict | None = None, only: list[str] | None = None) -> list[dict]:
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 10_000, "character": 0}}
    context: dict = {"diagnostics": [diagnostic] if diagnostic else []}
    if only is not None:
        context["only"] = only
    return client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": diagnostic["range"] if diagnostic else whole, "context": context},
    )


def test_diagnostics_are_the_clis_findings(project: Path, client: Client) -> None:
    path = write(project / "train.py", TWO_BUGS)
    client.open(path.as_uri(), TWO_BUGS)
    diagnostics = client.diagnostics(path.as_uri())
    assert _lsp_findings(diagnostics) == _cli_findings(project, "train.py") == [(7, 14, "DEV101"), (13, 19, "DEV204")]
    first = diagnostics[0]
    assert first["source"] == "flake8-device"
    assert first["codeDescription"]["href"].endswith("#dev101")
    assert "stays on the CPU" in first["message"]
    # The move the late attach comes after, as the CLI's JSON has it (line 6 of TWO_BUGS).
    (related,) = first["relatedInformation"]
    assert related["message"] == "`model` is moved here"
    assert related["location"]["uri"] == path.as_uri()
    assert related["location"]["range"]["start"] == {"line": 5, "character": 0}


def test_a_quick_fix_gives_the_clis_fix_and_fix_all_fixes_everything(project: Path, client: Client) -> None:
    path = write(project / "train.py", BUG)
    client.open(path.as_uri(), BUG)
    [diagnostic] = client.diagnostics(path.as_uri())
    actions = _actions(client, path.as_uri(), diagnostic)
    titles = [a["title"] for a in actions]
    assert titles == [
        "DEV101: Move it too: `.to(device)`",
        "DEV101: add `# noqa: DEV101`",
        "flake8-device: fix all safe fixes (1)",
    ]
    assert actions[0]["isPreferred"] is True
    quick = apply_edits(BUG, actions[0]["edit"]["changes"][path.as_uri()])
    assert run("--fix", "train.py", cwd=project).returncode == 0
    assert quick == path.read_text() == FIXED
    noqa = apply_edits(BUG, actions[1]["edit"]["changes"][path.as_uri()])
    assert noqa == BUG.replace("nn.Linear(2, 2)\n", "nn.Linear(2, 2)  # noqa: DEV101\n")
    # Fix all, on a file with two bugs: the CLI's --fix.
    other = write(project / "two.py", TWO_BUGS)
    client.open(other.as_uri(), TWO_BUGS)
    client.diagnostics(other.as_uri())
    [fix_all] = _actions(client, other.as_uri(), only=["source.fixAll"])
    assert fix_all["kind"] == "source.fixAll.flake8-device"
    fixed = apply_edits(TWO_BUGS, fix_all["edit"]["changes"][other.as_uri()])
    run("--fix", "two.py", cwd=project)
    assert fixed == other.read_text() != TWO_BUGS


def test_an_edit_makes_a_pending_run_stale_and_only_the_newest_text_is_reported(project: Path, client: Client) -> None:
    path = write(project / "train.py", FIXED)
    uri = path.as_uri()
    client.open(uri, FIXED)
    assert client.diagnostics(uri, version=1) == []
    mark = len(client.notifications)
    for version in range(2, 12):  # a burst of edits, the bug in every one but the last
        client.change(uri, BUG if version < 11 else TWO_BUGS, version)
    latest = client.diagnostics(uri, version=11, after=mark)
    assert [d["code"] for d in latest] == ["DEV101", "DEV204"]
    time.sleep(0.5)
    published = [
        m["params"].get("version") for _, m in client.notifications[mark:] if m["method"].endswith("Diagnostics")
    ]
    # The first edit after the pause may be linted at once (and published if it is still the newest
    # when its run ends); the burst behind it is coalesced, and nothing older comes after the newest.
    assert published[-1] == 11 and published == sorted(published), published
    assert len(published) <= 3, published


def test_a_syntax_error_gives_no_diagnostics_and_the_server_goes_on(project: Path, client: Client) -> None:
    path = write(project / "train.py", BUG)
    uri = path.as_uri()
    client.open(uri, "def broken(:\n    pass\n")
    assert client.diagnostics(uri, version=1) == []
    mark = len(client.notifications)
    client.change(uri, BUG, 2)
    assert [d["code"] for d in client.diagnostics(uri, version=2, after=mark)] == ["DEV101"]


def test_a_configuration_change_is_read_again(project: Path, client: Client) -> None:
    path = write(project / "train.py", BUG)
    uri = path.as_uri()
    client.open(uri, BUG)
    assert [d["code"] for d in client.diagnostics(uri)] == ["DEV101"]
    config = write(project / "pyproject.toml", '[tool.flake8-device]\nextend-ignore = ["DEV101"]\n')
    mark = len(client.notifications)
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": config.as_uri(), "type": 1}]})
    assert client.diagnostics(uri, after=mark) == []
    assert run("train.py", cwd=project).returncode == 0  # the CLI agrees


def test_closing_a_document_clears_its_diagnostics(project: Path, client: Client) -> None:
    path = write(project / "train.py", BUG)
    uri = path.as_uri()
    client.open(uri, BUG)
    assert client.diagnostics(uri)
    mark = len(client.notifications)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri, after=mark) == []


def test_a_notebooks_cells_are_one_program_with_diagnostics_per_cell(project: Path, client: Client) -> None:
    notebook = (project / "analysis.ipynb").as_uri()
    cells = [
        ("import torch\nfrom torch import nn\n", 2),
        ("Some *prose*.", 1),
        ('device = torch.device("cuda")\nmodel = nn.Linear(4, 2)\nmodel.to(device)\n', 2),
        ("model.head = nn.Linear(2, 2)\n", 2),
    ]
    uris = [f"vscode-notebook-cell:{project / 'analysis.ipynb'}#cell{index}" for index in range(len(cells))]
    client.notify(
        "notebookDocument/didOpen",
        {
            "notebookDocument": {
                "uri": notebook,
                "notebookType": "jupyter-notebook",
                "version": 1,
                "cells": [{"kind": kind, "document": uri} for (_, kind), uri in zip(cells, uris)],
            },
            "cellTextDocuments": [
                {"uri": uri, "languageId": "python" if kind == 2 else "markdown", "version": 1, "text": text}
                for (text, kind), uri in zip(cells, uris)
            ],
        },
    )
    [late_head] = client.diagnostics(uris[3])
    assert (late_head["code"], late_head["range"]["start"]) == ("DEV101", {"line": 0, "character": 13})
    assert "was moved (cell_3:3)" in late_head["message"]
    # The move is in another cell: the related place names that cell's document.
    (related,) = late_head["relatedInformation"]
    assert related["location"]["uri"] == uris[2]
    assert related["location"]["range"]["start"] == {"line": 2, "character": 0}
    assert client.diagnostics(uris[2]) == []
    # The CLI says the same of the notebook file: cell 4, line 1, column 14.
    cells_json = [
        code_cell(text, number) if kind == 2 else markdown_cell(text, number)
        for number, (text, kind) in enumerate(cells, start=1)
    ]
    write(project / "analysis.ipynb", notebook_json(cells_json))
    assert run("--no-cache", "analysis.ipynb", cwd=project).stdout.startswith("analysis.ipynb:cell_4:1:14: DEV101")


def test_a_client_that_resolves_edits_gets_them_when_it_picks_the_action(project: Path) -> None:
    client = Client(project)
    try:
        client.initialize(project, {"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}})
        path = write(project / "train.py", BUG)
        client.open(path.as_uri(), BUG)
        [diagnostic] = client.diagnostics(path.as_uri())
        quick, noqa, fix_all = _actions(client, path.as_uri(), diagnostic)
        assert "edit" in quick  # cheap: made with the list
        assert "edit" not in noqa and "edit" not in fix_all  # read the whole file: made when picked
        resolved = client.request("codeAction/resolve", fix_all)
        assert apply_edits(BUG, resolved["edit"]["changes"][path.as_uri()]) == FIXED
        resolved = client.request("codeAction/resolve", noqa)
        commented = apply_edits(BUG, resolved["edit"]["changes"][path.as_uri()])
        assert commented.endswith("nn.Linear(2, 2)  # noqa: DEV101\n")
    finally:
        assert "Traceback" not in client.close()


def test_a_broken_configuration_is_said_and_the_server_goes_on(project: Path, client: Client) -> None:
    write(project / "pyproject.toml", '[tool.flake8-device]\nselect = ["NOPE"]\n')
    path = write(project / "train.py", BUG)
    client.open(path.as_uri(), BUG)
    message = client.wait_for(lambda m: m["method"] == "window/logMessage" and "NOPE" in m["params"]["message"])
    assert message["params"]["type"] == 1  # an error
    write(project / "pyproject.toml", "[tool.flake8-device]\n")
    mark = len(client.notifications)
    change = {"uri": (project / "pyproject.toml").as_uri(), "type": 2}
    client.notify("workspace/didChangeWatchedFiles", {"changes": [change]})
    assert [d["code"] for d in client.diagnostics(path.as_uri(), after=mark)] == ["DEV101"]
