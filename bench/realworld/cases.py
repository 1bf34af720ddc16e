"""The benchmark's cases: loading, validating, linting and the meta-device oracle.

Shared by ``check.py`` (validating new cases), ``run.py`` (the figures) and
``tests/test_realworld.py`` (the recall floor in the normal test suite).
See README.md beside this file for the format.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterator
from typing import Any

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
CLASSES = HERE / "classes.json"

SHAPES = frozenset(
    {"multi-function", "class", "branch", "loop", "container", "attribute", "helper", "two-file", "framework"}
)
META_VERDICTS = frozenset({"device-error", "not-runnable"})
CUDA_VERDICTS = frozenset({"device-error", "runs", None})
SHA = re.compile(r"[0-9a-f]{40}")
CASE_ID = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)+")

# What PyTorch says when devices disagree (CUDA's wording and the meta device's).
DEVICE_ERROR = re.compile(
    r"Expected all tensors to be on the same device|is not on the expected device|not at the same device|"
    r"Input type .* and weight type .* should be the same|Expected .* device|"
    r"Expected tensor to have \S+ Device|expected to be in the same device|"
    r"indices should be either on|must have its parameters and buffers on device|"
    r"same device|device type|on different devices|on device|"
    # the legacy typed constructors (torch.LongTensor(..., device=...)) make CPU tensors only
    r"legacy constructor expects device type"
)


def known_classes() -> dict[str, dict[str, Any]]:
    return json.loads(CLASSES.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Case:
    folder: Path

    @property
    def id(self) -> str:
        return self.folder.name

    @property
    def data(self) -> dict[str, Any]:
        return json.loads((self.folder / "case.json").read_text(encoding="utf-8"))

    @property
    def two_file(self) -> bool:
        return (self.folder / "bad").is_dir()

    def side(self, which: str) -> dict[str, Path]:
        """The files of ``bad`` or ``good``, by the name ``report`` uses (``bad.py`` / ``model.py``)."""
        if self.two_file:
            return {p.name: p for p in sorted((self.folder / which).glob("*.py"))}
        return {f"{which}.py": self.folder / f"{which}.py"}

    def good_name(self, bad_name: str) -> str:
        return "good.py" if bad_name == "bad.py" else bad_name

    @property
    def entry(self) -> str:
        return str(self.data.get("entry", "bad.py"))

    @property
    def runnable(self) -> bool:
        return self.data.get("meta", {}).get("bad") == "device-error"


def all_cases() -> list[Case]:
    return sorted((Case(p.parent) for p in CASES.glob("*/case.json")), key=lambda c: c.id)


def validate(case: Case) -> list[str]:
    """Problems with the case's layout and ``case.json`` (empty when it is well formed)."""
    problems: list[str] = []
    try:
        data = case.data
    except (OSError, ValueError) as error:
        return [f"case.json: {error}"]
    if not CASE_ID.fullmatch(case.id):
        problems.append(f"folder name {case.id!r} is not kebab case")
    for key in ("project", "class", "title", "links", "error", "shape", "report", "meta", "cuda"):
        if key not in data:
            problems.append(f"case.json lacks {key!r}")
    problems += _driver_problems(case)
    if problems:
        return problems
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", data["project"]):
        problems.append(f"project {data['project']!r} is not owner/name")
    if data["project"].lower().startswith("pytorch/pytorch"):
        problems.append("bugs inside PyTorch itself do not count")
    classes = known_classes()
    if data["class"] not in classes and not data.get("class_description"):
        problems.append(f"class {data['class']!r} is unknown: add 'class_description' for a new class")
    if not data["links"] or not all(str(link).startswith("https://") for link in data["links"]):
        problems.append("links must be https URLs, at least one")
    unknown_shapes = set(data["shape"]) - SHAPES
    if unknown_shapes:
        problems.append(f"unknown shape words {sorted(unknown_shapes)}")
    for which in ("bad", "good"):
        files = case.side(which)
        if not files or not all(p.exists() for p in files.values()):
            problems.append(f"missing {which} files")
            continue
        for name, path in files.items():
            try:
                compile(path.read_text(encoding="utf-8"), str(path), "exec")
            except SyntaxError as error:
                problems.append(f"{which}/{name} does not parse: {error}")
    bad_files = case.side("bad")
    report = data["report"]
    if not isinstance(report, dict) or not report:
        problems.append("report must map file names to lines")
    else:
        for name, lines in report.items():
            if name not in bad_files:
                problems.append(f"report names {name!r}, which is not a bad file")
                continue
            count = len(bad_files[name].read_text(encoding="utf-8").splitlines())
            if not lines or not all(isinstance(n, int) and 1 <= n <= count for n in lines):
                problems.append(f"report lines for {name} must be line numbers within the file")
    meta = data["meta"]
    if meta.get("bad") not in META_VERDICTS:
        problems.append(f"meta.bad must be one of {sorted(META_VERDICTS)}")
    elif meta["bad"] == "not-runnable" and not meta.get("why"):
        problems.append("meta.why must say why the case cannot run under the meta device")
    cuda = data["cuda"]
    if not isinstance(cuda, dict) or any(cuda.get(k) not in CUDA_VERDICTS for k in ("bad", "good", "fixed")):
        problems.append("cuda must hold bad/good/fixed, each 'device-error', 'runs' or null")
    for real in data.get("real", []):
        for key in ("repo", "bad_commit", "fix_commit", "path", "bad_lines", "fixed_lines"):
            if key not in real:
                problems.append(f"real entry lacks {key!r}")
        for key in ("bad_commit", "fix_commit"):
            if key in real and not SHA.fullmatch(str(real[key])):
                problems.append(f"real.{key} must be a full 40-hex commit")
    return problems


