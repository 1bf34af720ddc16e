"""Build the application corpus: the code of pinned repositories, from local mirrors.

    .venv/bin/python bench/apps/extract.py                  # into bench/.work/apps
    .venv/bin/python bench/apps/extract.py --dest DIR --mirror DIR

``bench/apps/projects.tsv`` pins each project (name, repository, commit, subdirectory, and
a note where a repository stands in for another).  The files are read with git from the
bare mirrors under ``$FLAKE8_DEVICE_MIRROR`` (default /work/.mirror, ``<owner>+<name>/repo``);
a missing mirror or commit stops with one line naming what to fetch.  The result is
``DEST/src/<project>/<path in the repository>`` and ``DEST/MANIFEST.tsv`` (project, commit,
files, lines, repo, subdir, notebooks, deepspeed_configs), where files and lines count the
.py files and notebooks (lines: the .py lines plus the notebooks' code-cell lines).  Beside
them are kept the DeepSpeed JSON configurations (linted too) and the pin files
(requirements, lock files, pyproject.toml, setup.cfg) from which the advisories read the
project's releases; an empty ``.git`` marks each project's root.  Nothing is executed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from corpus import WORK, MirrorError, mirror

PROJECTS = HERE / "projects.tsv"
SUFFIXES = (".py", ".ipynb")
PIN_FILES = ("poetry.lock", "uv.lock", "pdm.lock", "pylock.toml", "Pipfile.lock", "pyproject.toml", "setup.cfg")


def pinned() -> list[dict[str, str]]:
    """The rows of projects.tsv as dicts (project, repo, commit, subdir, note)."""
    lines = [line for line in PROJECTS.read_text().splitlines() if line.strip() and not line.startswith("#")]
    header = lines[0].split("\t")
    return [dict(zip(header, (line.split("\t") + [""] * len(header))[: len(header)])) for line in lines[1:]]


def notebook_code_lines(data: bytes) -> int:
    """Source lines in a notebook's code cells (0 for a notebook that is not JSON)."""
    try:
        cells = json.loads(data).get("cells", [])
    except (ValueError, AttributeError):
        return 0
    total = 0
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        total += len(text.splitlines())
    return total


def blobs(git_dir: Path, commit: str, subdir: str) -> list[tuple[str, str]]:
    """(object id, path) of the files at ``commit`` worth extracting: .py, .ipynb, .json and pin files.

    Pin files (requirements, lock files, pyproject.toml, setup.cfg) are taken under ``subdir``
    and in the directories above it, so that advisories read the project's own releases.
    """
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit], capture_output=True, check=False
    )
    if listing.returncode != 0:
        raise MirrorError(f"git ls-tree of {git_dir} {commit}: {listing.stderr.decode().strip()}")
    prefix = "" if subdir == "." else subdir.rstrip("/") + "/"
    above = {""} | {"/".join(prefix.split("/")[:i]) + "/" for i in range(1, prefix.count("/") + 1)}
    found = []
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, kind, sha = meta.split()
        name = path.decode("utf-8", "surrogateescape")
        if kind != b"blob" or mode == b"120000":
            continue
        directory = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        inside = name.startswith(prefix)
        if inside and name.endswith((*SUFFIXES, ".json")) or is_pin_file(name) and (inside or directory in above):
            found.append((sha.decode(), name))
    return found


def is_pin_file(path: str) -> bool:
    """A file flake8-device reads a project's releases from (see flake8_device/versions.py)."""
    parts = path.split("/")
    name = parts[-1]
    requirements = name.startswith(("requirements", "constraints")) or parts[-2:-1] == ["requirements"]
    return name in PIN_FILES or (name.endswith(".txt") and requirements)


def read_blobs(git_dir: Path, shas: list[str]) -> dict[str, bytes | None]:
    """The contents of blobs by id (None for one the snapshot lacks), read in one ``cat-file --batch``."""
    result = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        input="".join(f"{sha}\n" for sha in shas).encode(),
        capture_output=True,
        check=True,
    )
    data, at = result.stdout, 0
    contents: dict[str, bytes | None] = {}
    for sha in shas:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        at = end + 1
        if header[-1] == b"missing":
            contents[sha] = None
            continue
        size = int(header[2])
        contents[sha] = data[at : at + size]
        at += size + 1
    return contents


def extract(row: dict[str, str], dest: Path) -> tuple[int, int, int, int, list[str]]:
    """Write the project's files under ``dest``: (files, lines, notebooks, DeepSpeed configs, paths missing).

    Files and lines count the .py files and notebooks (the code cells' lines); DeepSpeed JSON
    configurations (a ``zero_optimization`` section) and pin files are kept beside them, other
    JSON files are dropped.  A ``.git`` marker makes ``dest`` the repository root for the linter.
    """
    git_dir = mirror(row["repo"], row["commit"])
    subdir = row["subdir"].strip() or "."
    found = blobs(git_dir, row["commit"], subdir)
    contents = read_blobs(git_dir, sorted({sha for sha, _ in found}))
    files = lines = notebooks = configs = 0
    missing = []
    for sha, path in found:
        data = contents[sha]
        if data is None:
            if path.endswith(SUFFIXES):
                missing.append(path)
            continue
        if path.endswith(".json"):
            if b'"zero_optimization"' not in data:
                continue
            configs += 1
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if path.endswith(".ipynb"):
            files += 1
            notebooks += 1
            lines += notebook_code_lines(data)
        elif path.endswith(".py"):
            files += 1
            lines += data.count(b"\n")
    (dest / ".git").mkdir(exist_ok=True)  # an empty marker: the repository root, where pin lookups stop
    return files, lines, notebooks, configs, missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", default=str(WORK / "apps"), help="output directory (default bench/.work/apps)")
    parser.add_argument(
        "--mirror", help="directory of <owner>+<name>/repo mirrors (default $FLAKE8_DEVICE_MIRROR or /work/.mirror)"
    )
    parser.add_argument("--only", nargs="*", help="project names to extract (default: all pinned)")
    args = parser.parse_args()
    if args.mirror:
        os.environ["FLAKE8_DEVICE_MIRROR"] = args.mirror
    dest = Path(args.dest)
    rows = [row for row in pinned() if not args.only or row["project"] in args.only]
    try:
        for row in rows:  # check every mirror first: one line naming what to fetch, before any work
            mirror(row["repo"], row["commit"])
        if not args.only:
            shutil.rmtree(dest / "src", ignore_errors=True)
        out = ["project\tcommit\tfiles\tlines\trepo\tsubdir\tnotebooks\tdeepspeed_configs"]
        for row in rows:
            target = dest / "src" / row["project"]
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            files, lines, notebooks, configs, missing = extract(row, target)
            for path in missing:
                print(
                    f"extract.py: {row['repo']} {row['commit'][:10]}: {path} is absent from the snapshot",
                    file=sys.stderr,
                )
            out.append(
                f"{row['project']}\t{row['commit']}\t{files}\t{lines}\t{row['repo']}\t{row['subdir']}\t{notebooks}\t{configs}"
            )
    except MirrorError as error:
        print(f"extract.py: {error}", file=sys.stderr)
        return 1
    (dest / "MANIFEST.tsv").write_text("\n".join(out) + "\n")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
