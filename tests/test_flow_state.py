"""The device-flow facts behind the DEV3xx rules: generators, optimizers, stateful losses and
metrics, indices, device conditions, helper objects and default devices."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from flake8_device.analysis import flow
from flake8_device.analysis.classes import ClassTable
from flake8_device.analysis.defaults import default_device_settings
from flake8_device.analysis.flow import ALWAYS, FlowAnalysis, Kind
from flake8_device.analysis.helpers import HelperClasses
from flake8_device.analysis.symbols import Symbols
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.context import FileContext

HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\nimport torchmetrics\n"


def analyse(body: str) -> FlowAnalysis:
    source = HEADER + textwrap.dedent(body)
    tree = ast.parse(source)
    module = cst.parse_module(source)
    ctx = FileContext(module=module, symbols=Symbols(tree), tree=tree, config=AnalysisConfig())
    return ctx.flow


def module_env(body: str) -> dict[str, flow.Value]:
    analysis = analyse(body)
    return analysis.final_env[analysis.ctx.module]


def event_types(body: str) -> list[str]:
    return [type(e).__name__ for e in analyse(body).events]


# -- generators ---------------------------------------------------------------------------------


def test_generators_carry_their_device_and_survive_manual_seed() -> None:
    env = module_env(
        """
        host = torch.Generator()
        seeded = torch.Generator().manual_seed(0)
        on_device = torch.Generator(device=device).manual_seed(0)
        explicit_cpu = torch.Generator("cpu")
        seed = on_device.seed()
        """
    )
    assert (env["host"].kind, env["host"].generator) == (Kind.HOST, True)
    assert (env["seeded"].kind, env["seeded"].generator) == (Kind.HOST, True)
    assert (env["on_device"].kind, env["on_device"].generator) == (Kind.ACCEL, True)
    assert env["explicit_cpu"].kind is Kind.HOST
    assert env["seed"].kind is Kind.NEUTRAL


def test_a_generator_is_not_a_tensor() -> None:
    # Only the generator rule speaks: the generator never "mixes" with the probabilities.
    body = "probs = torch.ones(3).to(device)\ng = torch.Generator()\ntorch.multinomial(probs, 1, generator=g)"
    assert event_types(body) == ["GeneratorMismatch"]


@pytest.mark.parametrize(
    ("line", "events"),
    [
        ("torch.randn(3, generator=torch.Generator(), device=device)", ["GeneratorMismatch"]),
        ("torch.randn(3, generator=torch.Generator(device=device), device=device)", []),
        ("torch.randn(3, generator=torch.Generator(device='cuda'))", ["GeneratorMismatch"]),
        ("torch.randn(3, generator=torch.Generator())", []),
        ("torch.randn(3, generator=torch.Generator(), device=where)", []),  # unknown target
        ("torch.randn(3, generator=rng, device=device)", []),  # unknown generator
        ("torch.ones(3).to(device).normal_(generator=torch.Generator())", ["GeneratorMismatch"]),
        ("torch.ones(3).normal_(generator=torch.Generator())", []),
        ("torch.bernoulli(torch.ones(3, device=device), generator=torch.Generator())", ["GeneratorMismatch"]),
        ("torch.utils.data.random_split(ds, [1, 2], generator=torch.Generator(device=device))", ["GeneratorMismatch"]),
    ],
)
def test_generator_placement_against_the_draw(line: str, events: list[str]) -> None:
    assert event_types(line) == events


def test_a_default_device_makes_implicit_draws_unknown() -> None:
    body = """
        torch.set_default_device("cuda")
        g = torch.Generator(device="cuda")
        a = torch.rand(3, generator=g)
        b = torch.utils.data.random_split(ds, [1, 2], generator=g)
        c = torch.rand(3, generator=g, device="cpu")
        """
    # Without `device=`, the draw happens on the default device, which is no longer the CPU.
    assert event_types(body) == ["GeneratorMismatch"]


# -- optimizers -----------------------------------------------------------------------------------


def test_eager_optimizer_state_then_move() -> None:
    events = analyse(
        """
        model = nn.Linear(2, 2)
        opt = torch.optim.Adagrad(model.parameters())
        model.to(device)
        """
    ).events_of(flow.events.OptimizerStateBeforeMove)
    assert [(e.optimizer.owner, e.adjacent) for e in events] == [("model", True)]


@pytest.mark.parametrize(
    "body",
    [
        # lazy state: built at the first step, wherever the parameters are then
        "model = nn.Linear(2, 2)\nopt = torch.optim.Adam(model.parameters())\nmodel.to(device)",
        # moved first
        "model = nn.Linear(2, 2).to(device)\nopt = torch.optim.Adagrad(model.parameters())\nmodel.to(device)",
        # loaded after the move
        "model = nn.Linear(2, 2)\nopt = torch.optim.Adam(model.parameters())\nmodel.to(device)\n"
        "opt.load_state_dict(sd)",
        # moved to the CPU
        "model = nn.Linear(2, 2)\nopt = torch.optim.Adagrad(model.parameters())\nmodel.to('cpu')",
        # a model from elsewhere may already be on the device
        "opt = torch.optim.Adagrad(model.parameters())\nmodel.to(device)",
        # parameters we cannot attribute
        "model = nn.Linear(2, 2)\nopt = torch.optim.Adagrad(params)\nmodel.to(device)",
        # another module moved
        "a = nn.Linear(2, 2)\nb = nn.Linear(2, 2)\nopt = torch.optim.Adagrad(b.parameters())\na.to(device)",
    ],
)
def test_optimizer_state_that_is_fine(body: str) -> None:
    assert event_types(body) == []


def test_state_loaded_on_one_path_is_reported() -> None:
    body = """
        model = nn.Linear(2, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        if resume:
            opt.load_state_dict(checkpoint["optimizer"])
        model = model.to(device)
        """
    (event,) = analyse(body).events_of(flow.events.OptimizerStateBeforeMove)
    assert event.optimizer.built_by is not None and not event.adjacent


def test_param_groups_and_filters_name_their_module() -> None:
    env = module_env(
        """
        model = Net()
        a = torch.optim.Adagrad([{"params": model.encoder.parameters()}, {"params": model.head.parameters()}])
        b = torch.optim.Adagrad(filter(lambda p: p.requires_grad, model.parameters()))
        c = torch.optim.Adagrad([{"params": model.parameters()}, {"params": other.parameters()}])
        """
    )
    assert env["a"].optimizer is not None and env["a"].optimizer.owner == "model"
    assert env["b"].optimizer is not None and env["b"].optimizer.owner == "model"
    assert env["c"].kind is Kind.UNKNOWN


def test_an_optimizer_is_not_a_tensor() -> None:
    body = "model = nn.Linear(2, 2)\nopt = torch.optim.Adam(model.parameters())\ntorch.add(opt, torch.ones(2).cuda())"
    assert event_types(body) == []


# -- losses and metrics ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "kind", "stateful"),
    [
        ("loss = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0]))", Kind.HOST, True),
        ("loss = nn.CrossEntropyLoss(weight=torch.tensor(weights))", Kind.HOST, True),  # a weight vector
        ("loss = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(2.0))", Kind.HOST, False),  # 0-dim
        ("loss = nn.CrossEntropyLoss(weight=None)", Kind.HOST, False),
        ("loss = nn.CrossEntropyLoss(weight=torch.ones(2, device=device))", Kind.ACCEL, True),
        ("loss = nn.CrossEntropyLoss(weight=w)", Kind.UNKNOWN, True),
        ("loss = nn.CrossEntropyLoss()", Kind.HOST, False),
        ("loss = torchmetrics.Accuracy(task='binary')", Kind.HOST, True),
        ("loss = torchmetrics.AUROC(task='binary')", Kind.HOST, False),  # list state
        ("loss = torchmetrics.Accuracy(task='binary', multidim_average='samplewise')", Kind.HOST, False),
    ],
)
def test_where_a_loss_or_metric_keeps_its_tensors(line: str, kind: Kind, stateful: bool) -> None:
    value = module_env(line)["loss"]
    assert (value.kind, value.module, value.compares) == (kind, True, True)
    if kind is not Kind.UNKNOWN:
        assert value.stateful is stateful


def test_unmoved_weights_meet_device_predictions() -> None:
    body = """
        loss_fn = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0]))
        out = torch.ones(2, 2).to(device)
        a = loss_fn(out, target)
        b = loss_fn(torch.ones(2, 2), target)
        metric = torchmetrics.MeanSquaredError()
        metric.update(out, out)
        """
    events = analyse(body).events_of(flow.events.UnmovedLossOrMetric)
    assert [type(e.construction.func).__name__ for e in events] == ["Attribute", "Attribute"]
    assert {e.construction.func.attr.value for e in events} == {"CrossEntropyLoss", "MeanSquaredError"}


# -- indices ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "events"),
    [
        ("t = torch.arange(5)\ni = torch.tensor([0, 1]).to(device)\nt[i]", ["IndexMismatch"]),
        ("t = torch.arange(5)\nm = torch.ones(5).to(device) > 0\nt[m]", ["IndexMismatch"]),
        ("t = torch.arange(5)\ni = torch.tensor([0, 1]).to(device)\nt[i] = 0", ["IndexMismatch"]),
        ("t = torch.arange(5)\ni = torch.tensor([0, 1]).to(device)\nt[:, i]", ["IndexMismatch"]),
        # a device tensor takes host indices
        ("t = torch.arange(5).to(device)\nt[torch.tensor([0, 1])]", []),
        # 0-dim indices are read as numbers
        ("t = torch.arange(5)\nt[torch.tensor(1).to(device)]", []),
        ("t = torch.arange(5)\nt[torch.tensor(1, device=device)]", []),
        ("t = torch.arange(5)\nt[torch.ones(3, device=device).argmax()]", []),
        ("t = torch.arange(5)\nt[torch.ones(3, device=device).argmax(0)]", ["IndexMismatch"]),
        ("t = torch.arange(5)\ni = torch.tensor([0, 1]).to(device)\nt[i[0]]", []),
        # index functions need both on one device, either way round, and are not also a Mix
        ("x = torch.ones(2, 2).to(device)\nx.gather(1, torch.zeros(2, 1, dtype=torch.long))", ["IndexMismatch"]),
        ("x = torch.ones(2, 2)\ntorch.gather(x, 1, torch.zeros(2, 1).long().to(device))", ["IndexMismatch"]),
        ("x = torch.ones(2, 2).cuda()\ntorch.index_select(x, 0, torch.tensor(0))", []),  # 0-dim host index
        ("x = torch.ones(2, 2).to(device)\ntorch.gather(x, 1, idx)", []),
    ],
)
def test_index_placement(body: str, events: list[str]) -> None:
    assert event_types(body) == events


def test_index_functions_still_mix_their_other_tensors() -> None:
    body = "x = torch.zeros(4).to(device)\nx.index_add(0, torch.tensor([0, 1]).to(device), torch.ones(2))"
    assert event_types(body) == ["Mix"]


def test_moves_keep_a_zero_dim_tensor_zero_dim() -> None:
    env = module_env("a = torch.tensor(2.0).to(device)\nb = torch.tensor([2.0]).to(device)\nc = a.cpu()")
    assert env["a"].scalar and not env["b"].scalar and env["c"].scalar


# -- device conditions --------------------------------------------------------------------------------


def test_if_statements_and_expressions_make_conditional_placements() -> None:
    env = module_env(
        """
        x = torch.ones(3)
        if args.cuda:
            x = x.cuda()
        else:
            pass
        y = torch.ones(3)
        z = y.cuda() if not args.no_cuda else y
        w = y.cuda() if args.verbose else y
        m = nn.Linear(2, 2)
        if args.gpu:
            m.cuda()
        v = torch.ones(3)
        if args.cuda:
            v = v.cuda()
        elif args.mps:
            v = v.to("mps")
        """
    )
    assert (env["x"].kind, env["x"].condition) == (Kind.CONDITIONAL, "args.cuda")
    assert (env["z"].kind, env["z"].condition) == (Kind.CONDITIONAL, "not (args.no_cuda)")
    assert env["w"].kind is Kind.MAYBE  # not a device condition: on the device along one path
    assert (env["m"].kind, env["m"].condition, env["m"].module) == (Kind.CONDITIONAL, "args.gpu", True)
    assert env["v"].kind is Kind.UNKNOWN  # three ways: not followed


def test_conditional_values_meet_host_tensors_along_their_accelerator_path() -> None:
    body = """
        x = torch.ones(3)
        if use_cuda:
            x = x.cuda()
        y = x + torch.ones(3)
        """
    env = module_env(body)
    assert (env["x"].kind, env["x"].condition) == (Kind.CONDITIONAL, "use_cuda")
    # Where `use_cuda` holds, `x` is on the device and `torch.ones(3)` is not.
    assert event_types(body) == ["Mix"]
    # Both placed under the same condition: along every path they are together.
    body = """
        x = torch.ones(3)
        z = torch.ones(3)
        if use_cuda:
            x = x.cuda()
            z = z.cuda()
        y = x + z
        """
    assert event_types(body) == []


@pytest.mark.parametrize(
    ("body", "condition"),
    [
        ("device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')", "torch.cuda.is_available()"),
        ("device = 'cpu' if args.no_cuda else 'cuda'", "not (args.no_cuda)"),
        (
            "use_cuda = not args.no_cuda and torch.cuda.is_available()\n"
            "device = torch.device('cuda' if use_cuda else 'cpu')",
            "(not (args.no_cuda)) and (torch.cuda.is_available())",
        ),
        # The test must name a device on the line of its `if` (what the DEV306 marker can see).
        ("flag = torch.cuda.is_available()\ndevice = torch.device('cuda' if flag else 'cpu')", None),
        ("device = torch.device('cuda' if (\n    args.cuda) else 'cpu')", None),
        ("device = torch.device('cuda:1')", ALWAYS),
        ("device = gpu if args.gpu else 'cpu'", "args.gpu"),
    ],
)
def test_device_choices_record_their_condition(body: str, condition: str | None) -> None:
    env = module_env(body + "\nx = torch.ones(3).to(device)")
    assert (env["x"].kind, env["x"].condition) == (Kind.ACCEL, condition)


def test_device_type_tests_resolve_to_the_device_choice() -> None:
    env = module_env(
        """
        device = torch.device("cuda" if args.cuda else "cpu")
        x = torch.ones(3)
        if device.type == "cuda":
            x = x.cuda()
        y = torch.ones(3)
        if str(device) != "cpu":
            y = y.cuda()
        z = torch.ones(3)
        if device.type == "cpu":
            pass
        else:
            z = z.cuda()
        """
    )
    assert env["x"].condition == env["y"].condition == env["z"].condition == "args.cuda"


def test_device_choice_mismatch_only_with_a_condition_involved() -> None:
    def mismatches(body: str) -> int:
        return len(analyse(body).events_of(flow.events.DeviceChoiceMismatch))

    model_on_availability = "device = 'cuda' if torch.cuda.is_available() else 'cpu'\nm = nn.Linear(2, 2).to(device)\n"
    assert mismatches(model_on_availability + "x = torch.ones(2)\nif args.cuda:\n    x = x.cuda()\nm(x)") == 1
    assert (
        mismatches(model_on_availability + "x = torch.ones(2)\nif torch.cuda.is_available():\n    x = x.cuda()\nm(x)")
        == 0
    )
    assert mismatches("m = nn.Linear(2, 2).cuda()\nm(torch.ones(2).cuda())") == 0  # no choice made
    assert mismatches("m = nn.Linear(2, 2)\nm(torch.ones(2).cuda())") == 0  # DEV201's case
    assert mismatches("m = nn.Linear(2, 2)\nx = torch.ones(2)\nif use_gpu:\n    x = x.cuda()\nm(x)") == 1


# -- helper objects ---------------------------------------------------------------------------------------

HELPERS = """
import torch
from torch import nn


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std)[:, None, None]
        self.eps = torch.tensor(1e-6)

    def __call__(self, x):
        return (x - self.mean) / (self.std + self.eps)

    def scale(self, x, *, factor):
        return x * factor


