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
