"""Real files of the real-world cases, extracted from local mirrors at their pinned commits and linted.

A case's ``real`` entries (see README.md) name a repository, the bug's commit and the fix's,
a path, and the lines of the bug (``bad_lines``, at ``bad_commit``) and of the fix
(``fixed_lines``, at ``fix_commit``).  :func:`evaluate` extracts the file at both commits from
the bare mirror under ``$FLAKE8_DEVICE_MIRROR`` (default /work/.mirror, ``<owner>+<name>/repo``)
into bench/.work/real/, lints it with the default rule set and answers (found, false alarm):

- found: a default-on finding on one of ``bad_lines`` at ``bad_commit``;
- false alarm: a default-on finding on one of ``fixed_lines`` at ``fix_commit``.

The file is linted in the context of its repository, as far as that is cheap: its sibling
``.py`` files (same directory) are extracted and linted in the same run, the repository's
modules it imports are extracted beside it (not linted: the linter reads their functions, as
in a user's checkout; :func:`imported_modules`), the pin files of
the directories above it (requirements, lock files, pyproject.toml, setup.cfg) are extracted
so that the advisories read the project's own releases, and an empty ``.git`` marks the
repository root, where the linter's pin lookup stops.  Optional entry keys: ``fix_path``
(the file's path at ``fix_commit`` when it moved), ``versions`` (``--device-versions``,
e.g. ``"deepspeed=0.14.2"``; ``fix_versions`` for the fix's side when the fix is a release),
``edit`` (``[[old, new], ...]`` text replacements made on both
sides before linting, line count unchanged: for a configuration the project documents
rather than ships).  In a notebook a line is written ``"CELL:LINE"``.

A missing mirror, commit or path raises :class:`MirrorMissing` with one line saying what to
fetch.  ``python3 bench/realworld/realfiles.py [CASE_DIR ...]`` prints the entries' results.
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from corpus import WORK, MirrorError, mirror, show

MirrorMissing = MirrorError  # what callers catch: a missing mirror, commit or path, with what to fetch
REAL = WORK / "real"
PIN_FILES = ("poetry.lock", "uv.lock", "pdm.lock", "pylock.toml", "Pipfile.lock", "pyproject.toml", "setup.cfg")


def _tree(git_dir: Path, commit: str, directory: str) -> list[str]:
    """Blob paths directly in ``directory`` (``""`` for the root) at ``commit``."""
    spec = f"{commit}:{directory}" if directory else f"{commit}:"
    result = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-z", spec], capture_output=True, check=False)
    if result.returncode != 0:
        return []
    names = []
    for entry in result.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, _ = meta.split()
        if kind == b"blob" and mode != b"120000":
            names.append(f"{directory}/{name.decode()}" if directory else name.decode())
    return names


def _all_python_files(git_dir: Path, commit: str) -> set[str]:
    """Every ``.py`` blob path of the repository at ``commit``."""
    result = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "--name-only", commit],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        return set()
    return {name.decode() for name in result.stdout.split(b"\0") if name.endswith(b".py")}


def imported_modules(
    text: bytes, path: str, available: set[str], read: Callable[[str], bytes] | None = None
) -> list[str]:
    """The repository's ``.py`` files that the file at ``path`` imports (one level, not what they
    import in turn), found where the linter looks for them (``flake8_device.project``): relative
    imports from its package, absolute ones from its folder or the repository's root; and (where
    ``read`` gives a module's text) the module a package re-exports an imported name from
    (``from .utils import get_device``).  They are what a user's checkout holds beside the file:
    the linter reads the functions they define."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    parts = path.split("/")[:-1]
    found: list[str] = []

    def ancestors(package: str) -> list[str]:
        # The file's folder, the parent of the folder named like the package the import starts
        # with (``runner/app/x.py`` importing ``app.utils``), the repository's root.
        named = [i for i, part in enumerate(parts) if part == package]
        inside = "/".join(parts[: named[-1]]) if named else "/".join(parts)
        return list(dict.fromkeys(("/".join(parts), inside, "")))

    def add(base: str, dotted: list[str]) -> list[str]:
        stem = "/".join(p for p in (base, *dotted) if p)
        added = []
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            if candidate in available and candidate != path:
                added.append(candidate)
                if candidate not in found:
                    found.append(candidate)
        return added

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                for base in ancestors(alias.name.split(".")[0]):
                    add(base, alias.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            module = node.module.split(".") if node.module else []
            if node.level:
                if node.level - 1 > len(parts):
                    continue
                bases = ["/".join(parts[: len(parts) - (node.level - 1)])]
            else:
                bases = ancestors(module[0]) if module else [""]
            modules: list[str] = []  # (this import's, found before or not)
            for base in bases:
                modules += add(base, module)
                for alias in node.names:  # ``from pkg import submodule``
                    add(base, [*module, alias.name])
            if read is not None:
                for alias in node.names:
                    for source in _reexporting(modules, alias.name, available, read):
                        if source not in found:
                            found.append(source)
    return found


def _reexporting(modules: list[str], name: str, available: set[str], read: Callable[[str], bytes]) -> list[str]:
    """The module that one of ``modules`` imports ``name`` from at its top level (a re-export)."""
    for module in modules:
        try:
            tree = ast.parse(read(module))
        except (SyntaxError, ValueError, MirrorError):
            continue
        for statement in tree.body:
            if isinstance(statement, ast.ImportFrom) and any((a.asname or a.name) == name for a in statement.names):
                return imported_modules(ast.unparse(statement).encode(), module, available)
        for statement in tree.body:  # ``from .mel_loss import *``: the one of them that defines it
            if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
                for source in imported_modules(ast.unparse(statement).encode(), module, available):
                    if _defines(source, name, read):
                        return [source]
    return []


def _defines(module: str, name: str, read: Callable[[str], bytes]) -> bool:
    """Does ``module`` define ``name`` (a function or class) at its top level?"""
    try:
        tree = ast.parse(read(module))
    except (SyntaxError, ValueError, MirrorError):
        return False
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(s, kinds) and s.name == name for s in tree.body)


