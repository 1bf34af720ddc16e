"""Fixes that never break a program, checked on real code: pyflakes before and after ``--fix --unsafe-fixes``.

One command (from the repository root, after ``scripts/test.sh`` made .venv):

    .venv/bin/python bench/fixcheck/run.py                      # the full library corpus
    .venv/bin/python bench/fixcheck/run.py --size small
    .venv/bin/python bench/fixcheck/run.py --corpus DIR         # a corpus fetched elsewhere (with src/<project>)
    .venv/bin/python bench/fixcheck/run.py --apps DIR           # also an application corpus (every project in it)

The Python files and notebooks of the corpus are copied to a temporary directory,
where the CLI applies every fix, safe and unsafe, of every rule (the off-by-default
ones too).  Each changed file is then checked with pyflakes before and after: a fix
must add no undefined name, no local used before its assignment, and no other
F8xx problem (redefinitions, unused variables).  It prints the files, the fixes
applied and every new pyflakes message (the target is 0), and exits 1 on any.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pyflakes.api
import pyflakes.messages as messages
import pyflakes.reporter

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from corpus import corpus, line_count, projects  # noqa: E402 - shared by the benchmarks

# The pyflakes messages flake8 reports as F8xx: names and bindings a fix could break.
F8XX = {
    messages.RedefinedWhileUnused: "F811",
    messages.UndefinedName: "F821",
    messages.UndefinedExport: "F822",
    messages.UndefinedLocal: "F823",
    messages.DuplicateArgument: "F831",
    messages.UnusedVariable: "F841",
    messages.UnusedAnnotation: "F842",
}
_MAGIC = re.compile(r"^[ \t]*[%!]")


class _Collect(pyflakes.reporter.Reporter):
    def __init__(self) -> None:
        super().__init__(None, None)  # type: ignore[arg-type]
        self.found: list[messages.Message] = []
        self.broken = False

    def flake(self, message: messages.Message) -> None:
        self.found.append(message)

    def syntaxError(self, *args: object) -> None:  # noqa: N802 - pyflakes' name
        self.broken = True

    def unexpectedError(self, *args: object) -> None:  # noqa: N802
        self.broken = True


def pyflakes_problems(text: str, name: str) -> tuple[Counter[str], bool]:
    """F8xx messages as ``code message`` (positions left out: fixes move lines), and whether it parsed."""
    report = _Collect()
    pyflakes.api.check(text, name, report)
    found: Counter[str] = Counter()
    for message in report.found:
        code = F8XX.get(type(message))
        if code is not None:
            found[f"{code} {message.message % message.message_args}"] += 1
    return found, not report.broken


def notebook_program(data: bytes) -> str:
    """A notebook's code cells as one program, IPython lines blanked (pyflakes reads Python only)."""
    cells = json.loads(data).get("cells", [])
    chunks = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        if text.lstrip().startswith("%%"):
            continue
        chunks.append("\n".join("pass" if _MAGIC.match(line) else line for line in text.splitlines()))
    return "\n\n".join(chunks) + "\n"


def program_text(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".ipynb":
        return notebook_program(data)
    return data.decode("utf-8", errors="replace")


def copy_tree(sources: list[Path], destination: Path) -> list[Path]:
    copied = []
    for source in sources:
        for path in sorted([*source.rglob("*.py"), *source.rglob("*.ipynb")]):
            if "site-packages" in path.parts or not path.is_file():
                continue
            target = destination / source.name / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            copied.append(target)
    return copied


def apply_fixes(tree: Path, jobs: int) -> tuple[int, str]:
    command = [sys.executable, "-m", "flake8_device", "--select", "DEV", "--fix", "--unsafe-fixes", "-j", str(jobs)]
    result = subprocess.run([*command, "."], cwd=tree, capture_output=True, text=True, check=False)
    return result.returncode, result.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=("small", "full"), default="full")
    parser.add_argument("--corpus", help="a fetched corpus directory (with src/<project>)")
    parser.add_argument("--apps", help="an application corpus directory (with src/<project>): all its projects")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args()
    started = time.monotonic()
    source = corpus(args.size, args.corpus) / "src"
    roots = [source / name for name in projects(source, args.size)]
    if args.apps:
        apps = Path(args.apps).resolve() / "src"
        roots += sorted(p for p in apps.iterdir() if p.is_dir())
    with tempfile.TemporaryDirectory(prefix="fixcheck-") as scratch:
        tree = Path(scratch)
        originals = {}
        copied = copy_tree(roots, tree)
        for path in copied:
            originals[path] = path.read_bytes()
        python = [p for p in copied if p.suffix == ".py"]
        lines = line_count(python)
        code, stderr = apply_fixes(tree, args.jobs)
        if code not in (0, 1, 2) or "Traceback" in stderr:
            print(f"the CLI failed (exit {code}):\n{stderr[-3000:]}")
            return 1
        changed = [p for p in copied if p.read_bytes() != originals[p]]
        new: list[str] = []
        newly_broken: list[str] = []
        for path in changed:
            name = str(path.relative_to(tree))
            after_text = program_text(path)
            path.write_bytes(originals[path])
            before_text = program_text(path)
            before, parsed_before = pyflakes_problems(before_text, name)
            after, parsed_after = pyflakes_problems(after_text, name)
            if parsed_before and not parsed_after:
                newly_broken.append(name)
            for problem in (after - before).elements():
                new.append(f"{name}: {problem}")
    fixed = re.search(r"Fixed (\d+)", stderr)
    print(f"projects: {', '.join(r.name for r in roots)}")
    print(f"files: {len(python)} Python files ({lines:,} lines), {len(copied) - len(python)} notebooks")
    print(f"fixes applied (--fix --unsafe-fixes, every rule): {fixed.group(1) if fixed else '0'}")
    print(f"files changed: {len(changed)}")
    print(f"files that no longer parse: {len(newly_broken)}")
    for name in newly_broken:
        print(f"  {name}")
    print(f"new pyflakes F8xx messages: {len(new)}")
    for line in new:
        print(f"  {line}")
    print(f"({time.monotonic() - started:.0f} s)")
    return 1 if new or newly_broken else 0


if __name__ == "__main__":
    sys.exit(main())
