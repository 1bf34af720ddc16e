"""DEV401 conditions that a fixture cannot show (they hold for a whole file)."""

from __future__ import annotations

from flake8_device.engine import Engine
from flake8_device.registry import rule_by_code

LOAD = "import torch\n\n\ndef resume(path):\n    return torch.load(path)\n"


def codes(source: str) -> list[str]:
    rule = rule_by_code("DEV401")
    assert rule is not None
    result = Engine([rule]).lint(source)
    assert result.error is None and not result.internal_errors
    return [v.code for v in result.violations]


def test_plain_code_is_reported() -> None:
    assert codes(LOAD) == ["DEV401"]


def test_fsdp_and_xla_checkpoint_code_is_not() -> None:
    """Sharded (FSDP) and XLA checkpoints are loaded on the accelerators that wrote them (corpus:
    accelerate's fsdp_utils.py, Lightning's xla_fsdp.py)."""
    fsdp = LOAD.replace("import torch\n", "import torch\nfrom torch.distributed.fsdp import FullyShardedDataParallel\n")
    assert codes(fsdp) == []
    local = LOAD.replace("    return", "    from torch.distributed.fsdp import fully_shard\n\n    return")
    assert codes(local) == []
    xla = LOAD.replace("import torch\n", "import torch\nimport torch_xla.core.xla_model as xm\n")
    assert codes(xla) == []
