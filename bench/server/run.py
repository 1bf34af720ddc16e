"""Latency of the language server (``flake8-device server``) on a real training script.

One command (from the repository root, after ``scripts/test.sh``):

    .venv/bin/python bench/server/run.py                 # pytorch/examples' imagenet/main.py (530 lines)
    .venv/bin/python bench/server/run.py --file PATH     # any file

It starts the server as an editor does (stdio), opens the file (the cold first request: the
rules imported, the engine built, the first lint), then makes 20 edits one after the other,
each a change of one statement in the middle of the file (the file stays valid), and measures the time from sending each
``didChange`` to receiving the diagnostics of that version; then 20 code-action requests on the
first finding's line (or the first line).  It prints the cold time, the median and the range of
each, and the targets: diagnostics within 0.15 s of ``didChange`` (median), code actions within
0.05 s.  Every edit waits out the server's debounce (``DEBOUNCE_S`` in flake8_device/server.py),
which is part of what an editor sees.

The default file comes from the local snapshot of pytorch/examples at the commit pinned in
``bench/apps/projects.tsv`` (``FLAKE8_DEVICE_MIRROR``, see bench/corpus.py).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
from corpus import mirror, show  # noqa: E402
from lsp_client import Client  # noqa: E402

EXAMPLES = ("pytorch/examples", "77f55b912142e11fcfdf5b530231fb9c52f181e8", "imagenet/main.py")
EDITS = 20
DIAGNOSTICS_TARGET_S = 0.15
ACTIONS_TARGET_S = 0.05


def _text(file: str | None) -> tuple[str, str]:
    if file:
        return Path(file).read_text(encoding="utf-8"), file
    repo, commit, path = EXAMPLES
    return show(mirror(repo, commit), commit, path).decode("utf-8"), f"{repo}@{commit[:7]}:{path}"


def _summary(label: str, times: list[float], target: float) -> str:
    median = statistics.median(times)
    verdict = "meets" if median <= target else "misses"
    return (
        f"{label}: median {median * 1000:.0f} ms (range {min(times) * 1000:.0f}-{max(times) * 1000:.0f} ms, "
        f"{len(times)} runs); target {target * 1000:.0f} ms: {verdict}"
    )


def _middle_statement(text: str) -> int:
    """The 0-based line of the one-line simple statement nearest the middle of the file (replacing
    it by another at its indentation keeps the file valid)."""
    simple = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Pass, ast.Return)
    candidates = [
        node.lineno - 1
        for node in ast.walk(ast.parse(text))
        if isinstance(node, simple) and node.lineno == node.end_lineno
    ]
    middle = len(text.splitlines()) // 2
    return min(candidates, key=lambda line: abs(line - middle))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", help="the file to edit (default: pytorch/examples' imagenet/main.py)")
    args = parser.parse_args()
    text, label = _text(args.file)
    lines = text.splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / ".git").mkdir()
        path = project / "train.py"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        client = Client(project)
        try:
            start = time.perf_counter()
            # As VS Code does: the edits of "fix all" and "add noqa" are resolved when picked.
            client.initialize(project, {"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}})
            client.open(uri, text)
            first = client.diagnostics(uri, version=1, timeout=120)
            cold = time.perf_counter() - start
            middle = _middle_statement(text)
            indent = lines[middle][: len(lines[middle]) - len(lines[middle].lstrip())]
            changes: list[float] = []
            for version in range(2, 2 + EDITS):
                # One statement replaced by another at its own indentation: the file stays valid.
                edited = lines[:middle] + [f"{indent}edit_marker_{version} = {version}\n"] + lines[middle + 1 :]
                ast.parse("".join(edited))
                mark = len(client.notifications)
                sent = time.perf_counter()
                client.change(uri, "".join(edited), version)
                client.diagnostics(uri, version=version, after=mark, timeout=120)
                arrived = next(
                    t for t, m in client.notifications[mark:] if m["method"].endswith("publishDiagnostics")
                    and m["params"].get("version") == version
                )
                changes.append(arrived - sent)
            line = first[0]["range"]["start"]["line"] if first else 0
            where = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}
            actions: list[float] = []
            for _ in range(EDITS):
                sent = time.perf_counter()
                client.request(
                    "textDocument/codeAction",
                    {"textDocument": {"uri": uri}, "range": where, "context": {"diagnostics": []}},
                )
                actions.append(time.perf_counter() - sent)
        finally:
            client.close()
    print(f"file: {label} ({len(lines)} lines, {len(first)} findings)")
    print(f"cold: initialize, open and first diagnostics in {cold:.2f} s")
    print(_summary("diagnostics after didChange", changes, DIAGNOSTICS_TARGET_S))
    print(_summary("code actions", actions, ACTIONS_TARGET_S))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
