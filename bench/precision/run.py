"""Precision on real code: every default-on finding over the corpora, with a reviewed verdict.

One command (from the repository root, with the package installed in .venv):

    .venv/bin/python bench/precision/run.py                  # libraries (all, ~3M lines) + applications
    .venv/bin/python bench/precision/run.py --size small     # timm, lightning, torchmetrics, accelerate + applications
    .venv/bin/python bench/precision/run.py --only libraries --size full
    .venv/bin/python bench/precision/run.py --no-verdict-check --unreviewed-json new.json

Two corpora: the libraries (pinned wheels, ``bench/fetch_corpus.sh``) and the applications
(training scripts, examples and notebooks of pinned repositories, ``bench/apps/extract.py``
from local mirrors).  Each is fetched or extracted under bench/.work/ when missing.

It lints each corpus with the default rule set, joins each finding to its verdict in
bench/precision/verdicts.json (keyed by path, line and code, plus ``cell`` for a notebook;
paths are relative to the corpus's ``src``: ``transformers/transformers/...`` for a library,
``detr/main.py`` for an application; a verdict is "real bug", "harmless but correct" or
"false positive", with a one-line reason), rewrites bench/precision/findings.md with a
section per corpus, and prints per corpus the lines, findings and findings per 100k lines,
and per code the findings by verdict.  It exits 1 when a finding has no verdict yet (unless
``--no-verdict-check``) or a false positive is still reported (each must lead to a fix in
the rule, with a regression look-alike in its fixture, or to the rule going off by
default); the false positives addressed so far are kept in the same file as history.
``--unreviewed-json FILE`` (``-`` for stdout) writes the findings without a verdict as a
JSON list of verdict templates (the source line included) for reviewers to fill in.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from corpus import SIZES, SMALL, apps, corpus, manifest
from corpus import projects as corpus_projects

HERE = Path(__file__).resolve().parent
VERDICTS = HERE / "verdicts.json"
FINDINGS = HERE / "findings.md"
VERDICT_KINDS = ("real bug", "harmless but correct", "false positive")
COLUMNS = ("real bug", "harmless but correct", "false positive", "no verdict")
Key = tuple[str, Optional[int], int, str]


@dataclass
class Corpus:
    name: str  # "libraries" or "applications"
    source: Path  # the directory holding one folder per project
    projects: list[str]
    versions: dict[str, str]  # a release, or a pinned commit
    files: dict[str, int]
    lines: dict[str, int]
    repos: dict[str, str] = field(default_factory=dict)
    configs: list[str] = field(default_factory=list)  # DeepSpeed JSON files, named to the linter
    findings: list[dict[str, Any]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # files the linter could not parse


def libraries(size: str, given: str | None) -> Corpus:
    root = corpus(size, given)
    source = root / "src"
    names = corpus_projects(source, size)
    rows = manifest(root)
    return Corpus(
        "libraries",
        source,
        names,
        {n: rows[n][1] for n in names},
        {n: int(rows[n][2]) for n in names},
        {n: int(rows[n][3]) for n in names},
    )


def applications(given: str | None) -> Corpus:
    root = apps(given)
    rows = manifest(root)
    names = [n for n in rows if (root / "src" / n).exists()]
    return Corpus(
        "applications",
        root / "src",
        names,
        {n: rows[n][1][:12] for n in names},
        {n: int(rows[n][2]) for n in names},
        {n: int(rows[n][3]) for n in names},
        repos={n: (rows[n][4] + ("" if rows[n][5] in ("", ".") else f"/{rows[n][5]}")) for n in names},
        configs=sorted(str(p.relative_to(root / "src")) for n in names for p in (root / "src" / n).rglob("*.json")),
    )


def lint(source: Path, paths: list[str], jobs: int | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The findings (sorted) and the files the linter could not check (a syntax error: real
    application code holds some Python 2 and broken files; the CLI exits 2 for them)."""
    command = [sys.executable, "-m", "flake8_device", "--isolated", "--format", "json", "--exit-zero", *paths]
    if jobs:
        command[3:3] = ["-j", str(jobs)]
    result = subprocess.run(command, cwd=source, capture_output=True, text=True, check=False)
    try:
        findings: list[dict[str, Any]] = json.loads(result.stdout)
    except ValueError:
        findings = None  # type: ignore[assignment]
    if result.returncode not in (0, 2) or findings is None:
        raise SystemExit(f"flake8-device failed ({result.returncode}): {result.stderr[-2000:]}")
    refused = [line.split(": ", 2)[1] for line in result.stderr.splitlines() if line.startswith("flake8-device: ")]
    return sorted(findings, key=lambda f: (f["filename"], f.get("cell") or 0, f["line"], f["code"])), refused


