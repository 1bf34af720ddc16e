"""Known-bug advisories: the table, and releases on both sides of every range from pins, metadata and options."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flake8_device import advisories
from flake8_device.registry import rule_by_code

# One use of each advisory's trigger (and a DeepSpeed JSON config), as a user's project would hold them.
TRIGGERS = {
    "ds.py": (
        "import deepspeed\n\n\ndef engine(model):\n"
        '    config = {"gradient_clipping": 1.0, "zero_optimization": {"stage": 3,\n'
        '        "offload_optimizer": {"device": "cpu"}}}\n'
        "    return deepspeed.initialize(model=model, config=config)\n"
    ),
    "ds_config.json": json.dumps(
        {"gradient_clipping": "auto", "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}},
        indent=2,
    ),
    "spec.py": (
        "from composer.core import DataSpec\n\n\ndef spec(loader, augment):\n"
        "    return DataSpec(loader, device_transforms=augment)\n"
    ),
    "mps.py": (
        "from composer import Trainer\n\n\ndef fit(model, train, val):\n"
        '    return Trainer(model=model, train_dataloader=train, eval_dataloader=val, device="mps")\n'
    ),
    "lr.py": (
        "import lightning as L\nfrom lightning.pytorch.tuner import Tuner\n\n\ndef main(model):\n"
        '    trainer = L.Trainer(strategy="ddp", devices=2)\n'
        "    Tuner(trainer).lr_find(model)\n"
    ),
}
ALL_FILES = sorted(TRIGGERS)

# (releases, the files that must report): inside and outside every range, at and next to each bound.
SCENARIOS = [
    (
        {"deepspeed": "0.14.1", "mosaicml": "0.25.0", "lightning": "2.3.3"},
        {"ds.py", "ds_config.json", "spec.py", "lr.py"},
    ),
    (
        {"deepspeed": "0.14.2", "mosaicml": "0.26.0", "pytorch-lightning": "1.9.5"},
        {"ds.py", "ds_config.json", "spec.py", "lr.py"},
    ),
    ({"deepspeed": "0.14.0", "mosaicml": "0.21.1", "lightning": "2.4.0"}, {"mps.py"}),
    ({"deepspeed": "0.14.3", "mosaicml": "0.27.0", "lightning": "2.4.1"}, set()),
    ({"deepspeed": "0.14.5", "mosaicml": "0.10.0"}, {"mps.py"}),
    ({"mosaicml": "0.24.1"}, set()),
    ({"mosaicml": "0.9.0"}, set()),
    ({"mosaicml": "0.21.2"}, set()),
]


def make_project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in TRIGGERS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def lint(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8_device", "--select", "DEV6", "-j", "1", *args, *ALL_FILES],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def reporting(output: str) -> set[str]:
    return {line.split(":", 1)[0] for line in output.splitlines() if re.search(r": DEV6\d\d ", line)}


@pytest.mark.parametrize(("releases", "expected"), SCENARIOS, ids=[str(s[0]) for s in SCENARIOS])
def test_pinned_releases_on_both_sides_of_each_range(
    tmp_path: Path, releases: dict[str, str], expected: set[str]
) -> None:
    root = make_project(tmp_path / "project")
    (root / "requirements.txt").write_text("".join(f"{n}=={v}\n" for n, v in releases.items()))
    result = lint(root)
    assert result.returncode == (1 if expected else 0), result.stderr
    assert reporting(result.stdout) == expected
    for line in result.stdout.splitlines():
        assert "(pinned in requirements.txt)" in line


def fake_site(root: Path, releases: dict[str, str]) -> Path:
    """Installed distributions as ``importlib.metadata`` finds them: ``NAME-VERSION.dist-info/METADATA``."""
    for name, version in releases.items():
        info = root / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return root


@pytest.mark.parametrize(("releases", "expected"), SCENARIOS[:4], ids=[str(s[0]) for s in SCENARIOS[:4]])
def test_installed_releases_on_both_sides_of_each_range(
    tmp_path: Path, releases: dict[str, str], expected: set[str]
) -> None:
    root = make_project(tmp_path / "project")  # no pins: the installed distributions decide
    site = fake_site(tmp_path / "site", releases)
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = lint(root, env=env)
    assert reporting(result.stdout) == expected, result.stderr
    for line in result.stdout.splitlines():
        assert "(installed)" in line


def test_without_any_known_release_nothing_is_reported(tmp_path: Path) -> None:
    result = lint(make_project(tmp_path / "project"))
    assert (result.returncode, result.stdout) == (0, "")


def test_the_option_overrides_pins_both_ways(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    (root / "requirements.txt").write_text("deepspeed==0.14.2\nmosaicml==0.30.0\n")
    silenced = lint(root, "--device-versions", "deepspeed=0.14.5")
    assert reporting(silenced.stdout) == set()
    raised = lint(root, "--device-versions", "mosaicml=0.26.0,deepspeed=0.14.5")
    assert reporting(raised.stdout) == {"spec.py"}
    assert "Composer 0.26.0 (configured)" in raised.stdout


def test_a_malformed_override_is_a_usage_error(tmp_path: Path) -> None:
    result = lint(make_project(tmp_path / "project"), "--device-versions", "deepspeed==0.14.2")
    assert result.returncode == 2
    assert 'expected a version string like "2.1.0"' in result.stderr and len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr


def flake8(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "DEV6", *args, "ds.py", "spec.py", "lr.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_flake8_reads_pins_and_the_option(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    (root / "requirements.txt").write_text("deepspeed==0.14.1\n")
    assert reporting(flake8(root).stdout) == {"ds.py"}
    overridden = flake8(root, "--device-versions", "deepspeed=0.14.3,lightning=2.2.0")
    assert reporting(overridden.stdout) == {"lr.py"}
    bad = flake8(root, "--device-versions", "lightning")
    assert bad.returncode == 2 and "--device-versions: 'lightning' is not PACKAGE=VERSION" in bad.stderr
    assert "Traceback" not in bad.stderr


# -- the table itself ------------------------------------------------------------------


def test_every_advisory_has_its_rule_and_its_docs_name_range_and_references() -> None:
    table = advisories.advisories()
    assert set(table) == {"DEV601", "DEV602", "DEV603", "DEV604"}
    for code, entry in table.items():
        rule = rule_by_code(code)
        assert rule is not None and rule.family == "advisories"
        doc = rule.__doc__ or ""
        for reference in entry.references:
            assert f"#{reference.rsplit('#', 1)[1]}" in doc, (code, reference)
        for bound in (entry.affected.introduced, entry.affected.fixed):
            if bound is not None:
                assert str(bound) in doc, (code, bound)
        assert entry.packages and entry.way_out and entry.trigger and entry.symptom


@pytest.mark.parametrize(
    "entry",
    [
        {"introduced": None, "fixed": None},
        {"introduced": "2.0", "fixed": "1.0"},
        {"introduced": "soon", "fixed": "1.0"},
    ],
)
def test_malformed_table_entries_are_refused(entry: dict[str, object]) -> None:
    base = {
        "code": "DEV699",
        "project": "X",
        "packages": ["x"],
        "trigger": "t",
        "symptom": "s",
        "references": ["o/r#1"],
        "way_out": "w",
    }
    with pytest.raises(advisories.AdvisoryTableError):
        advisories.parse_table(json.dumps({"advisories": [{**base, **entry}]}))


def test_the_table_ships_with_the_package(tmp_path: Path) -> None:
    """The data file is package data: a wheel built from the sources holds it."""
    root = Path(__file__).resolve().parent.parent
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside the sources
    shutil.copytree(root, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "tests"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)]
    result = subprocess.run([*command, str(source)], capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {result.stderr.strip().splitlines()[-1:]}")
    (wheel,) = tmp_path.glob("flake8_device-*.whl")
    assert "flake8_device/data/advisories.json" in zipfile.ZipFile(wheel).namelist()
