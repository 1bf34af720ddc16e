"""DEV401 conditions that a fixture cannot show (they hold for a whole file, or span functions)."""

from __future__ import annotations

from flake8_device.engine import Engine
from flake8_device.registry import rule_by_code

LOAD = (
    "import torch\n\n\n"
    "def resume(model, path, device):\n"
    "    model.to(device)\n"
    "    model.load_state_dict(torch.load(path))\n"
)


def codes(source: str, code: str = "DEV401") -> list[str]:
    rule = rule_by_code(code)
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
    local = LOAD.replace("    model.to", "    from torch.distributed.fsdp import fully_shard\n\n    model.to")
    assert codes(local) == []
    xla = LOAD.replace("import torch\n", "import torch\nimport torch_xla.core.xla_model as xm\n")
    assert codes(xla) == []


def test_code_that_supports_xla_where_it_is_found_is_reported() -> None:
    """A file importing ``torch_xla`` only where a TPU is found runs on every other device too
    (accelerate's checkpointing.py, whose optimizer state was restored onto the saving GPU)."""
    optional = LOAD.replace(
        "import torch\n", "import torch\n\nif TPU:\n    import torch_xla.core.xla_model as xm\n"
    )
    assert codes(optional) == ["DEV401"]


def test_a_load_without_evidence_is_left_to_dev405() -> None:
    plain = "import torch\n\n\ndef read(path):\n    return torch.load(path)\n"
    assert codes(plain) == []
    assert codes(plain, "DEV405") == ["DEV405"]
    assert codes(LOAD, "DEV405") == []  # DEV401's: one finding per load when both are on


def test_the_state_of_a_model_moved_elsewhere_in_the_file() -> None:
    """The file trains on `device` and saves what it trained; another function loads a checkpoint
    into a model it never moves (pytorch/examples dcgan, neural_style)."""
    source = (
        "import torch\n\n\n"
        "def train(model, device):\n"
        "    model = model.to(device)\n"
        "    torch.save(model.state_dict(), 'last.pt')\n\n\n"
        "def evaluate(model, path):\n"
        "    model.load_state_dict(torch.load(path))\n"
    )
    assert codes(source) == ["DEV401"]
    cpu = source.replace("model.state_dict()", "{k: v.cpu() for k, v in model.state_dict().items()}")
    assert codes(cpu) == []


def test_two_loads_with_the_same_text_keep_their_own_facts() -> None:
    source = (
        "import torch\n\n\n"
        "def first(path, model, device):\n"
        "    model.to(device)\n"
        "    model.load_state_dict(torch.load(path))\n"
        "    return torch.load(path)\n"
    )
    result = Engine([rule_by_code("DEV401")]).lint(source)  # type: ignore[list-item]
    assert [v.line for v in result.violations] == [6]


def test_training_checkpoint_keys_are_evidence() -> None:
    """The weights' moving average (imagen-pytorch's ``loaded["ema"]``) and ``optimizer_state`` are
    kept by a training loop, on the device it trained on."""
    ema = (
        "import torch\nfrom torch import nn\n\n\n"
        "def load_for_sampling(path, use_ema=False):\n"
        "    loaded = torch.load(path)\n"
        "    model = nn.Linear(4, 2)\n"
        '    model.load_state_dict(loaded["ema"] if use_ema and "ema" in loaded else loaded["model"])\n'
        "    return model\n"
    )
    assert codes(ema) == ["DEV401"]
    assert codes(ema.replace('"ema"', '"weights"')) == []
    resume = (
        "import torch\n\n\n"
        "def resume_run(path, model, optimizer):\n"
        "    state = torch.load(path)\n"
        '    model.load_state_dict(state["model"])\n'
        '    optimizer.load_state_dict(state["optimizer_state"])\n'
    )
    assert codes(resume) == ["DEV401"]


def test_a_move_to_the_models_own_device_is_no_evidence() -> None:
    """FaithDiff's extra weights: ``self.to(device=next(self.parameters()).device)`` after the load
    moves nothing, so it says nothing of where the loaded file's tensors may be."""
    own = (
        "import torch\n\n\n"
        "def load_extra(model, path):\n"
        "    model.load_state_dict(torch.load(path))\n"
        "    device = next(model.parameters()).device\n"
        "    model.to(device=device)\n"
        "    model.to(model.device)\n"
    )
    assert codes(own) == []
    assert codes(own.replace("next(model.parameters()).device", "torch.device('cuda', 1)")) == ["DEV401"]
