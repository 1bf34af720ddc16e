"""What the fixtures and the real-world cases do on a real GPU, against what the linter says.

The meta device stands in for an accelerator in the tests, but it cannot copy data (``.cpu()``,
``.numpy()``, ``.item()``) and several of its kernels accept CPU operands.  This benchmark runs the
same programs on CUDA, in three steps (from the repository root):

    .venv/bin/python bench/cuda/run.py prepare            # here: lint, fix, write the manifest
    python3 bench/cuda/run.py execute --out results.json  # on a machine with CUDA (needs torch only)
    .venv/bin/python bench/cuda/run.py record results.json

``prepare`` writes ``bench/.work/cuda/manifest.json`` and the fixed copies of the cases (the bad
side after ``--fix --unsafe-fixes``), and says for every unit what the linter claims:

- fixtures: each ``run_*`` function of a fixture and of its fixed variants; the linter claims a
  device error exactly where it reports a line the function reaches (the meta oracle's rule);
- cases of ``bench/realworld/cases`` that can be driven: the entry file's own ``run(device)`` or a
  ``cuda_driver.py`` beside ``case.json`` (``run(program, device)``, given the entry file's
  namespace), for the bad side, the good side and the fixed bad side.

``execute`` needs nothing but the standard library and torch (the GPU machine has no LibCST): it
runs each fixture or case in a child process of its own, several at a time, and writes one outcome
per unit: ``runs``, ``device-error`` (the text matches ``DEVICE_ERROR``) or ``error``.

``record`` compares: a case's bad side must raise a device error and its good side must run (the
benchmark's own claim); the linter agrees with a unit when it reports it exactly where it raises;
every fixed program must run.  It writes the ``cuda`` verdicts into each ``case.json`` and the
outcomes, with the machine that produced them, to ``bench/cuda/last_run.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "bench" / ".work" / "cuda"
MANIFEST = WORK / "manifest.json"
LAST_RUN = Path(__file__).resolve().parent / "last_run.json"
CHILD_TIMEOUT_S = 300
# The benchmark's cases and the tests' fixtures and adversarial suite (their loaders need no LibCST).
sys.path[:0] = [str(ROOT / "bench" / "realworld"), str(ROOT / "tests")]
from cases import DEVICE_ERROR, all_cases, lint, program_folder  # noqa: E402


# ---------------------------------------------------------------------------------------------
# prepare (here, with the linter)


def _fixture_units() -> list[dict[str, Any]]:
    from fixture_support import Fixture, all_fixtures

    from flake8_device.configuration.analysis import AnalysisConfig
    from flake8_device.engine import Engine
    from flake8_device.registry import rule_by_code

    units = []
    for fixture in all_fixtures():
        if not fixture.runnable_cases():
            continue
        rule = rule_by_code(fixture.code)
        engine = Engine([rule], AnalysisConfig().with_versions(fixture.device_versions))
        variants = [("bad", fixture.path)] + [
            (suffix, fixture.variant(suffix))
            for suffix in ("fixed", "unsafe.fixed")
            if fixture.variant(suffix).exists()
        ]
        for label, path in variants:
            reported = {v.line for v in engine.lint(path.read_text(encoding="utf-8")).violations}
            for name, spans in Fixture(path).runnable_cases():
                claims = any(first <= line <= last for line in reported for first, last in spans)
                units.append(
                    {
                        "group": f"fixture:{fixture.code}",
                        "id": f"fixture:{fixture.code}:{label}:{name}",
                        "side": label,
                        "path": str(path.relative_to(ROOT)),
                        "folder": None,
                        "driver": None,
                        "function": name,
                        "claims_error": claims,
                        "expect": "device-error" if claims else "runs",
                    }
                )
    return units


def _fix_copy(case: Any) -> tuple[Path, bool]:
    """The bad side copied under bench/.work/cuda/fixed/<id> with every fix applied; whether any applied."""
    target = WORK / "fixed" / case.id
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    names = []
    for name, path in case.side("bad").items():
        shutil.copy(path, target / case.good_name(name))
        names.append(str(target / case.good_name(name)))
    before = {name: Path(name).read_text(encoding="utf-8") for name in names}
    command = [sys.executable, "-m", "flake8_device", "--fix", "--unsafe-fixes", "--no-cache", *names]
    subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    changed = any(Path(name).read_text(encoding="utf-8") != text for name, text in before.items())
    return target, changed


def _case_units() -> list[dict[str, Any]]:
    units = []
    for case in all_cases():
        driver = case.folder / "cuda_driver.py"
        bad_entry = case.side("bad")[case.entry]
        good_entry = case.side("good")[case.good_name(case.entry)]
        own_run = all(
            re.search(r"^def run\(device", p.read_text(encoding="utf-8"), re.M) for p in (bad_entry, good_entry)
        )
        if not driver.exists() and not own_run:
            continue
        fixed_folder, fixed_changed = _fix_copy(case)
        sides = [("bad", bad_entry), ("good", good_entry)]
        if fixed_changed:
            sides.append(("fixed", fixed_folder / case.good_name(case.entry)))
        for side, entry in sides:
            files = sorted(fixed_folder.glob("*.py")) if side == "fixed" else list(case.side(side).values())
            found = lint(files)
            if side == "bad":
                report = case.data["report"]
                claims = any(line in set(report.get(path.name if case.two_file else "bad.py", ())) for path in files
                             for line, _, _ in found[path])
            else:
                claims = any(found[path] for path in files)
            units.append(
                {
                    "group": f"case:{case.id}",
                    "id": f"case:{case.id}:{side}",
                    "side": side,
                    "path": str(entry.relative_to(ROOT)),
                    "folder": str(entry.parent.relative_to(ROOT)) if case.two_file else None,
                    "driver": str(driver.relative_to(ROOT)) if driver.exists() else None,
                    "function": "run",
                    "claims_error": claims,
                    # a fixed program runs where the linter has nothing left to say about it
                    "expect": {"bad": "device-error", "good": "runs"}.get(side, None if claims else "runs"),
                }
            )
    return units


def _adversarial_units() -> list[dict[str, Any]]:
    """Each program of the adversarial fix suite as written, after --fix and after --fix --unsafe-fixes."""
    from adversarial.harness import _as_program, fixed, load_cases

    folder = WORK / "adversarial"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    units = []
    for number, case in enumerate(load_cases()):
        original = _as_program(case, case.text)
        variants = [("original", original)]
        for label, unsafe in (("fixed", False), ("unsafe.fixed", True)):
            program = _as_program(case, fixed(case, case.text, unsafe=unsafe))
            if program != original and all(program != text for _, text in variants):
                variants.append((label, program))
        for label, program in variants:
            path = folder / f"{case.rule}_{number}.{label}.py"
            path.write_text(program, encoding="utf-8")
            units.append(
                {
                    "group": f"adversarial:{case.rule}",
                    "id": f"adversarial:{case.id}:{label}",
                    "side": label,
                    "path": str(path.relative_to(ROOT)),
                    "folder": None,
                    "driver": None,
                    "function": None,
                    # many of these rules are not about device errors (a hard-coded CUDA, a slow transform, a
                    # load without map_location), and the header says what the meta device does: an original
                    # carries no claim; a fixed program must run
                    "claims_error": None if label == "original" else False,
                    "expect": None if label == "original" else "runs",
                }
            )
    return units


def prepare(_args: argparse.Namespace) -> int:
    WORK.mkdir(parents=True, exist_ok=True)
    units = _fixture_units() + _case_units() + _adversarial_units()
    MANIFEST.write_text(json.dumps(units, indent=1) + "\n", encoding="utf-8")
    groups = {u["group"] for u in units}
    print(f"{len(units)} units in {len(groups)} programs -> {MANIFEST.relative_to(ROOT)}")
    return 0


# ---------------------------------------------------------------------------------------------
# execute (on the GPU machine: standard library and torch only)


def _run_program(unit: dict[str, Any], device: Any) -> dict[str, str]:
    """An adversarial program, as the suite runs it (its emulation of NCCL and Lightning), on ``device``."""
    from adversarial.harness import execute as run_program

    outcome = run_program((ROOT / unit["path"]).read_text(encoding="utf-8"), device=str(device))
    return {"outcome": outcome.status, "message": outcome.detail}


def _run_unit(unit: dict[str, Any], device: Any) -> dict[str, str]:
    if unit["function"] is None:
        return _run_program(unit, device)
    path = ROOT / unit["path"]
    try:
        with program_folder(str(ROOT / unit["folder"]) if unit["folder"] else str(path.parent)):
            namespace = runpy.run_path(str(path), run_name="cuda_check")
            if unit["driver"]:
                runpy.run_path(str(ROOT / unit["driver"]), run_name="cuda_driver")["run"](namespace, device)
            else:
                namespace[unit["function"]](device)
            if device.type == "cuda":
                import torch

                torch.cuda.synchronize()
    except Exception as error:  # noqa: BLE001 - the outcome is whatever the program raised
        text = f"{type(error).__name__}: {error}"
        outcome = "device-error" if DEVICE_ERROR.search(text) else "error"
        return {"outcome": outcome, "message": " ".join(text.split())[:300]}
    return {"outcome": "runs", "message": ""}


def _child(args: argparse.Namespace) -> int:
    """One program's units, in this process (stdin: the units; stdout: their outcomes)."""
    import torch

    device = torch.device(args.device)
    outcomes = {}
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        for unit in json.load(sys.stdin):
            torch.manual_seed(0)
            outcomes[unit["id"]] = _run_unit(unit, device)
    sys.stdout.write("\n@@outcomes@@" + json.dumps(outcomes))
    return 0


