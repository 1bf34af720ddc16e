"""A one-line progress indicator for long runs on a terminal.

It appears only when stderr is a terminal, not in CI (``CI`` set) nor under
pre-commit (``PRE_COMMIT`` set; its output is captured anyway), and only once a
run has taken longer than :data:`DELAY` seconds, so that quick runs never
flicker.  It is redrawn in place (``\\r``) and erased at the end.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import TextIO

DELAY = 1.5
# Tests shorten the delay (a pty test cannot wait for a slow run).
DELAY_VARIABLE = "FLAKE8_DEVICE_PROGRESS_DELAY"
_CLEAR_LINE = "\r\033[K"


def wanted(stream: TextIO, environ: Mapping[str, str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not environ.get("CI") and not environ.get("PRE_COMMIT")


class Progress:
    """``flake8-device: 120/1004 files`` on stderr, once the run is slow enough to need it."""

    def __init__(self, stream: TextIO, delay: float | None = None) -> None:
        self.stream = stream
        self.delay = float(os.environ.get(DELAY_VARIABLE, DELAY)) if delay is None else delay
        self.started = time.monotonic()
        self.shown = False
        self.last_drawn = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.started < self.delay:
            return
        if self.shown and done != total and now - self.last_drawn < 0.1:
            return  # a terminal needs no more than ten redraws a second
        self.shown, self.last_drawn = True, now
        self.stream.write(f"{_CLEAR_LINE}flake8-device: {done}/{total} files")
        self.stream.flush()

    def clear(self) -> None:
        if self.shown:
            self.stream.write(_CLEAR_LINE)
            self.stream.flush()
            self.shown = False
