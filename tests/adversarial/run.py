"""Run the adversarial fix suite and print what broke, per rule.

    .venv/bin/python tests/adversarial/run.py                 # this checkout
    .venv/bin/python tests/adversarial/run.py --checkout DIR  # another one (e.g. an older commit)
    .venv/bin/python tests/adversarial/run.py -v DEV401       # the cases of one rule, with details

"Broken" counts fixed programs that changed and no longer run on the meta
device (see harness.py); "problems" counts every broken expectation, fix levels
included (an older checkout, which offers other levels, has many).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkout", help="a flake8-device source tree to judge instead of this one")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    parser.add_argument("rules", nargs="*", help="only these codes")
    args = parser.parse_args()
    here = Path(__file__).resolve()
    sys.path.insert(0, str(Path(args.checkout).resolve() if args.checkout else here.parents[2]))
    sys.path.insert(0, str(here.parent))
    from harness import check, load_cases

    cases = [c for c in load_cases() if not args.rules or c.rule in args.rules]
    totals: Counter[str] = Counter()
    per_rule: dict[str, Counter[str]] = {}
    for case in cases:
        result = check(case)
        counts = per_rule.setdefault(case.rule, Counter())
        counts["cases"] += 1
        counts["broken by --fix"] += result.broken_safe
        counts["broken by --unsafe-fixes"] += result.broken_unsafe
        counts["problems"] += bool(result.problems)
        if args.verbose or result.problems:
            mark = "FAIL" if result.problems else "ok"
            print(f"{mark:4} {case.id}")
            for problem in result.problems:
                print(f"       {problem}")
    columns = ["cases", "broken by --fix", "broken by --unsafe-fixes", "problems"]
    print(f"\n{'rule':8}" + "".join(f"{c:>26}" for c in columns))
    for rule in sorted(per_rule):
        totals.update(per_rule[rule])
        print(f"{rule:8}" + "".join(f"{per_rule[rule][c]:>26}" for c in columns))
    print(f"{'total':8}" + "".join(f"{totals[c]:>26}" for c in columns))
    return 1 if totals["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
