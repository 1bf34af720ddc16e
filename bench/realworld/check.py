"""Validate benchmark cases: ``python3 bench/realworld/check.py [CASE_DIR ...]`` (all cases by default).

For each case: the layout and ``case.json`` (see README.md), the meta-device oracle where the case
declares it runnable, and, for information only, what the linter reports today.  Exits 1 when a
case is malformed or the oracle disagrees with ``case.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import Case, all_cases, detected, meta_problems, validate  # noqa: E402


def main(argv: list[str]) -> int:
    cases = [Case(Path(a).resolve()) for a in argv] if argv else all_cases()
    failed = 0
    for case in cases:
        problems = validate(case)
        if not problems:
            problems = meta_problems(case)
        if problems:
            failed += 1
            print(f"FAIL {case.id}")
            for problem in problems:
                print(f"    {problem}")
            continue
        hit, findings = detected(case)
        print(f"ok   {case.id}  [{'found' if hit else 'missed'} today]")
        for line in findings:
            print(f"    {line}")
    print(f"{len(cases) - failed} of {len(cases)} cases well formed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