def _driver_problems(case: Case) -> list[str]:
    """A ``cuda_driver.py`` (bench/cuda) must define ``run(program, device)``."""
    path = case.folder / "cuda_driver.py"
    if not path.exists():
        return []
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError as error:
        return [f"cuda_driver.py: {error}"]
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "run":
            if [a.arg for a in node.args.args] == ["program", "device"]:
                return []
            return ["cuda_driver.py: run must take (program, device)"]
    return ["cuda_driver.py defines no run(program, device)"]


def run_meta(case: Case, which: str) -> str | None:
    """Run ``run(meta)`` of the entry file of one side: None when it completes, else the error text."""
    import runpy

    import torch

    files = case.side(which)
    entry = case.entry if which == "bad" else case.good_name(case.entry)
    path = files[entry]
    try:
        with program_folder(str(path.parent)):
            namespace = runpy.run_path(str(path), run_name=f"case_{which}")
            namespace["run"](torch.device("meta"))
    except Exception as error:  # noqa: BLE001 - the oracle reports whatever the program raised
        return f"{type(error).__name__}: {error}"
    return None


@contextlib.contextmanager
def program_folder(folder: str) -> Iterator[None]:
    """``folder`` importable while a case runs, and its modules forgotten after (the bad and good
    sides of a folder case have modules of the same names)."""
    before = set(sys.modules)
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        sys.path.remove(folder)
        for name in set(sys.modules) - before:
            module = sys.modules.get(name)
            if getattr(module, "__file__", None) and str(module.__file__).startswith(folder):
                del sys.modules[name]


def meta_problems(case: Case) -> list[str]:
    """The meta oracle's disagreements with ``case.json`` (a runnable bad must raise a device error,
    and its good side must complete)."""
    if not case.runnable:
        return []
    problems = []
    bad = run_meta(case, "bad")
    if bad is None:
        problems.append("meta: bad ran without error")
    elif not DEVICE_ERROR.search(bad):
        problems.append(f"meta: bad raised a non-device error: {bad}")
    good = run_meta(case, "good")
    if good is not None:
        problems.append(f"meta: good raised: {good}")
    return problems


def lint(paths: list[Path]) -> dict[Path, list[tuple[int, int, str]]]:
    """Default-on findings ``(line, column, code)`` per file, as the CLI reports them (the files of one
    side are checked together, so that a project-aware analysis sees all of them)."""
    from flake8_device.configuration.analysis import AnalysisConfig
    from flake8_device.registry import default_off_codes
    from flake8_device.runner import Options, check_file
    from flake8_device.selection import Selection

    options = Options(Selection(default_off=default_off_codes()), AnalysisConfig())
    found: dict[Path, list[tuple[int, int, str]]] = {}
    for path in paths:
        outcome = check_file((str(path), options))
        found[path] = sorted((f.line, f.column, f.code) for f in outcome.findings)
    return found


def detected(case: Case) -> tuple[bool, list[str]]:
    """Whether a default-on finding lands on a ``report`` line, and every finding on bad and good."""
    bad, good = case.side("bad"), case.side("good")
    bad_found = lint(list(bad.values()))
    good_found = lint(list(good.values()))
    hit = any(
        line in set(case.data["report"].get(name, ())) for name, path in bad.items() for line, _, _ in bad_found[path]
    )
    lines = [f"bad/{p.name}:{line}:{col}: {code}" for p, items in bad_found.items() for line, col, code in items]
    lines += [f"good/{p.name}:{line}:{col}: {code}" for p, items in good_found.items() for line, col, code in items]
    return hit, lines