def key(item: dict[str, Any], path_field: str) -> Key:
    return (str(item[path_field]), item.get("cell"), int(item["line"]), str(item["code"]))


def verdict_kind(verdict: dict[str, Any] | None) -> str:
    return "no verdict" if verdict is None else str(verdict["verdict"])


def source_line(corpus_: Corpus, finding: dict[str, Any]) -> str:
    """The source line a finding points at (in its notebook cell for a notebook)."""
    path = corpus_.source / str(finding["filename"])
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        if finding.get("cell") is not None:
            cell = json.loads(text)["cells"][int(finding["cell"]) - 1]
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else str(source)
        return text.splitlines()[int(finding["line"]) - 1].strip()
    except (OSError, ValueError, IndexError, KeyError):
        return ""


def per_code(corpus_: Corpus, verdicts: dict[Key, dict[str, Any]]) -> dict[str, Counter[str]]:
    table: dict[str, Counter[str]] = {}
    for finding in corpus_.findings:
        kind = verdict_kind(verdicts.get(key(finding, "filename")))
        table.setdefault(str(finding["code"]), Counter())[kind] += 1
    return dict(sorted(table.items()))


def mature(corpus_: Corpus) -> tuple[list[str], int, int]:
    names = [p for p in corpus_.projects if p in SMALL]
    count = sum(1 for f in corpus_.findings if str(f["filename"]).split("/")[0] in names)
    return names, count, sum(corpus_.lines[p] for p in names)


def per_100k(count: int, lines: int) -> str:
    return f"{100_000 * count / lines:.2f}" if lines else "-"