def _is_pin_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name in PIN_FILES or (name.endswith(".txt") and name.startswith(("requirements", "constraints")))


def extract(
    repo: str,
    commit: str,
    path: str,
    *,
    siblings: bool = True,
    edit: Iterable[tuple[str, str]] = (),
    dest: Path | None = None,
) -> tuple[Path, list[Path]]:
    """Write ``path`` at ``commit`` (and its context) under ``dest``; returns (the file, its siblings).

    ``dest`` defaults to bench/.work/real/<owner>+<name>@<commit[:12]>-<hash of path and edit>;
    it is rebuilt each time.
    """
    git_dir = mirror(repo, commit)
    edit = list(edit)
    tag = hashlib.sha1(json.dumps([path, edit]).encode()).hexdigest()[:8]
    root = dest or REAL / f"{repo.replace('/', '+')}@{commit[:12]}-{tag}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / ".git").mkdir()  # the repository root for the linter's pin lookup

    text = show(git_dir, commit, path)
    for old, new in edit:
        if old.encode() not in text:
            raise MirrorMissing(f"{repo} {commit[:12]} {path}: the edit's text {old!r} is not in the file")
        text = text.replace(old.encode(), new.encode())
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text)

    directory = path.rsplit("/", 1)[0] if "/" in path else ""
    parts = directory.split("/") if directory else []
    context: list[str] = []
    for depth in range(len(parts) + 1):
        context += [p for p in _tree(git_dir, commit, "/".join(parts[:depth])) if _is_pin_file(p)]
    if siblings:
        context += [p for p in _tree(git_dir, commit, directory) if p.endswith(".py") and p != path]
    available = _all_python_files(git_dir, commit)
    imported = imported_modules(text, path, available, lambda name: show(git_dir, commit, name))
    imported = [p for p in imported if p not in context]
    written = []
    for name in [*context, *imported]:
        try:
            data = show(git_dir, commit, name)
        except MirrorError:
            continue  # a blob the snapshot lacks (large files): context only
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
        if name.endswith(".py") and name not in imported:
            written.append(root / name)
    return target, written


