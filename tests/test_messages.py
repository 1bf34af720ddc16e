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


def related(code: str, source: str) -> list[tuple[int, str, list[tuple[int, int, str]]]]:
    rule = rule_by_code(code)
    assert rule is not None
    return [
        (v.line, v.message, [(r.line, r.col, r.message) for r in v.related])
        for v in Engine([rule]).lint(source).violations
    ]


POSITIONS = """import torch
from torch import nn


class PositionalEmbedding(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim)

    def forward(self, x):
        pos = torch.arange(x.size(1))
        y = x * 2
        return y + self.emb(pos)
"""


def test_a_finding_where_the_fix_goes_names_where_the_values_meet() -> None:
    # DEV202 is reported at the factory (where `device=` goes); the meeting is two lines below.
    assert related("DEV202", POSITIONS) == [
        (
            11,
            "`torch.arange(...)` creates a tensor on the CPU that meets `self.emb` in `self.emb(...)` (line 13)",
            [(13, 19, "the tensor meets `self.emb` here, in `self.emb(...)`")],
        )
    ]
    # On one line, the message names no line and there is no related place.
    one_line = POSITIONS.replace("        pos = torch.arange(x.size(1))\n", "").replace(
        "self.emb(pos)", "self.emb(torch.arange(x.size(1)))"
    )
    ((_, message, places),) = related("DEV202", one_line)
    assert "(line" not in message and places == []


def test_state_fed_to_a_moved_model_is_reported_where_it_is_made() -> None:
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Agent:\n    def __init__(self, device):\n"
        "        self.device = device\n        self.model = nn.GRUCell(4, 4).to(device)\n"
        "        self.memory = torch.zeros(2, 4)\n\n    def act(self, obs):\n"
        "        return self.model(obs.to(self.device), self.memory)\n"
    )
    ((line, message, places),) = related("DEV204", source)
    assert line == 9 and message == "`self.memory` is on the CPU but `self.model` is on `device` (line 12)"
    assert [(place[0], place[2]) for place in places] == [
        (8, "`self.model` is placed on `device` here"),
        (12, "`self.memory` is given to `self.model` here"),
    ]


def test_a_late_attach_names_the_move_it_comes_after() -> None:
    source = (
        "import torch\nfrom torch import nn\n\n\ndef main(device):\n    model = nn.Linear(4, 4)\n"
        "    model.to(device)\n    model.head = nn.Linear(4, 2)\n"
    )
    assert related("DEV101", source) == [
        (
            8,
            "`nn.Linear(4, 2)` is attached to `model` after `model` was moved (line 7), so it stays on the CPU",
            [(7, 4, "`model` is moved here")],
        )
    ]


def test_a_plain_attribute_is_reported_where_it_is_kept_and_names_where_it_meets() -> None:
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Scale(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.lin = nn.Linear(4, 4)\n        self.scale = torch.ones(4)\n\n"
        "    def forward(self, x):\n        return self.lin(x) * self.scale\n"
    )
    ((line, message, places),) = related("DEV102", source)
    assert line == 9 and message.endswith("(line 12)")
    assert [place[0] for place in places] == [12]


def test_related_places_reach_json_sarif_and_the_cache(tmp_path: Path) -> None:
    write(tmp_path / "pos.py", POSITIONS)
    first = json.loads(run("--format", "json", "pos.py", cwd=tmp_path).stdout)
    again = json.loads(run("--format", "json", "pos.py", cwd=tmp_path).stdout)  # from the cache
    assert first == again
    assert first[0]["related"] == [
        {
            "line": 13,
            "column": 20,
            "end_line": 13,
            "end_column": 28,
            "message": "the tensor meets `self.emb` here, in `self.emb(...)`",
        }
    ]
    sarif = json.loads(run("--format", "sarif", "pos.py", cwd=tmp_path).stdout)
    (place,) = sarif["runs"][0]["results"][0]["relatedLocations"]
    assert place["physicalLocation"]["region"] == {"startLine": 13, "startColumn": 20, "endLine": 13, "endColumn": 28}
    assert place["message"]["text"] == "the tensor meets `self.emb` here, in `self.emb(...)`"