class Aware:
    def __init__(self):
        self.w = torch.ones(3)

    def __call__(self, x):
        return x * self.w.to(x.device)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.ones(3)

    def forward(self, x):
        return x * self.w


class Reassigned:
    def __init__(self):
        self.w = torch.ones(3)

    def reset(self):
        self.w = torch.zeros(3)

    def __call__(self, x):
        return x * self.w
"""


def test_helper_classes_are_read_from_the_whole_file() -> None:
    tree = ast.parse(HELPERS)
    helpers = HelperClasses(ClassTable(tree), Symbols(tree))
    normalize = helpers.get("Normalize")
    assert normalize is not None
    assert list(normalize.constants) == ["mean", "std", "eps"]
    # `eps` may be 0-dim (`torch.tensor(1e-6)`), which mixes legally; `scale` meets no constant.
    assert normalize.methods["__call__"].meetings == {"x": ("mean", "std")}
    assert "scale" not in normalize.methods
    assert helpers.get("Aware") is None  # aligns its constants itself
    assert helpers.get("Layer") is None  # a module: its owner moves it
    assert helpers.get("Reassigned") is None  # managed outside __init__
    assert helpers.get("Missing") is None


# -- default devices ------------------------------------------------------------------------------------


def test_default_device_settings() -> None:
    source = textwrap.dedent(
        """
        import torch
        torch.set_default_device("cuda")
        torch.set_default_device(None)
        torch.set_default_tensor_type(torch.cuda.FloatTensor)
        torch.set_default_tensor_type("torch.FloatTensor")

        def main(device):
            torch.set_default_device(device)
            with torch.device("mps"):
                pass
            torch.set_default_device(torch.device("cpu"))
        """
    )
    tree = ast.parse(source)
    settings = default_device_settings(tree, Symbols(tree))
    assert [(s.accelerator, s.scoped, s.path) for s in settings] == [
        (True, False, ()),
        (False, False, ()),
        (True, False, ()),
        (False, False, ()),
        (True, False, ("main",)),
        (True, True, ("main",)),
        (False, False, ("main",)),
    ]


def test_a_slice_assigned_into_a_list_is_no_crash() -> None:
    """``items[1:3] = ...`` into a list built here (diffusers' regional prompting pipeline crashed
    every flow rule with an AttributeError)."""
    env = module_env(
        """
        import torch
        items = [torch.zeros(2), torch.zeros(2), torch.zeros(2)]
        for k in items:
            items[0:2] = [torch.ones(2), torch.ones(2)]
        """
    )
    assert env["items"].kind is Kind.CONTAINER
