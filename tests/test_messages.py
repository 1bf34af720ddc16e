"""What the messages say: devices as the code writes them, and nothing the analysis does not know."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run, write
from flake8_device.engine import Engine
from flake8_device.registry import rule_by_code


def test_display_only_findings_end_with_their_remedy_in_text_only(tmp_path: Path) -> None:
    source = "import torch\nmask = torch.ones(3) > 0\ny = torch.ones(3).cuda().masked_fill(mask == 0, 0)\n"
    write(tmp_path / "mixed.py", source)
    text = run("mixed.py", cwd=tmp_path).stdout
    remedy = "(to fix: align the devices, e.g. `(mask == 0).cuda()` or `torch.ones(3).cuda().cpu()`)"
    assert text.rstrip().endswith(remedy)
    (item,) = json.loads(run("--format", "json", "mixed.py", cwd=tmp_path).stdout)
    assert "to fix" not in item["message"] and item["fix"]["safety"] == "display-only"


def test_device_names_are_written_as_the_code_writes_them(tmp_path: Path) -> None:
    source = "import torch\nz = torch.ones(3).to(0) + torch.zeros(3)\nm = torch.ones(3).to('meta') + torch.zeros(3)\n"
    write(tmp_path / "names.py", source)
    out = run("names.py", cwd=tmp_path).stdout
    assert "is on `0`;" in out and "is on `'meta'`;" in out


def messages(code: str, source: str) -> list[str]:
    rule = rule_by_code(code)
    assert rule is not None
    return [v.message for v in Engine([rule]).lint(source).violations]


def test_dev204_names_the_data_loader_only_when_the_input_comes_from_one() -> None:
    source = (
        "import torch\nfrom torch import nn\n\ndevice = torch.device('cuda')\nmodel = nn.Linear(8, 3).to(device)\n"
        "for inputs, targets in loader:\n    outputs = model(inputs)\nx = torch.randn(4, 8)\ny = model(x)\n"
    )
    assert messages("DEV204", source) == [
        "`inputs` comes from the data loader `loader` on the CPU but `model` is on `device`",
        "`x` is on the CPU but `model` is on `device`",
    ]


def test_dev207_says_what_goes_wrong() -> None:
    rule = rule_by_code("DEV207")
    assert rule is not None
    (message,) = messages("DEV207", rule.code_block("Example"))
    assert message == (
        "`torch.ones(x.shape[-1]).cuda()` hard-codes CUDA inside a module: it fails once the module runs on "
        "the CPU, MPS or another GPU"
    )


def test_a_cuda_move_is_named_cuda_not_a_bare_name() -> None:
    source = "import torch\ny = torch.ones(3).cuda() + torch.zeros(3)\n"
    assert "is on CUDA;" in messages("DEV201", source)[0]
