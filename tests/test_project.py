"""The project's own modules in the device flow: a helper imported from another file is
summarised like one of the file's own functions, in the CLI and in flake8 alike."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_support import run, write
from flake8_device.cache import Cache
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
# A helper module whose function calls another module's.
MASK_OF = "from .masks import make_mask\n\n\ndef mask_of(n):\n    return make_mask(n)\n"
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
    assert _flake8(project, "pkg/train.py", "script.py") == EXPECTED


def test_a_helper_is_found_through_a_packages_re_export(project: Path) -> None:
    """``runner/app/train.py`` imports ``utils`` (beside it), whose ``__init__.py`` re-exports the
    helper from the module that defines it."""
    write(project / "runner" / "app" / "utils" / "__init__.py", "from .masks import make_mask as mask_for\n")
    write(project / "runner" / "app" / "utils" / "masks.py", HELPERS)
    write(project / "runner" / "app" / "train.py", ABSOLUTE.replace("import pkg.helpers as helpers\n", "").replace(
        "from pkg.helpers import make_mask", "from utils import mask_for"
    ).replace("model(make_mask(4)), model(helpers.make_mask(4))", "model(mask_for(4))"))
    expected = ["runner/app/train.py:9:18: DEV204 `mask_for(4)` is on the CPU but `model` is on CUDA"]
    assert run("runner/app/train.py", cwd=project).stdout.splitlines() == expected
    assert _flake8(project, "runner/app/train.py") == expected
    # The cache follows the module that defines the helper, not only the package that re-exports it.
    write(project / "runner" / "app" / "utils" / "masks.py", HELPERS.replace("(n, n)", '(n, n, device="cuda")'))
    assert run("runner/app/train.py", cwd=project).stdout == ""
    write(project / "runner" / "app" / "utils" / "masks.py", HELPERS)
    assert run("runner/app/train.py", cwd=project).stdout.splitlines() == expected
    # A re-export of a name the module does not define is not followed further.
    write(project / "runner" / "app" / "utils" / "masks.py", "from .deeper import make_mask\n")
    write(project / "runner" / "app" / "utils" / "deeper.py", HELPERS)
    assert run("runner/app/train.py", cwd=project).stdout == ""


MODELS = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)


class Placed(nn.Module):
    def __init__(self, width, device):
        super().__init__()
        self.fc = nn.Linear(width, width, device=device)


class MovesItself(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.cuda()


class Wrapper(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.fc = nn.Linear(4, 4)
"""


def test_a_model_class_of_another_module_is_a_module_made_on_the_cpu(project: Path) -> None:
    """``Net()`` of a project module whose construction builds layers (and nothing that could place
    them) is a module on the CPU; one that takes a device, moves itself or wraps what it is given
    is not known to be."""
    write(project / "pkg" / "models.py", MODELS)
    script = (
        "import torch\nfrom torch import nn\n\nfrom pkg.models import MovesItself, Net, Placed, Wrapper\n\n\n"
        "def run(device):\n"
        "    x = torch.randn(2, 4, device=device)\n"
        "    outputs = [MovesItself(4)(x), Placed(4, device)(x), Wrapper(nn.Linear(4, 4).to(device))(x)]\n"
        "    return Net(4)(x), outputs\n"
    )
    write(project / "run.py", script)
    found = run("--no-cache", "--select", "DEV2", "run.py", cwd=project).stdout.splitlines()
    assert [" ".join(line.split(" ")[:2]) for line in found] == ["run.py:10:12: DEV201"], found
    # Defined in this file instead, ``Net`` is the same module and ``Placed`` (its device given by
    # position) and ``MovesItself`` are placed: the file's own classes agree.  (``Wrapper``'s own
    # layer, which the file's analysis sees on the CPU, is left unknown across modules.)
    write(project / "run.py", script.replace("from pkg.models import MovesItself, Net, Placed, Wrapper\n", "")
          .replace("import torch\nfrom torch import nn\n", MODELS))
    local = run("--no-cache", "--select", "DEV201", "run.py", cwd=project).stdout.splitlines()
    reported = [line.split(" ")[2].strip("`") for line in local]
    assert reported == ["Wrapper(nn.Linear(4,", "Net(4)"], reported