def _run_group(units: list[dict[str, Any]], device: str) -> dict[str, dict[str, str]]:
    command = [sys.executable, __file__, "_child", "--device", device]
    try:
        done = subprocess.run(
            command, input=json.dumps(units), capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return {u["id"]: {"outcome": "error", "message": f"timed out after {CHILD_TIMEOUT_S} s"} for u in units}
    _, marker, payload = done.stdout.rpartition("@@outcomes@@")
    if marker:
        return json.loads(payload)
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
    message = f"the child exited {done.returncode}: {tail[0][:300]}"
    return {u["id"]: {"outcome": "error", "message": message} for u in units}


def execute(args: argparse.Namespace) -> int:
    import torch

    units = json.loads(Path(args.manifest).read_text(encoding="utf-8"))
    groups: dict[str, list[dict[str, Any]]] = {}
    for unit in units:
        groups.setdefault(unit["group"], []).append(unit)
    outcomes: dict[str, dict[str, str]] = {}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for found in pool.map(lambda g: _run_group(g, args.device), groups.values()):
            outcomes.update(found)
    machine = {
        "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else args.device,
        "torch": torch.__version__,
        "python": sys.version.split()[0],
    }
    Path(args.out).write_text(json.dumps({"machine": machine, "outcomes": outcomes}, indent=1) + "\n", encoding="utf-8")
    counts: dict[str, int] = {}
    for item in outcomes.values():
        counts[item["outcome"]] = counts.get(item["outcome"], 0) + 1
    print(f"{len(outcomes)} units on {machine['device']} (torch {machine['torch']}): {counts}")
    return 0


# ---------------------------------------------------------------------------------------------
# record (here)


def _case_verdicts(units: list[dict[str, Any]], outcomes: dict[str, dict[str, str]]) -> dict[str, dict[str, Any]]:
    verdicts: dict[str, dict[str, Any]] = {}
    for unit in units:
        if not unit["group"].startswith("case:"):
            continue
        outcome = outcomes[unit["id"]]["outcome"]
        verdicts.setdefault(unit["group"][5:], {"bad": None, "good": None, "fixed": None})[unit["side"]] = (
            outcome if outcome in ("runs", "device-error") else None
        )
    return verdicts


def _write_verdicts(verdicts: dict[str, dict[str, Any]]) -> None:
    """The ``cuda`` object of each case.json, rewritten in place on its own line."""
    for case_id, verdict in verdicts.items():
        path = ROOT / "bench" / "realworld" / "cases" / case_id / "case.json"
        text = path.read_text(encoding="utf-8")
        line = '"cuda": ' + json.dumps(verdict)
        new, count = re.subn(r'"cuda":\s*\{[^{}]*\}', line, text, count=1)
        if count != 1:
            raise SystemExit(f"{path}: no cuda object to rewrite")
        path.write_text(new, encoding="utf-8")


FAMILIES = (("fixture", "fixtures"), ("case", "benchmark cases"), ("adversarial", "adversarial fix programs"))


def record(args: argparse.Namespace) -> int:
    units = json.loads(MANIFEST.read_text(encoding="utf-8"))
    results = json.loads(Path(args.results).read_text(encoding="utf-8"))
    outcomes = results["outcomes"]
    print(f"machine: {results['machine']}")
    for prefix, title in FAMILIES:
        family = [u for u in units if u["group"].startswith(prefix + ":")]
        expected = [u for u in family if u["expect"] is not None]
        claimed = [u for u in family if u["claims_error"] is not None]
        departures, disagreements = [], []
        for unit in family:
            item = outcomes.get(unit["id"], {"outcome": "error", "message": "not run"})
            said = f"{item['outcome']} {item['message']}".strip()
            if unit["expect"] is not None and item["outcome"] != unit["expect"]:
                departures.append(f"{unit['id']}: expected {unit['expect']}, got {said}")
            if unit["claims_error"] is not None and (item["outcome"] == "device-error") != unit["claims_error"]:
                claim = "reported" if unit["claims_error"] else "silent"
                disagreements.append(f"{unit['id']}: the linter is {claim}, the device says {said}")
        print(f"{title}: {len(expected) - len(departures)} of {len(expected)} units as expected on the device; "
              f"the linter agrees with the device on {len(claimed) - len(disagreements)} of {len(claimed)}")
        for line in departures:
            print(f"  not as expected: {line}")
        if args.verbose or prefix != "case":
            for line in disagreements:
                print(f"  disagrees: {line}")
    cases = [u for u in units if u["group"].startswith("case:")]
    table: dict[tuple[str, bool, str], int] = {}
    for unit in cases:
        key = (unit["side"], unit["claims_error"], outcomes.get(unit["id"], {}).get("outcome", "error"))
        table[key] = table.get(key, 0) + 1
    print("benchmark cases, the linter against the device (side, linter, device: units):")
    for (side, claims, outcome), count in sorted(table.items()):
        print(f"  {side:5} {'reported' if claims else 'silent':8} {outcome:12} {count}")
    verdicts = _case_verdicts(units, outcomes)
    _write_verdicts(verdicts)
    LAST_RUN.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(verdicts)} cases' cuda verdicts written; outcomes in {LAST_RUN.relative_to(ROOT)}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("prepare", help="lint, fix and write the manifest (here)").set_defaults(func=prepare)
    run = commands.add_parser("execute", help="run every unit on the device (torch only)")
    run.add_argument("--manifest", default=str(MANIFEST))
    run.add_argument("--device", default="cuda")
    run.add_argument("--jobs", type=int, default=8)
    run.add_argument("--out", required=True)
    run.set_defaults(func=execute)
    child = commands.add_parser("_child")
    child.add_argument("--device", default="cuda")
    child.set_defaults(func=_child)
    rec = commands.add_parser("record", help="compare and write the verdicts (here)")
    rec.add_argument("results")
    rec.add_argument(
        "--verbose", action="store_true", help="also list each case where the linter and the device differ"
    )
    rec.set_defaults(func=record)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
