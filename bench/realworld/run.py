"""The real-world benchmark, in one command: ``python3 bench/realworld/run.py``.

Prints, with the default rule set:

- recall on the reconstructed cases (``cases/*/bad*``), overall and per class: a case is found
  when a default-on finding lands on one of its ``report`` lines;
- false alarms on the fixed versions (``good*``): a case whose good side has any default-on
  finding;
- the same two figures on the whole real files (the ``real`` entries, extracted from fetched
  repositories at the pinned commits; skipped with a note when the mirrors are absent);
- the five mission stories on their real files (``stories.py``);
- the precision tables of the library and application corpora (``bench/precision/run.py``),
  unless ``--no-corpora``.

``--json FILE`` also writes the per-case results.  Run it from any directory; it needs the
package importable (``.venv/bin/python bench/realworld/run.py`` from a checkout, or plain
``python3`` after ``scripts/test.sh`` has made ``.venv``: it re-executes itself there).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))


def _ensure_environment() -> None:
    """Re-run under the checkout's .venv when the package is not importable here."""
    try:
        import flake8_device  # noqa: F401
    except ImportError:
        venv_python = ROOT / ".venv" / "bin" / "python"
        if not venv_python.exists():
            raise SystemExit("flake8_device is not importable: run scripts/test.sh once (it creates .venv)")
        os.execv(str(venv_python), [str(venv_python), *sys.argv])


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def reconstruction_results() -> list[dict[str, object]]:
    from cases import all_cases, detected

    results = []
    for case in all_cases():
        data = case.data
        hit, findings = detected(case)
        good_findings = [f for f in findings if f.startswith("good/")]
        results.append(
            {
                "id": case.id,
                "class": data["class"],
                "project": data["project"],
                "shape": data["shape"],
                "found": hit,
                "false_alarm": bool(good_findings),
                "findings": findings,
                "runnable": case.runnable,
                "real": data.get("real", []),
            }
        )
    return results


def per_class_table(results: list[dict[str, object]], found_key: str, alarm_key: str) -> str:
    by_class: dict[str, list[dict[str, object]]] = defaultdict(list)
    for result in results:
        by_class[str(result["class"])].append(result)
    rows = []
    for name in sorted(by_class, key=lambda n: (-len(by_class[n]), n)):
        items = by_class[name]
        found = sum(1 for r in items if r[found_key])
        alarms = sum(1 for r in items if r[alarm_key])
        rows.append([name, str(len(items)), str(found), _percent(found, len(items)), str(alarms)])
    total = len(results)
    found = sum(1 for r in results if r[found_key])
    alarms = sum(1 for r in results if r[alarm_key])
    rows.append(["all", str(total), str(found), _percent(found, total), f"{alarms} ({_percent(alarms, total)})"])
    return _table(rows, ["class", "cases", "found", "recall", "false alarms"])


def real_file_results(results: list[dict[str, object]]) -> tuple[list[dict[str, object]], list[str]]:
    try:
        import realfiles
    except ImportError:
        return [], ["bench/realworld/realfiles.py is missing: whole real files not measured"]
    outcome: list[dict[str, object]] = []
    notes: list[str] = []
    for result in results:
        for entry in result["real"]:  # type: ignore[attr-defined]
            try:
                found, alarm = realfiles.evaluate(entry)
            except realfiles.MirrorMissing as error:
                notes.append(str(error))
                continue
            outcome.append({"id": result["id"], "class": result["class"], "found": found, "false_alarm": alarm})
    return outcome, sorted(set(notes))


def main() -> int:
    _ensure_environment()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-corpora", action="store_true", help="skip the precision tables of the corpora")
    parser.add_argument("--no-real", action="store_true", help="skip whole real files and stories")
    parser.add_argument("--json", metavar="FILE", help="write the per-case results as JSON")
    parser.add_argument(
        "--cases",
        metavar="DIR",
        help="another folder of cases in the same format (bench/realworld/fresh: the held-out split); "
        "the mission stories are left out",
    )
    args = parser.parse_args()
    if args.cases:
        import cases

        cases.CASES = Path(args.cases).resolve()

    results = reconstruction_results()
    projects = {r["project"] for r in results}
    spread = sum(1 for r in results if r["shape"])
    print(f"Reconstructed cases: {len(results)} from {len(projects)} projects ({spread} spread over functions,")
    print("branches, loops, containers, attributes or files)\n")
    print(per_class_table(results, "found", "false_alarm"))
    missed = [str(r["id"]) for r in results if not r["found"]]
    alarms = [str(r["id"]) for r in results if r["false_alarm"]]
    if alarms:
        print("\nFalse alarms on good: " + ", ".join(alarms))

    real_results: list[dict[str, object]] = []
    if not args.no_real:
        real_results, notes = real_file_results(results)
        print(f"\nWhole real files: {len(real_results)} entries measured")
        if real_results:
            print(per_class_table(real_results, "found", "false_alarm"))
        for note in notes:
            print(f"  note: {note}")
        if not args.cases:
            try:
                import stories
            except ImportError:
                print("\nStories: bench/realworld/stories.py is missing")
            else:
                print("\nMission stories on their real files:")
                stories.print_verdicts()
    if not args.no_corpora:
        print("\nPrecision on the corpora (bench/precision/run.py --no-verdict-check):", flush=True)
        command = [sys.executable, str(ROOT / "bench" / "precision" / "run.py"), "--no-verdict-check"]
        subprocess.run(command, check=False)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"cases": results, "real": real_results, "missed": missed}, indent=2), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