def test_a_default_device_set_by_an_imported_module_reaches_the_importers_loaders(project: Path) -> None:
    """RTFM's shape: ``dataset.py`` sets a CUDA default tensor type when imported, and the script
    that imports it shuffles a loader with a CPU generator."""
    dataset = (
        "import torch\nfrom torch.utils.data import DataLoader, Dataset\n\n"
        'torch.set_default_tensor_type("torch.cuda.FloatTensor")\n\n\n'
        "class Clips(Dataset):\n    def __len__(self):\n        return 4\n"
    )
    write(project / "data" / "clips.py", dataset)
    script = "from torch.utils.data import DataLoader\n\nfrom clips import Clips\n\n"
    script += "loader = DataLoader(Clips(), shuffle=True)\n"
    write(project / "data" / "main.py", script)
    found = run("--no-cache", "--select", "DEV304", "data/main.py", "data/clips.py", cwd=project).stdout.splitlines()
    assert [line.split(" ")[0] for line in found] == ["data/clips.py:4:1:", "data/main.py:5:10:"], found
    assert "(clips.py:4)" in found[1]
    # With a generator, or with the setting made in a function of the imported module: silent.
    write(project / "data" / "main.py", script.replace("shuffle=True", "shuffle=True, generator=g"))
    assert run("--no-cache", "--select", "DEV304", "data/main.py", cwd=project).stdout == ""
    write(project / "data" / "main.py", script)
    in_a_function = 'def setup():\n    torch.set_default_tensor_type("torch.cuda.FloatTensor")\n'
    setting = 'torch.set_default_tensor_type("torch.cuda.FloatTensor")\n'
    write(project / "data" / "clips.py", dataset.replace(setting, in_a_function))
    assert run("--no-cache", "--select", "DEV304", "data/main.py", cwd=project).stdout == ""


def test_a_class_deriving_from_a_module_class_of_another_module_is_a_module(project: Path) -> None:
    """MMAction2's shape: ``CrossEntropyLoss(BaseWeightedLoss)``, whose base (an ``nn.Module``, in
    ``base.py``, re-exported or derived in turn) is imported from the project, keeps its class
    weights as a plain tensor attribute."""
    write(project / "pkg" / "base.py", "from torch import nn\n\n\nclass Base(nn.Module):\n    pass\n")
    write(project / "pkg" / "weighted.py", "from .base import Base\n\n\nclass Weighted(Base):\n    pass\n")
    loss = (
        "import torch\n\nfrom .weighted import Weighted\n\n\nclass Loss(Weighted):\n"
        "    def __init__(self, weights):\n        super().__init__()\n"
        "        self.weights = torch.Tensor(weights)\n\n"
        "    def _forward(self, score: torch.Tensor):\n        return score * self.weights\n"
    )
    write(project / "pkg" / "loss.py", loss)
    assert _found_alike(project, "pkg/loss.py", "DEV102") == [["pkg/loss.py:9:9:", "DEV102"]]
    # A base of the project that is no module: nothing registers, nothing is reported.
    write(project / "pkg" / "base.py", "class Base:\n    pass\n")
    assert run("--no-cache", "--select", "DEV102", "pkg/loss.py", cwd=project).stdout == ""
    # A module base with a `to` of its own (TorchRL's `EnvBase`) moves what it holds by its own
    # code: where the weights go is not known here.
    mover = "from torch import nn\n\n\nclass Base(nn.Module):\n    def to(self, device):\n        return self\n"
    write(project / "pkg" / "base.py", mover)
    assert run("--no-cache", "--select", "DEV102", "pkg/loss.py", cwd=project).stdout == ""


