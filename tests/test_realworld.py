"""The real-world benchmark (bench/realworld) in the normal suite: every case is well formed, its
bad side fails on the meta device where it says so and its good side runs, and recall and false
alarms on the reconstructed cases do not regress.

The floors are the figures measured when they were last raised (``python3 bench/realworld/run.py
--no-corpora`` prints them); a change that finds more cases raises them, one that loses a case
fails here and must say why.
"""

from __future__ import annotations

import os

import pytest

from fixture_support import realworld

CASES = realworld.all_cases()
# Cases found (a default-on finding on a ``report`` line of the bad side) and false alarms (any
# default-on finding on the good side), out of len(CASES).
FOUND_AT_LEAST = 98
FALSE_ALARMS_AT_MOST = 5


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_is_well_formed(case: realworld.Case) -> None:
    assert realworld.validate(case) == []


RUNNABLE = [c for c in CASES if c.runnable]


@pytest.mark.parametrize("case", RUNNABLE, ids=[c.id for c in RUNNABLE])
def test_meta_oracle_agrees_with_the_case(case: realworld.Case) -> None:
    if os.environ.get("FLAKE8_DEVICE_REQUIRE_TORCH") != "1":
        pytest.importorskip("torch", reason="the meta-device oracle needs torch (CI installs torch==2.13.0)")
    assert realworld.meta_problems(case) == []


def test_recall_and_false_alarms_do_not_regress() -> None:
    found: list[str] = []
    alarms: list[str] = []
    for case in CASES:
        hit, lines = realworld.detected(case)
        if hit:
            found.append(case.id)
        if any(line.startswith("good/") for line in lines):
            alarms.append(case.id)
    assert len(CASES) >= 155
    assert len(found) >= FOUND_AT_LEAST, f"found {len(found)} of {len(CASES)} cases (floor {FOUND_AT_LEAST})"
    assert len(alarms) <= FALSE_ALARMS_AT_MOST, f"false alarms on: {', '.join(alarms)}"


@pytest.mark.parametrize(
    ("driver", "problem"),
    [
        ("def run(program, device):\n    program['main'](device)\n", None),
        ("def run(device):\n    pass\n", "run must take (program, device)"),
        ("def main(program, device):\n    pass\n", "defines no run(program, device)"),
        ("def run(program, device:\n", "cuda_driver.py: "),
    ],
)
def test_a_cuda_driver_must_define_run_of_program_and_device(tmp_path, driver: str, problem: str | None) -> None:
    case = CASES[0]
    copy = tmp_path / case.id
    copy.mkdir()
    for path in case.folder.iterdir():
        if path.is_file() and path.name != "cuda_driver.py":
            (copy / path.name).write_bytes(path.read_bytes())
        elif path.is_dir():
            (copy / path.name).mkdir()
            for inner in path.glob("*.py"):
                (copy / path.name / inner.name).write_bytes(inner.read_bytes())
    (copy / "cuda_driver.py").write_text(driver, encoding="utf-8")
    problems = realworld.validate(realworld.Case(copy))
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_a_real_file_is_extracted_with_the_project_modules_it_imports() -> None:
    """Whole real files are linted beside the repository's modules they import, as in a checkout."""
    from realfiles import imported_modules  # (bench/realworld is on the path: fixture_support)

    source = b"from utils import get_device\nfrom . import base\nfrom .models import net\nimport tools.io\nimport os\n"
    available = {
        "runner/app/utils.py",
        "runner/app/base.py",
        "runner/app/models/__init__.py",
        "runner/app/models/net.py",
        "runner/utils.py",  # (not beside the file, nor at the root: Python would not find it either)
        "tools/io.py",
    }
    found = imported_modules(source, "runner/app/audio.py", available)
    assert found == [
        "runner/app/utils.py",
        "runner/app/base.py",
        "runner/app/models/__init__.py",
        "runner/app/models/net.py",
        "tools/io.py",
    ]
    assert imported_modules(b"def broken(:\n", "x.py", available) == []
    # An import naming the package the file sits in is found from that package's parent folder.
    nested = {"runner/app/pipelines/utils.py", "runner/app/pipelines/audio.py"}
    found = imported_modules(b"from app.pipelines.utils import get_device\n", "runner/app/pipelines/audio.py", nested)
    assert found == ["runner/app/pipelines/utils.py"]
    # A name a package re-exports is followed to the module that defines it.
    packaged = {"runner/app/utils/__init__.py", "runner/app/utils/devices.py"}
    texts = {"runner/app/utils/__init__.py": b"from .devices import get_device as device_of\n"}
    found = imported_modules(b"from .utils import device_of\n", "runner/app/audio.py", packaged, texts.__getitem__)
    assert found == ["runner/app/utils/__init__.py", "runner/app/utils/devices.py"]
    # Also through ``from .x import *`` (the one that defines it), and for each import of the package.
    packaged = {"losses/__init__.py", "losses/adversarial.py", "losses/mel.py"}
    texts = {
        "losses/__init__.py": b"from .adversarial import *\nfrom .mel import *\n",
        "losses/adversarial.py": b"class AdversarialLoss:\n    pass\n",
        "losses/mel.py": b"import torch\n\n\nclass MelLoss(torch.nn.Module):\n    pass\n",
    }
    source = b"from losses import AdversarialLoss\nfrom losses import MelLoss\n"
    found = imported_modules(source, "train.py", packaged, texts.__getitem__)
    assert found == ["losses/__init__.py", "losses/adversarial.py", "losses/mel.py"]
