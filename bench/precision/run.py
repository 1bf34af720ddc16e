"""Precision on real code: every default-on finding over the corpus, with a reviewed verdict.

One command (from the repository root, with the package installed in .venv):

    .venv/bin/python bench/precision/run.py                 # full corpus (~1.7M lines)
    .venv/bin/python bench/precision/run.py --size small    # timm, lightning, torchmetrics, accelerate

It lints the corpus with the default rule set, joins each finding to its verdict in
bench/precision/verdicts.json (keyed by path, line and code; a verdict is "real bug",
"harmless but correct" or "false positive", with a one-line reason), rewrites
bench/precision/findings.md, and prints findings per 100k lines.  It exits 1 when a
finding has no verdict yet or a false positive is still reported (each must lead to a
fix in the rule, with a regression look-alike in its fixture, or to the rule going off
by default); the false positives addressed so far are kept in the same file as history.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
VERDICTS = HERE / "verdicts.json"
FINDINGS = HERE / "findings.md"
FETCH = ROOT.parent / "shared" / "corpus" / "fetch.sh"
SMALL = ("accelerate", "pytorch_lightning", "timm", "torchmetrics")
FULL = (*SMALL, "mosaicml", "kornia", "transformers")
VERDICT_KINDS = ("real bug", "harmless but correct", "false positive")


def corpus(args: argparse.Namespace) -> Path:
    if args.corpus:
        return Path(args.corpus).resolve()
    destination = ROOT / "bench" / ".work" / f"corpus-{args.size}"
    if not (destination / "MANIFEST.tsv").exists():
        subprocess.run(["bash", str(FETCH), str(destination), args.size], check=True)
    return destination


def lint(source: Path, projects: list[str]) -> list[dict[str, object]]:
    command = [sys.executable, "-m", "flake8_device", "--format", "json", "--exit-zero", *projects]
    result = subprocess.run(command, cwd=source, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"flake8-device failed ({result.returncode}): {result.stderr[-2000:]}")
    return json.loads(result.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", help="a directory made by fetch.sh (default: fetch into bench/.work)")
    parser.add_argument("--size", choices=("small", "full"), default="full")
    args = parser.parse_args()
    root = corpus(args)
    source = root / "src"
    projects = [name for name in (FULL if args.size == "full" else SMALL) if (source / name).exists()]
    manifest = {
        row.split("\t")[0]: row.split("\t")
        for row in (root / "MANIFEST.tsv").read_text().splitlines()[1:]
        if row.strip()
    }
    lines = {name: int(manifest[name][3]) for name in projects}
    versions = {name: manifest[name][1] for name in projects}
    findings = lint(source, projects)
    reviewed = json.loads(VERDICTS.read_text())
    verdicts = {(v["path"], v["line"], v["code"]): v for v in reviewed["verdicts"]}

    rows, missing, false_positives = [], [], []
    for finding in sorted(findings, key=lambda f: (f["filename"], f["line"], f["code"])):
        key = (finding["filename"], finding["line"], finding["code"])
        verdict = verdicts.get(key)
        if verdict is None:
            missing.append(finding)
        elif verdict["verdict"] == "false positive":
            false_positives.append(finding)
        rows.append((finding, verdict))

    total_lines = sum(lines.values())
    per_100k = 100_000 * len(findings) / total_lines
    mature = [p for p in projects if p in SMALL]
    mature_count = sum(1 for f, _ in rows if str(f["filename"]).split("/")[0] in mature)
    mature_lines = sum(lines[p] for p in mature)
    FINDINGS.write_text(render(rows, lines, versions, total_lines, mature_count, mature_lines, reviewed, args))

    by_code = Counter(str(f["code"]) for f in findings)
    print(f"{len(findings)} findings on {total_lines:,} lines ({per_100k:.2f} per 100k lines): {dict(by_code)}")
    print(
        f"mature libraries ({', '.join(mature)}): {mature_count} on {mature_lines:,} lines "
        f"({100_000 * mature_count / mature_lines:.2f} per 100k; target <= 3)"
    )
    for finding in missing:
        print(f"NO VERDICT: {finding['filename']}:{finding['line']}: {finding['code']} {finding['message']}")
    for finding in false_positives:
        print(f"FALSE POSITIVE STILL REPORTED: {finding['filename']}:{finding['line']}: {finding['code']}")
    print(f"wrote {FINDINGS.relative_to(ROOT)}")
    return 1 if missing or false_positives else 0


def render(  # type: ignore[no-untyped-def]
    rows, lines, versions, total_lines, mature_count, mature_lines, reviewed, args
) -> str:
    counts = Counter((v or {}).get("verdict", "no verdict") for _, v in rows)
    out = [
        "# Findings on real code",
        "",
        f"Generated by `.venv/bin/python bench/precision/run.py{' --size small' if args.size == 'small' else ''}` "
        f"on {date.today().isoformat()} with the default rule set; verdicts are reviewed by hand in "
        "`bench/precision/verdicts.json`.",
        "",
        "| Project | Version | Lines |",
        "| --- | --- | --- |",
        *(f"| {name} | {versions[name]} | {count:,} |" for name, count in lines.items()),
        "",
        f"**{len(rows)} findings on {total_lines:,} lines** ({100_000 * len(rows) / total_lines:.2f} per 100k lines); "
        f"on the mature libraries of the small corpus: {mature_count} on {mature_lines:,} lines "
        f"({100_000 * mature_count / mature_lines:.2f} per 100k, target <= 3). "
        + ", ".join(f"{kind}: {counts.get(kind, 0)}" for kind in (*VERDICT_KINDS, "no verdict")),
        "",
        "| File | Line | Code | Verdict | Reason |",
        "| --- | --- | --- | --- | --- |",
    ]
    for finding, verdict in rows:
        kind = (verdict or {}).get("verdict", "**no verdict**")
        reason = (verdict or {}).get("reason", finding["message"])
        out.append(f"| `{finding['filename']}` | {finding['line']} | {finding['code']} | {kind} | {reason} |")
    out += [
        "",
        "## False positives found on this corpus and fixed",
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