def test_a_class_deriving_from_a_plain_class_of_another_module_keeps_its_tensors_where_they_were_made(
    project: Path,
) -> None:
    """Modyn's shape: a downsampler deriving from the project's ``AbstractStrategy(ABC)`` keeps an
    accumulator made on the host and concatenates the loss of its inputs to it.  A base from
    elsewhere may be a module that moves what it holds; one the project defines as a plain class
    does not."""
    write(project / "pkg" / "base.py", "from abc import ABC\n\n\nclass Strategy(ABC):\n    pass\n")
    strategy = (
        "import torch\nimport torch.nn.functional as F\n\nfrom .base import Strategy\n\n\n"
        "class Rho(Strategy):\n    def __init__(self):\n        self.seen = torch.tensor([])\n\n"
        "    def reset(self):\n        self.seen = torch.tensor([])\n\n"
        "    def inform(self, out: torch.Tensor, target: torch.Tensor):\n"
        "        loss = F.cross_entropy(out, target, reduction='none')\n"
        "        self.seen = torch.cat([self.seen, loss])\n"
    )
    write(project / "pkg" / "rho.py", strategy)
    assert _found_alike(project, "pkg/rho.py", "DEV202") == [["pkg/rho.py:12:21:", "DEV202"]]
    # A base that moves what it holds (its own `to`), or one not known: where `seen` is is not known.
    write(project / "pkg" / "base.py", "class Strategy:\n    def to(self, device):\n        return self\n")
    assert run("--no-cache", "--select", "DEV202", "pkg/rho.py", cwd=project).stdout == ""
    write(project / "pkg" / "base.py", "from elsewhere import Thing\n\n\nclass Strategy(Thing):\n    pass\n")
    assert run("--no-cache", "--select", "DEV202", "pkg/rho.py", cwd=project).stdout == ""


def test_an_import_of_the_package_a_file_sits_in_is_found_from_the_packages_parent(project: Path) -> None:
    """ai-runner's layout: ``runner/app/main.py`` imports ``app.utils`` (run from ``runner/``,
    which is no project root): the helper is the project's, read from ``runner/app/utils.py``."""
    write(project / "runner" / "app" / "utils.py", HELPERS)
    write(project / "runner" / "app" / "main.py", ABSOLUTE.replace("import pkg.helpers as helpers\n", "").replace(
        "from pkg.helpers import make_mask", "from app.utils import make_mask"
    ).replace("model(make_mask(4)), model(helpers.make_mask(4))", "model(make_mask(4))"))
    assert _found_alike(project, "runner/app/main.py", "DEV204") == [["runner/app/main.py:9:18:", "DEV204"]]
    # Not from a folder of that name outside the importer's path.
    write(project / "other" / "main.py", (project / "runner" / "app" / "main.py").read_text())
    assert run("--no-cache", "--select", "DEV204", "other/main.py", cwd=project).stdout == ""


MEL = """\
import torch


class MelSpectrogram(torch.nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.register_buffer("basis", torch.ones(n, n))

    def forward(self, x):
        return x @ self.basis


class MelLoss(torch.nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.mel = MelSpectrogram(n)

    def forward(self, y_hat, y):
        return (self.mel(y_hat) - self.mel(y)).abs().mean()
"""
TRAIN = """\
import torch

from pkg.losses import MelLoss


class Trainer:
    def __init__(self, model, criterion, device):
        self.model, self.criterion, self.device = model, criterion, device

    def step(self, x, y):
        x, y = x.to(self.device), y.to(self.device)
        return self.criterion["mel"](self.model(x), y)


def main(use_mel):
    device = torch.device("cuda")
    criterion = {}
    if use_mel:
        criterion["mel"] = MelLoss()
    trainer = Trainer(torch.nn.Linear(4, 4).to(device), criterion, device)
    return trainer.step(torch.ones(2, 4), torch.ones(2, 4))
"""


def test_a_loss_class_a_package_re_exports_with_a_star_is_a_loss_built_on_the_cpu(project: Path) -> None:
    """ParallelWaveGAN's layout: ``from .mel_loss import *`` in the package's ``__init__.py``; the
    loss builds its buffer through a module class of its own module."""
    write(project / "pkg" / "losses" / "__init__.py", "from .adversarial import *  # NOQA\nfrom .mel import *  # NOQA\n")
    write(project / "pkg" / "losses" / "adversarial.py", "class AdversarialLoss:\n    pass\n")
    write(project / "pkg" / "losses" / "mel.py", MEL)
    write(project / "train.py", TRAIN)
    assert _found_alike(project, "train.py", "DEV302") == [["train.py:19:28:", "DEV302"]]
    # Moved where it is built: no finding.
    write(project / "train.py", TRAIN.replace("MelLoss()", "MelLoss().to(device)"))
    assert _found_alike(project, "train.py", "DEV302,DEV201") == []


