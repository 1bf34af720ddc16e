"""DEV3xx behaviour that one fixture file cannot show: file-wide settings and fix levels."""

from __future__ import annotations

import textwrap

from flake8_device.engine import Engine
from flake8_device.model import FixSafety
from flake8_device.registry import rule_by_code


def lint(code: str, source: str) -> list[tuple[int, FixSafety]]:
    rule = rule_by_code(code)
    assert rule is not None
    result = Engine([rule]).lint(textwrap.dedent(source))
    assert result.error is None and not result.internal_errors
    return [(v.line, v.fix_safety) for v in result.violations]


LOADER = """
import torch
from torch.utils.data import DataLoader

def make_loader(dataset):
    return DataLoader(dataset, shuffle=True)
"""


def test_default_device_set_at_module_level_reaches_every_loader() -> None:
    assert lint("DEV304", LOADER + "\ntorch.set_default_device('cuda')\n") == [(6, FixSafety.DISPLAY_ONLY)]


def test_default_device_set_in_another_function_is_not_followed() -> None:
    # Whether `setup` runs before the loader is iterated cannot be told.
    assert lint("DEV304", LOADER + "\ndef setup():\n    torch.set_default_device('cuda')\n") == []


def test_default_device_set_in_the_same_function() -> None:
    source = """
    import torch
    from torch.utils.data import DataLoader

    def main(dataset):
        torch.set_default_tensor_type(torch.cuda.FloatTensor)
        return DataLoader(dataset, shuffle=True)
    """
    assert lint("DEV304", source) == [(7, FixSafety.DISPLAY_ONLY)]


def test_no_default_device_or_the_cpu_one() -> None:
    assert lint("DEV304", LOADER) == []
    assert lint("DEV304", LOADER + "\ntorch.set_default_device('cpu')\n") == []
    assert lint("DEV304", LOADER + "\nwith torch.device('cuda'):\n    pass\n") == []


def test_generator_rule_stays_silent_on_implicit_draws_under_a_default_device() -> None:
    source = """
    import torch
    from torch.utils.data import DataLoader

    torch.set_default_device("cuda")

    def make(dataset):
        generator = torch.Generator(device="cuda")
        return DataLoader(dataset, shuffle=True, generator=generator), torch.rand(3, generator=generator)
    """
    assert lint("DEV303", source) == []


def test_optimizer_fix_is_display_only_when_statements_are_apart() -> None:
    source = """
    import torch
    from torch import nn

    model = nn.Linear(2, 2)
    optimizer = torch.optim.Adagrad(model.parameters())
    model.train()
    model.to("cuda")
    """
    assert lint("DEV301", source) == [(6, FixSafety.DISPLAY_ONLY)]


def test_index_fix_uses_the_recorded_move_when_the_indexed_tensor_is_an_expression() -> None:
    source = """
    import torch

    def f(device):
        return torch.gather(torch.ones(2, 2, device=device), 1, torch.zeros(2, 1, dtype=torch.long))
    """
    # The indexed tensor is an expression: `.to(<it>.device)` would compute it twice; its
    # recorded move is `.to(device)`, which is what the fix uses.
    assert lint("DEV305", source) == [(5, FixSafety.SAFE)]
    fixed = Engine([rule_by_code("DEV305")]).fix(textwrap.dedent(source)).text  # type: ignore[list-item]
    assert "torch.zeros(2, 1, dtype=torch.long).to(device))" in fixed


SCRIPT = """
import argparse
import torch
import torchmetrics
from torch import nn
from torch.utils.data import DataLoader


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def __call__(self, images):
        return (images - self.mean) / self.std


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 3).to(device)


def helper():
    return 1


optimizer = torch.optim.Adagrad(nn.Linear(2, 2).parameters())
loss_fn = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 3.0]))
normalize = Normalize([0.5], [0.2])
accuracy = torchmetrics.Accuracy(task="multiclass", num_classes=3)
names = torch.arange(3)
generator = torch.Generator()


def other():
    return 2


if __name__ == "__main__":
    args = argparse.ArgumentParser().parse_args()
    loader = DataLoader(dataset, shuffle=True)
    for x, y in loader:
        if args.cuda:
            x = x.cuda()
        out = model(x)
        images = normalize(y.to(device))
        loss = loss_fn(model(y.to(device)), y.to(device))
        accuracy.update(model(y.to(device)), y.to(device))
        picked = names[model(y.to(device)).argmax(1)]
        noise = torch.randn(3, generator=generator, device=device)
"""


def test_script_statements_split_by_definitions_lose_nothing() -> None:
    # The script unit is searched statement by statement: every DEV3xx finding here combines
    # statements on both sides of a `def`, and must survive unit selection.
    found = {}
    for select_units in (True, False):
        codes = []
        for code in ("DEV301", "DEV302", "DEV303", "DEV305", "DEV306", "DEV307"):
            rule = rule_by_code(code)
            assert rule is not None
            result = Engine([rule], select_units=select_units).lint(SCRIPT)
            assert result.error is None and not result.internal_errors
            codes += [(v.line, v.code) for v in result.violations]
        found[select_units] = sorted(codes)
    assert found[True] == found[False]
    assert {code for _, code in found[True]} == {"DEV302", "DEV303", "DEV305", "DEV306", "DEV307"}
