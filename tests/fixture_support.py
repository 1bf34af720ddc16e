"""Reading fixtures: expected findings, runnable cases, and the files a fix must produce.

A fixture ``tests/fixtures/<family>/<CODE>.py`` marks every line that must be
reported with a trailing ``# expect: CODE:COL`` comment (1-based column, as
flake8 prints it; several separated by commas) and ends with an ``# OK``
section of look-alikes that must stay silent.  Functions named ``run_*``
take a ``device`` argument and are executed by the meta-device oracle.
Advisory fixtures name the releases they are linted under with a
``# device-versions: name=version, ...`` line (the ``--device-versions`` syntax).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
# The real-world benchmark's cases (bench/realworld/cases.py): its loader, linting, meta oracle and
# the wording of device errors, which the fixtures' oracle shares.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "realworld"))
import cases as realworld  # noqa: E402, F401  (re-exported for the tests)
EXPECT = re.compile(r"#\s*expect:\s*(?P<items>[A-Z]+\d+:\d+(?:\s*,\s*[A-Z]+\d+:\d+)*)\s*$")
OK_MARKER = re.compile(r"^# OK\b", re.M)
# Advisory fixtures name the releases they assume: ``# device-versions: deepspeed=0.14.2``.
DEVICE_VERSIONS = re.compile(r"^# device-versions:\s*(?P<items>.+)$", re.M)


@dataclass(frozen=True)
class Fixture:
    path: Path

    @property
    def code(self) -> str:
        return self.path.name.split(".")[0]

    @property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def variant(self, suffix: str) -> Path:
        return self.path.with_name(f"{self.code}.{suffix}.py")

    def expected(self) -> set[tuple[int, int, str]]:
        found = set()
        for number, line in enumerate(self.text.splitlines(), start=1):
            match = EXPECT.search(line)
            if match:
                for item in match.group("items").split(","):
                    code, col = item.strip().split(":")
                    found.add((number, int(col), code))
        return found

    @property
    def device_versions(self) -> tuple[tuple[str, str], ...]:
        match = DEVICE_VERSIONS.search(self.text)
        items = match.group("items").split(",") if match else []
        return tuple((name.strip(), version.strip()) for name, _, version in (i.partition("=") for i in items))

    def ok_line(self) -> int | None:
        match = OK_MARKER.search(self.text)
        return None if match is None else self.text.count("\n", 0, match.start()) + 1

    def runnable_cases(self) -> list[tuple[str, list[tuple[int, int]]]]:
        """Each ``run_*`` function with the line spans it reaches: its own, and those of the
        top-level classes and functions it uses (transitively), where a finding may live."""
        tree = ast.parse(self.text)
        spans = {
            node.name: (node.lineno, node.end_lineno or node.lineno)
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))
        }
        uses = {
            node.name: {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in spans} - {node.name}
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))
        }
        cases = []
        for name in spans:
            if not name.startswith("run_"):
                continue
            reached, todo = {name}, [name]
            while todo:
                for used in uses[todo.pop()]:
                    if used not in reached:
                        reached.add(used)
                        todo.append(used)
            cases.append((name, sorted(spans[n] for n in reached)))
        return cases


def all_fixtures() -> list[Fixture]:
    return sorted(
        (Fixture(p) for p in FIXTURES.glob("*/*.py") if p.name.count(".") == 1),
        key=lambda f: f.code,
    )