LAYERS = """\
import torch
from torch import nn


class Counted(nn.Module):
    \"\"\"Uses ``count`` only to choose a path: it never meets the weights.\"\"\"

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, count):
        if count.max() == 0:
            return self.fc(x)
        return self.fc(x) * 2


class Scaled(nn.Module):
    \"\"\"Multiplies its output by ``scale``: the two meet.\"\"\"

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, scale):
        return self.fc(x) * scale


class Outer(nn.Module):
    \"\"\"Hands ``count`` to a layer of its own module that only counts it.\"\"\"

    def __init__(self):
        super().__init__()
        self.inner = Counted()

    def forward(self, x, count):
        return self.inner(x, count)
"""
SEPARATOR = """\
import torch
from torch import nn

from pkg import layers
from pkg.layers import Counted, Outer, Scaled


class Separator(nn.Module):
    def __init__(self, kind):
        super().__init__()
        Layer = Counted if kind == "counted" else Outer
        self.layer = Layer()
        self.dotted = layers.Counted()
        self.scaled = Scaled()

    def forward(self, x):
        count = torch.zeros(1)
        return self.layer(x, count) + self.dotted(x, count) + self.scaled(x, torch.ones(1, 4))


def main():
    model = Separator("counted").cuda()
    return model(torch.ones(2, 4).cuda())
"""


def test_a_layer_of_a_project_class_meets_only_the_arguments_its_forward_uses(project: Path) -> None:
    """espnet's FaSNet separator: a CPU count handed to layers whose ``forward`` (in another module,
    through a layer of that module, or chosen by a local of ``__init__``) only tests it meets
    nothing; a CPU tensor that a layer's ``forward`` multiplies with its output is still found."""
    write(project / "pkg" / "layers.py", LAYERS)
    write(project / "pkg" / "separator.py", SEPARATOR)
    assert _found_alike(project, "pkg/separator.py", "DEV202") == [["pkg/separator.py:18:78:", "DEV202"]]
    # The summaries of the methods, kept in the cache and read back by a later run (of the file
    # changed, so that its own findings are not simply read back), say the same.
    cold = run("--select", "DEV202", "pkg/separator.py", cwd=project).stdout
    write(project / "pkg" / "separator.py", SEPARATOR + "# changed\n")
    assert run("--select", "DEV202", "pkg/separator.py", cwd=project).stdout == cold
    assert cold.count("DEV202") == 1
    # A layer whose forward multiplies by the count: the count made on the CPU is found there too.
    write(project / "pkg" / "layers.py", LAYERS.replace("if count.max() == 0:", "if (x * count).max() == 0:"))
    found = _found_alike(project, "pkg/separator.py", "DEV202")
    assert ["pkg/separator.py:17:17:", "DEV202"] in found


def _found_alike(project: Path, path: str, code: str) -> list[list[str]]:
    """The position and code of each ``code`` finding in ``path``, from the CLI, checked to be
    flake8's findings too."""
    found = run("--no-cache", "--select", code, path, cwd=project).stdout.splitlines()
    assert _flake8(project, path, select=code) == found
    return [line.split(" ")[:2] for line in found]


def _flake8(project: Path, *files: str, env: dict[str, str] | None = None, select: str = "DEV2") -> list[str]:
    """flake8's findings (``select``: DEV2 by default) on ``files``, run in ``project``."""
    command = [sys.executable, "-m", "flake8", "--select", select, *files]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, check=False, env=env)
    return done.stdout.splitlines()


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
    write(project / "pkg" / "helpers.py", MASK_OF)
    write(project / "pkg" / "masks.py", HELPERS)
    engine = Engine([r for r in all_rules() if r.default_enabled])
    text = ABSOLUTE.replace("model(make_mask(4)), model(helpers.make_mask(4))", "model(helpers.mask_of(4))")
    assert [v.code for v in engine.lint(text, path=str(project / "script.py")).violations] == ["DEV204"]
    write(project / "pkg" / "masks.py", HELPERS.replace("torch.ones(n, n)", 'torch.ones(n, n, device="cuda")'))
    assert [v.code for v in engine.lint(text, path=str(project / "script.py")).violations] == []


