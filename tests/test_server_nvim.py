"""The language server with a real client: Neovim's built-in LSP client, headless.

Neovim comes from Debian's packages (0.7 there: ``vim.lsp.start_client`` and
``vim.lsp.buf_request_sync``); ``scripts/test.sh`` installs it where apt can, and this test is
skipped, saying so, where there is no ``nvim``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the server extra (pygls) is not installed")

from cli_support import BUG, run, write  # noqa: E402

SCRIPT = Path(__file__).parent / "editors" / "nvim_client.lua"


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (apt-get install neovim)")
def test_neovim_gets_the_diagnostic_applies_the_quick_fix_and_sees_a_new_bug(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "train.py", BUG)
    write(tmp_path / "expected.py", BUG)
    run("--fix", "expected.py", cwd=tmp_path)
    environment = {**os.environ, "PROJECT": str(tmp_path), "PYTHON": sys.executable}
    done = subprocess.run(
        ["nvim", "--headless", "--clean", "-c", f"luafile {SCRIPT}"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    result = (tmp_path / "nvim-result.txt").read_text().split("\n")
    split = result.index("--- buffer after the quick fix")
    steps, buffer = result[:split], result[split + 1 :]
    assert steps[0] == "diagnostics DEV101", (steps, done.stderr)
    assert "action DEV101: Move it too: `.to(device)`" in steps
    assert "applied" in steps
    assert "after fix " in steps
    assert "after edit DEV204" in steps, steps
    assert "\n".join(buffer).rstrip("\n") == (tmp_path / "expected.py").read_text().rstrip("\n")