def report(corpus_: Corpus, verdicts: dict[Key, dict[str, Any]], out: Any) -> None:
    total = sum(corpus_.lines.values())
    count = len(corpus_.findings)
    print(
        f"{corpus_.name}: {len(corpus_.projects)} projects, {sum(corpus_.files.values()):,} files, "
        f"{total:,} lines; {count} findings ({per_100k(count, total)} per 100k lines)",
        file=out,
    )
    if corpus_.configs:
        print(f"  plus {len(corpus_.configs)} DeepSpeed JSON configurations", file=out)
    if corpus_.refused:
        print(f"  {len(corpus_.refused)} files not checked (syntax errors): {', '.join(corpus_.refused)}", file=out)
    if corpus_.name == "libraries":
        names, n, lines = mature(corpus_)
        if lines:
            print(
                f"  mature libraries ({', '.join(names)}): {n} on {lines:,} lines "
                f"({per_100k(n, lines)} per 100k; target <= 3)",
                file=out,
            )
    by_project = Counter(str(f["filename"]).split("/")[0] for f in corpus_.findings)
    print("  " + ", ".join(f"{p} {by_project.get(p, 0)}/{corpus_.lines[p]:,}" for p in corpus_.projects), file=out)
    print(f"  {'code':<7} {'findings':>8} {'real bug':>8} {'harmless':>8} {'false +':>8} {'no verdict':>10}", file=out)
    for code, counts in per_code(corpus_, verdicts).items():
        print(
            f"  {code:<7} {sum(counts.values()):>8} {counts['real bug']:>8} {counts['harmless but correct']:>8} "
            f"{counts['false positive']:>8} {counts['no verdict']:>10}",
            file=out,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", help="a library corpus made by bench/fetch_corpus.sh (default: fetch into bench/.work)"
    )
    parser.add_argument("--size", choices=tuple(SIZES), default="all", help="library corpus size (default all)")
    parser.add_argument(
        "--apps", help="an application corpus made by bench/apps/extract.py (default: bench/.work/apps)"
    )
    parser.add_argument("--only", choices=("libraries", "applications"), help="measure one corpus")
    parser.add_argument("--no-verdict-check", action="store_true", help="do not fail on findings without a verdict")
    parser.add_argument(
        "--unreviewed-json", metavar="FILE", help="write the findings without a verdict as JSON (- for stdout)"
    )
    parser.add_argument("-j", "--jobs", type=int, help="processes for flake8-device (default: its own, all cores)")
    args = parser.parse_args()
    out = sys.stderr if args.unreviewed_json == "-" else sys.stdout

    corpora = []
    if args.only != "applications":
        corpora.append(libraries(args.size, args.corpus))
    if args.only != "libraries":
        corpora.append(applications(args.apps))
    if len(corpora) == 2 and set(corpora[0].projects) & set(corpora[1].projects):
        raise SystemExit(f"a project name is in both corpora: {set(corpora[0].projects) & set(corpora[1].projects)}")
    for corpus_ in corpora:
        corpus_.findings, corpus_.refused = lint(corpus_.source, [*corpus_.projects, *corpus_.configs], args.jobs)

    reviewed = json.loads(VERDICTS.read_text())
    verdicts = {key(v, "path"): v for v in reviewed["verdicts"]}
    missing: list[tuple[Corpus, dict[str, Any]]] = []
    false_positives: list[dict[str, Any]] = []
    for corpus_ in corpora:
        for finding in corpus_.findings:
            verdict = verdicts.get(key(finding, "filename"))
            if verdict is None:
                missing.append((corpus_, finding))
            elif verdict["verdict"] == "false positive":
                false_positives.append(finding)
        report(corpus_, verdicts, out)

    FINDINGS.write_text(render(corpora, verdicts, reviewed, args), encoding="utf-8")
    where = lambda f: f"{f['filename']}:" + (f"cell_{f['cell']}:" if f.get("cell") is not None else "") + str(f["line"])
    if missing:
        print(f"{len(missing)} findings have no verdict in {VERDICTS.relative_to(ROOT)}", file=out)
    if not args.no_verdict_check:
        for _, finding in missing:
            print(f"NO VERDICT: {where(finding)}: {finding['code']} {finding['message']}", file=out)
    for finding in false_positives:
        print(f"FALSE POSITIVE STILL REPORTED: {where(finding)}: {finding['code']}", file=out)
    if args.unreviewed_json:
        templates = []
        for corpus_, finding in missing:
            item: dict[str, Any] = {"corpus": corpus_.name, "path": finding["filename"]}
            if finding.get("cell") is not None:
                item["cell"] = finding["cell"]
            item |= {
                "line": finding["line"],
                "code": finding["code"],
                "message": finding["message"],
                "source": source_line(corpus_, finding),
                "verdict": "",
                "reason": "",
            }
            templates.append(item)
        text = json.dumps(templates, indent=2) + "\n"
        if args.unreviewed_json == "-":
            sys.stdout.write(text)
        else:
            Path(args.unreviewed_json).write_text(text, encoding="utf-8")
            print(f"wrote {len(templates)} unreviewed findings to {args.unreviewed_json}", file=out)
    print(f"wrote {FINDINGS.relative_to(ROOT)}", file=out)
    return 1 if (missing and not args.no_verdict_check) or false_positives else 0


