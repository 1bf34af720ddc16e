"""The project's own modules in the device flow: a helper imported from another file is
summarised like one of the file's own functions, in the CLI and in flake8 alike."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import run, write
from flake8_device.engine import Engine
from flake8_device.registry import all_rules
from flake8_device.project import ProjectModules
from flake8_device.configuration.analysis import AnalysisConfig

HELPERS = """\
import torch


def make_mask(n):
    return torch.ones(n, n)


def place(model, device):
    model.to(device)
    return model
"""
RELATIVE = """\
import torch
from torch import nn

from .helpers import make_mask, place


def main():
    device = torch.device("cuda")
    model = place(nn.Linear(4, 4), device)
    mask = make_mask(4)
    return model(mask)
"""
ABSOLUTE = """\
import torch
from torch import nn

import pkg.helpers as helpers
from pkg.helpers import make_mask


def run():
    model = nn.Linear(4, 4).cuda()
    return model(make_mask(4)), model(helpers.make_mask(4))
"""
EXPECTED = [
    "pkg/train.py:11:18: DEV204 `mask` is on the CPU but `model` is on `device`",
    "script.py:10:18: DEV204 `make_mask(4)` is on the CPU but `model` is on CUDA",
    "script.py:10:39: DEV204 `helpers.make_mask(4)` is on the CPU but `model` is on CUDA",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "helpers.py", HELPERS)
    write(tmp_path / "pkg" / "train.py", RELATIVE)
    write(tmp_path / "script.py", ABSOLUTE)
    return tmp_path


def test_a_helper_from_another_module_is_followed_by_the_cli_and_flake8(project: Path) -> None:
    cli = run("--no-cache", "pkg/train.py", "script.py", cwd=project)
    assert cli.stdout.splitlines() == EXPECTED
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "DEV2", "pkg/train.py", "script.py"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert flake8.stdout.splitlines() == EXPECTED


def test_a_helper_that_places_what_it_makes_is_no_finding(project: Path) -> None:
    write(project / "pkg" / "helpers.py", HELPERS.replace("torch.ones(n, n)", 'torch.ones(n, n, device="cuda")'))
    assert run("--no-cache", "script.py", cwd=project).stdout == ""


def test_the_cache_follows_the_imported_module(project: Path) -> None:
    assert run("script.py", cwd=project).stdout.count("DEV204") == 2
    write(project / "pkg" / "helpers.py", HELPERS.replace("torch.ones(n, n)", 'torch.ones(n, n, device="cuda")'))
    assert run("script.py", cwd=project).returncode == 0
    write(project / "pkg" / "helpers.py", HELPERS)
    assert run("script.py", cwd=project).stdout.count("DEV204") == 2


def test_only_the_projects_modules_are_read(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere")
    write(outside / "helpers2.py", HELPERS)
    modules = ProjectModules(AnalysisConfig())
    importer = str(project / "script.py")
    assert modules.load(importer, 0, "torch")[0] is None  # not a file of the project
    assert modules.load(importer, 3, "helpers2")[0] is None  # above the project's root
    assert modules.load(importer, 0, "pkg.helpers")[0] is not None
    assert modules.load(str(project / "pkg" / "train.py"), 1, "helpers")[0] is not None
    write(project / "broken.py", "def broken(:\n")
    assert modules.load(importer, 0, "broken")[0] is None  # a module that does not parse: not followed


def test_a_file_alone_or_on_stdin_reads_no_other_module(project: Path) -> None:
    engine = Engine([r for r in all_rules() if r.default_enabled])
    assert [v.code for v in engine.lint(ABSOLUTE).violations] == []  # no path: the file alone
    assert [v.code for v in engine.lint(ABSOLUTE, path=str(project / "script.py")).violations] == ["DEV204"] * 2


def test_a_summary_is_made_once_per_process_and_paid_for_by_every_file(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another module's summaries are kept for the whole process, and a file's work, so its budget
    and its findings, never depends on the files checked before it: every file that calls a kept
    summary spends the steps it took to make."""
    from flake8_device.analysis.flow import FlowAnalysis
    from flake8_device.analysis.flow.interpreter import Interpreter

    summarised: list[str] = []
    left: list[int] = []
    summarize, run_all = Interpreter.summarize, FlowAnalysis._run

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.function is not None:
            summarised.append(self.function.name.value)
        return summarize(self, *args, **kwargs)

    def spent(self):  # type: ignore[no-untyped-def]
        run_all(self)
        left.append(self.budget.file_left)

    monkeypatch.setattr(Interpreter, "summarize", counted)
    monkeypatch.setattr(FlowAnalysis, "_run", spent)
    script = str(project / "script.py")
    alone = Engine([r for r in all_rules() if r.default_enabled]).lint(ABSOLUTE, path=script)
    assert summarised.count("make_mask") == 1
    engine = Engine([r for r in all_rules() if r.default_enabled])
    engine.lint(RELATIVE, path=str(project / "pkg" / "train.py"))
    summarised.clear()
    found = engine.lint(ABSOLUTE, path=script)
    assert "make_mask" not in summarised  # kept from the file before
    assert found.violations == alone.violations
    assert left[-1] == left[0]  # and paid for as if it had been made for this file


def test_a_kept_module_is_read_again_when_a_module_it_imports_changes(project: Path) -> None:
    helpers = "from .masks import make_mask\n\n\ndef mask_of(n):\n    return make_mask(n)\n"
    write(project / "pkg" / "helpers.py", helpers)
    write(project / "pkg" / "masks.py", HELPERS)
    engine = Engine([r for r in all_rules() if r.default_enabled])
    text = ABSOLUTE.replace("model(make_mask(4)), model(helpers.make_mask(4))", "model(helpers.mask_of(4))")
    assert [v.code for v in engine.lint(text, path=str(project / "script.py")).violations] == ["DEV204"]
    write(project / "pkg" / "masks.py", HELPERS.replace("torch.ones(n, n)", 'torch.ones(n, n, device="cuda")'))
    assert [v.code for v in engine.lint(text, path=str(project / "script.py")).violations] == []
