"""A small Language Server Protocol client over pipes, for tests and the server benchmark.

It starts ``flake8-device server`` (``python -m flake8_device server``), speaks JSON-RPC with
``Content-Length`` framing, answers the server's own requests with null, and keeps every
notification it receives, so a test can wait for the one it expects.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


class Client:
    def __init__(self, cwd: Path, *, command: list[str] | None = None) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "flake8_device", "server"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._next_id = 0
        self._responses: dict[int, Any] = {}
        self.notifications: list[tuple[float, dict[str, Any]]] = []
        self._condition = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- wire ------------------------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            message = json.loads(stream.read(length))
            with self._condition:
                if "method" in message and "id" in message:  # a request of the server's
                    self._send({"id": message["id"], "result": None})
                elif "method" in message:
                    self.notifications.append((time.perf_counter(), message))
                else:
                    self._responses[message["id"]] = message
                self._condition.notify_all()

    # -- API ----------------------------------------------------------------------------------------
    def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        self._next_id += 1
        ident = self._next_id
        self._send({"id": ident, "method": method, "params": params})
        with self._condition:
            if not self._condition.wait_for(lambda: ident in self._responses, timeout):
                raise TimeoutError(f"no answer to {method} in {timeout} s")
            answer = self._responses.pop(ident)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def wait_for(
        self, accept: Callable[[dict[str, Any]], bool], timeout: float = 60, *, after: int = 0
    ) -> dict[str, Any]:
        """The first notification (from index ``after`` on) that ``accept`` takes."""
        with self._condition:
            found: list[dict[str, Any]] = []

            def ready() -> bool:
                found[:] = [m for _, m in self.notifications[after:] if accept(m)]
                return bool(found)

            if not self._condition.wait_for(ready, timeout):
                seen = [m["method"] for _, m in self.notifications]
                raise TimeoutError(f"no such notification in {timeout} s: {seen}")
            return found[0]

    def diagnostics(self, uri: str, *, version: int | None = None, after: int = 0, timeout: float = 60) -> list[Any]:
        message = self.wait_for(
            lambda m: m["method"] == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and (version is None or m["params"].get("version") == version),
            timeout,
            after=after,
        )
        return message["params"]["diagnostics"]

    def initialize(self, root: Path, capabilities: dict[str, Any] | None = None) -> Any:
        result = self.request(
            "initialize",
            {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities or {}, "workspaceFolders": None},
        )
        self.notify("initialized", {})
        return result

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}},
        )

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )

    def close(self) -> str:
        """Shut the server down; its stderr."""
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        except (TimeoutError, OSError, subprocess.TimeoutExpired):
            self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """``text`` after LSP text edits (ASCII text: characters are UTF-16 units)."""
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)

    def offset(position: dict[str, int]) -> int:
        return starts[position["line"]] + position["character"] if position["line"] < len(starts) else len(text)

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        text = text[: offset(edit["range"]["start"])] + edit["newText"] + text[offset(edit["range"]["end"]) :]
    return text