def render(  # type: ignore[no-untyped-def]
    corpora: list[Corpus], verdicts: dict[Key, dict[str, Any]], reviewed, args
) -> str:
    flags = [f"--size {args.size}" if args.size != "all" else "", f"--only {args.only}" if args.only else ""]
    command = " ".join(["bench/precision/run.py", *filter(None, flags)])
    out = [
        "# Findings on real code",
        "",
        (
            f"Generated by `.venv/bin/python {command}` on {date.today().isoformat()} with the default rule set; "
            "verdicts are reviewed by hand in `bench/precision/verdicts.json`."
        ),
    ]
    for corpus_ in corpora:
        total = sum(corpus_.lines.values())
        count = len(corpus_.findings)
        counts = Counter(verdict_kind(verdicts.get(key(f, "filename"))) for f in corpus_.findings)
        by_project = Counter(str(f["filename"]).split("/")[0] for f in corpus_.findings)
        if corpus_.name == "libraries":
            head = ["| Project | Version | Files | Lines | Findings |", "| --- | --- | --- | --- | --- |"]
            rows = [
                f"| {p} | {corpus_.versions[p]} | {corpus_.files[p]:,} | {corpus_.lines[p]:,} | {by_project.get(p, 0)} |"
                for p in corpus_.projects
            ]
            intro = "Released sources of PyTorch libraries, from their pinned wheels (`bench/fetch_corpus.sh`)."
        else:
            head = [
                "| Project | Repository | Commit | Files | Lines | Findings |",
                "| --- | --- | --- | --- | --- | --- |",
            ]
            rows = [
                f"| {p} | {corpus_.repos[p]} | {corpus_.versions[p]} | {corpus_.files[p]:,} | {corpus_.lines[p]:,} "
                f"| {by_project.get(p, 0)} |"
                for p in corpus_.projects
            ]
            intro = (
                "Training scripts, examples and notebooks of pinned repositories (`bench/apps/projects.tsv`, "
                "extracted by `bench/apps/extract.py`); lines count the notebooks' code cells."
            )
        summary = f"**{count} findings on {total:,} lines** ({per_100k(count, total)} per 100k lines)"
        if corpus_.name == "libraries":
            _, n, lines = mature(corpus_)
            if lines:
                summary += (
                    f"; on the mature libraries of the small corpus: {n} on {lines:,} lines "
                    f"({per_100k(n, lines)} per 100k, target <= 3)"
                )
        if corpus_.configs:
            summary += f"; {len(corpus_.configs)} DeepSpeed JSON configurations linted too"
        if corpus_.refused:
            summary += (
                f"; {len(corpus_.refused)} files not checked (syntax errors: "
                + ", ".join(f"`{path}`" for path in corpus_.refused)
                + ")"
            )
        summary += ". " + ", ".join(f"{kind}: {counts.get(kind, 0)}" for kind in COLUMNS)
        out += [
            "",
            f"## {corpus_.name.capitalize()}",
            "",
            intro,
            "",
            *head,
            *rows,
            "",
            summary,
            "",
            "| Code | Findings | Real bug | Harmless but correct | False positive | No verdict |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for code, c in per_code(corpus_, verdicts).items():
            out.append(
                f"| {code} | {sum(c.values())} | {c['real bug']} | {c['harmless but correct']} "
                f"| {c['false positive']} | {c['no verdict']} |"
            )
        out += ["", "| File | Line | Code | Verdict | Reason |", "| --- | --- | --- | --- | --- |"]
        for finding in corpus_.findings:
            verdict = verdicts.get(key(finding, "filename"))
            kind = verdict["verdict"] if verdict else "**no verdict**"
            reason = verdict["reason"] if verdict else finding["message"]
            line = (f"cell {finding['cell']}, " if finding.get("cell") is not None else "") + str(finding["line"])
            out.append(f"| `{finding['filename']}` | {line} | {finding['code']} | {kind} | {reason} |")
    out += [
        "",
        "## False positives found on these corpora and fixed",
        "",
        "Each led to a change in the rule and a look-alike in the rule's fixture (`# OK` section).",
        "",
        "| Where | Code | What was wrong | Fix |",
        "| --- | --- | --- | --- |",
        *(f"| `{h['where']}` | {h['code']} | {h['what']} | {h['fix']} |" for h in reviewed["fixed_false_positives"]),
        "",
    ]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