def lint(files: list[Path], cwd: Path, versions: str | None = None) -> list[dict[str, Any]]:
    """Default-on findings of the CLI on ``files`` (paths in the findings are relative to ``cwd``)."""
    command = [sys.executable, "-m", "flake8_device", "--isolated", "--format", "json", "--exit-zero"]
    if versions:
        command += ["--device-versions", versions]
    command += [str(f.relative_to(cwd)) for f in files]
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    try:
        findings: list[dict[str, Any]] = json.loads(result.stdout)
    except ValueError:
        raise SystemExit(f"flake8-device failed ({result.returncode}): {result.stderr[-2000:]}") from None
    return findings


def _on(finding: Mapping[str, Any], lines: Iterable[int | str]) -> bool:
    for line in lines:
        if isinstance(line, str) and ":" in line:
            cell, _, number = line.partition(":")
            if finding.get("cell") == int(cell) and finding["line"] == int(number):
                return True
        elif finding.get("cell") is None and finding["line"] == int(line):
            return True
    return False


@dataclass
class Side:
    """One side (the bug's commit or the fix's) of an entry, linted."""

    commit: str
    path: Path  # the extracted file
    lines: list[int | str]
    findings: list[dict[str, Any]] = field(default_factory=list)  # on the file, all lines

    @property
    def hits(self) -> list[dict[str, Any]]:
        return [f for f in self.findings if _on(f, self.lines)]

    def describe(self) -> str:
        codes = ", ".join(f"{f['code']}@{f['line']}" for f in self.hits) or "nothing"
        return f"{codes} on lines {self.lines} ({len(self.findings)} findings in the file)"


@dataclass
class Result:
    entry: Mapping[str, Any]
    bad: Side
    fixed: Side

    @property
    def found(self) -> bool:
        return bool(self.bad.hits)

    @property
    def false_alarm(self) -> bool:
        return bool(self.fixed.hits)


def lint_side(entry: Mapping[str, Any], which: str, *, siblings: bool = True) -> Side:
    """Extract and lint one side of an entry: ``which`` is ``"bad"`` or ``"fix"``."""
    commit = entry["bad_commit"] if which == "bad" else entry["fix_commit"]
    path = entry["path"] if which == "bad" else entry.get("fix_path", entry["path"])
    lines = entry["bad_lines"] if which == "bad" else entry["fixed_lines"]
    edit = [tuple(pair) for pair in entry.get("edit", [])]
    target, others = extract(entry["repo"], commit, path, siblings=siblings, edit=edit)
    root = target.parents[len(Path(path).parts) - 1]
    versions = entry.get("versions") if which == "bad" else entry.get("fix_versions", entry.get("versions"))
    findings = lint([target, *others], root, versions)
    mine = [f for f in findings if Path(f["filename"]) == Path(path)]
    return Side(commit, target, list(lines), mine)


def measure(entry: Mapping[str, Any], *, siblings: bool = True) -> Result:
    """Both sides of an entry, extracted and linted (MirrorMissing when the mirror lacks them)."""
    return Result(entry, lint_side(entry, "bad", siblings=siblings), lint_side(entry, "fix", siblings=siblings))


def evaluate(entry: Mapping[str, Any]) -> tuple[bool, bool]:
    """(found, false alarm) for one ``real`` entry: a default-on finding on ``bad_lines`` at
    ``bad_commit``; one on ``fixed_lines`` at ``fix_commit``."""
    result = measure(entry)
    return result.found, result.false_alarm


def main(argv: list[str]) -> int:
    cases = [Path(a) for a in argv] or sorted(p for p in (HERE / "cases").iterdir() if (p / "case.json").exists())
    status = 0
    for case in cases:
        for entry in json.loads((case / "case.json").read_text()).get("real", []):
            label = f"{case.name}: {entry['repo']} {entry['path']}"
            try:
                result = measure(entry)
            except MirrorMissing as error:
                print(f"{label}: not measured: {error}")
                status = 1
                continue
            print(
                f"{label}: {'found' if result.found else 'missed'}"
                f"{', FALSE ALARM on the fix' if result.false_alarm else ''}"
            )
            print(f"    bad {entry['bad_commit'][:10]}: {result.bad.describe()}")
            print(f"    fix {entry['fix_commit'][:10]}: {result.fixed.describe()}")
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