def _engine(store: Cache | None) -> Engine:
    engine = Engine([r for r in all_rules() if r.default_enabled])
    engine.project.store = store
    return engine


def _parsed_modules(engine: Engine) -> list[str]:
    """The project modules the engine parsed with LibCST (to make summaries)."""
    return sorted(Path(m.path).name for _, m in engine.project._loaded.values() if m and "facts" in m.__dict__)


def _helpers_then_other(project: Path) -> tuple[Engine, list[Any], str]:
    """An engine that linted ``script.py`` (which calls ``pkg.helpers``), then a script calling
    ``pkg.other``; the findings of the first, and its path."""
    write(project / "pkg" / "other.py", HELPERS.replace("make_mask", "other_mask"))
    other = ABSOLUTE.replace("helpers", "other").replace("make_mask", "other_mask")
    script = str(project / "script.py")
    engine = _engine(None)
    first = engine.lint(ABSOLUTE, path=script).violations
    engine.lint(other, path=str(project / "other_script.py"))
    return engine, first, script


def _kept_modules(engine: Engine) -> dict[str, Any]:
    return {Path(m.path).name: m for _, m in engine.project._loaded.values() if m}


def test_a_module_dropped_from_the_parsed_ones_is_not_parsed_again_for_its_summaries(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import flake8_device.project as project_modules

    monkeypatch.setattr(project_modules, "MAX_MODULES", 1)
    monkeypatch.setattr(project_modules, "MAX_PARSED", 1)
    engine, first, script = _helpers_then_other(project)
    assert _parsed_modules(engine) == ["other.py"]  # (``pkg.other`` took the one place)
    again = engine.lint(ABSOLUTE, path=script)
    assert list(_kept_modules(engine)) == ["helpers.py"]
    assert _parsed_modules(engine) == []  # its summary was kept for the process
    assert [v.code for v in again.violations] == ["DEV204"] * 2
    assert again.violations == first


def test_a_module_kept_without_its_parse_is_not_read_again(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import flake8_device.project as project_modules

    monkeypatch.setattr(project_modules, "MAX_PARSED", 1)
    engine, first, script = _helpers_then_other(project)
    assert _parsed_modules(engine) == ["other.py"]  # (one parse kept: the latest)
    kept = _kept_modules(engine)
    assert sorted(kept) == ["helpers.py", "other.py"]
    again = engine.lint(ABSOLUTE, path=script)
    assert _kept_modules(engine)["helpers.py"] is kept["helpers.py"]
    assert _parsed_modules(engine) == ["other.py"]  # its summary was kept: no parse
    assert again.violations == first
    # A change to the module is still seen.
    write(project / "pkg" / "helpers.py", HELPERS.replace("torch.ones(n, n)", 'torch.ones(n, n, device="cuda")'))
    assert engine.lint(ABSOLUTE, path=script).violations == []


def test_a_later_process_reads_summaries_back_instead_of_parsing_the_module(
    project: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flake8_device.analysis.flow import FlowAnalysis

    left: list[int] = []
    run_all = FlowAnalysis._run

    def spent(self):  # type: ignore[no-untyped-def]
        run_all(self)
        left.append(self.budget.file_left)

    monkeypatch.setattr(FlowAnalysis, "_run", spent)
    store = Cache(str(tmp_path_factory.mktemp("cache")))
    script = str(project / "script.py")
    alone = _engine(None).lint(ABSOLUTE, path=script)
    first = _engine(store)  # (each engine stands for a process: its own modules and summaries)
    assert first.lint(ABSOLUTE, path=script).violations == alone.violations
    assert _parsed_modules(first) == ["helpers.py"]
    later = _engine(store)
    found = later.lint(ABSOLUTE, path=script)
    assert _parsed_modules(later) == []
    assert [v.code for v in found.violations] == ["DEV204"] * 2
    assert found.violations == alone.violations
    assert left[0] == left[1] == left[2]  # the same steps paid as when the summary is made
    assert str(project / "pkg" / "helpers.py") in found.project_reads


def test_a_stored_summary_is_not_read_once_a_module_its_making_read_has_changed(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    store = Cache(str(tmp_path_factory.mktemp("cache")))
    write(project / "pkg" / "helpers.py", MASK_OF)
    write(project / "pkg" / "masks.py", HELPERS)
    text = ABSOLUTE.replace("model(make_mask(4)), model(helpers.make_mask(4))", "model(helpers.mask_of(4))")
    script = str(project / "script.py")
    assert [v.code for v in _engine(store).lint(text, path=script).violations] == ["DEV204"]
    write(project / "pkg" / "masks.py", HELPERS.replace("torch.ones(n, n)", 'torch.ones(n, n, device="cuda") '))
    later = _engine(store)
    found = later.lint(text, path=script)
    assert found.violations == []
    assert _parsed_modules(later) == ["helpers.py", "masks.py"]
    # The module the stored summary read is among the files the CLI's findings depend on.
    assert str(project / "pkg" / "masks.py") in _engine(store).lint(text, path=script).project_reads


def test_a_stored_summary_that_is_not_the_tools_own_is_a_miss(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Entries of any other shape are misses (the reader builds the flow's own classes only)."""
    folder = tmp_path_factory.mktemp("cache")
    store = Cache(str(folder))
    script = str(project / "script.py")
    expected = _engine(store).lint(ABSOLUTE, path=script).violations
    entries = sorted((folder / "entries").rglob("*.json"))
    assert entries
    forged = [
        "not json",
        '{"format": 2, "def": "def make_mask(n): ...", "summary": {"summary": null}, "steps": 1, "reads": {}}',
        '{"format": 2, "def": "def make_mask(n): ...", "summary": {"summary": {"X": {}}, "nodes": []},'
        ' "steps": 1, "reads": {}}',
        '{"format": 2, "def": "def make_mask(n): ...", "summary": {"summary": {"S": {"nope": 1}}, "nodes": []},'
        ' "steps": 1, "reads": {}}',
        '{"format": 2, "def": "def make_mask(n): ...", "summary": {"summary": {"N": 3}, "nodes": []},'
        ' "steps": 1, "reads": {}}',
    ]
    for text in forged:
        for entry in entries:
            entry.write_text(text, encoding="utf-8")
        later = _engine(store)
        assert later.lint(ABSOLUTE, path=script).violations == expected, text
        assert _parsed_modules(later) == ["helpers.py"]  # made again


def test_the_cli_keeps_summaries_in_its_cache_and_flake8_in_the_users(project: Path, tmp_path: Path) -> None:
    run("--no-cache", "script.py", cwd=project)
    assert not (project / ".flake8-device-cache").exists()
    run("script.py", cwd=project)
    stored = [p for p in (project / ".flake8-device-cache" / "entries").rglob("*.json") if '"def"' in p.read_text()]
    assert len(stored) == 1  # make_mask's summary (and the script's findings)
    home = tmp_path / "xdg"
    env = {**os.environ, "XDG_CACHE_HOME": str(home)}
    for _ in range(2):  # made and kept, then read back
        assert _flake8(project, "script.py", env=env) == EXPECTED[1:]
    assert len(list((home / "flake8-device" / "entries").rglob("*.json"))) == 1


def test_the_users_cache_keeps_a_bounded_number_of_entries(tmp_path: Path) -> None:
    cache = Cache(str(tmp_path), bound=3)
    keys = [cache.entry_key("x", str(i)) for i in range(400)]
    for key in keys:
        cache.put(key, {"n": 1})
    folders = [f for f in (tmp_path / "entries").iterdir() if f.is_dir()]
    assert max(len(list(f.glob("*.json"))) for f in folders) == 3
    assert cache.get(keys[-1]) == {"n": 1, "format": 2}
