"""The device-flow analysis on its own: values, branches, loops, aliases, and silence when unsure."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from flake8_device.analysis import flow
from flake8_device.analysis.flow import FlowAnalysis, Kind
from flake8_device.analysis.symbols import Symbols
from flake8_device.configuration.analysis import AnalysisConfig
from flake8_device.context import FileContext

HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"


def analyse(body: str, config: AnalysisConfig | None = None) -> FlowAnalysis:
    source = HEADER + textwrap.dedent(body)
    tree = ast.parse(source)
    module = cst.parse_module(source)
    ctx = FileContext(module=module, symbols=Symbols(tree), tree=tree, config=config or AnalysisConfig())
    return ctx.flow


def module_env(body: str) -> dict[str, flow.Value]:
    analysis = analyse(body)
    return analysis.final_env[analysis.ctx.module]


def kinds(body: str) -> dict[str, Kind]:
    return {name: value.kind for name, value in module_env(body).items()}


def event_types(body: str) -> list[str]:
    return [type(e).__name__ for e in analyse(body).events]


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("x = torch.zeros(3)", Kind.HOST),
        ("x = torch.arange(5).float()", Kind.HOST),
        ("x = torch.ones(3, device='cpu')", Kind.HOST),
        ("x = torch.ones(3, device=device)", Kind.ACCEL),
        ("x = torch.ones(3, device='cuda:1')", Kind.ACCEL),
        ("x = torch.ones(3).to(device)", Kind.ACCEL),
        ("x = torch.ones(3).cuda()", Kind.ACCEL),
        ("x = torch.ones(3).to(0)", Kind.ACCEL),
        ("x = torch.ones(3).to(args.device)", Kind.ACCEL),
        ("x = torch.ones(3).to(device).cpu()", Kind.HOST),
        ("x = torch.ones(3).to('cpu')", Kind.HOST),
        ("x = torch.ones(3).to(torch.float16)", Kind.HOST),
        ("x = torch.ones(3).to(dtype=torch.float16)", Kind.HOST),
        ("x = torch.ones(3).to(something)", Kind.UNKNOWN),
        ("x = torch.ones(3).to(device).shape", Kind.NEUTRAL),
        ("x = torch.ones(3).to(device).sum().item()", Kind.NEUTRAL),
        ("x = make()", Kind.UNKNOWN),
        ("x = 3", Kind.NEUTRAL),
    ],
)
def test_values(line: str, kind: Kind) -> None:
    assert kinds(line)["x"] is kind


def test_the_device_an_imported_module_keeps_is_a_setting() -> None:
    # `ptu.device`, set by `ptu.set_gpu_mode(...)`: a process-wide setting, read like `args.device`.
    assert kinds("import ptu\nx = torch.ones(3).to(ptu.device)")["x"] is Kind.ACCEL
    assert kinds("from segm.utils import torch as ptu\nx = torch.ones(3).to(ptu.device)")["x"] is Kind.ACCEL
    # Not an import (a local object), or torch's own: not known.
    assert kinds("ptu = make()\nx = torch.ones(3).to(ptu.device)")["x"] is not Kind.ACCEL
    assert kinds("x = torch.ones(3).to(torch.device)")["x"] is not Kind.ACCEL


def test_device_variable_bound_to_cpu_string_is_host() -> None:
    assert kinds("device = 'cpu'\nx = torch.ones(3).to(device)")["x"] is Kind.HOST


def test_same_as_follows_its_partner() -> None:
    env = kinds(
        """
        a = torch.ones(3).to(device)
        b = torch.zeros_like(a)
        c = a.new_zeros(3)
        d = torch.ones(3).to(a.device)
        e = torch.ones(3, device=a.device)
        h = torch.ones(3)
        f = torch.ones(3).to(h.device)
        """
    )
    assert [env[n] for n in "bcdef"] == [Kind.ACCEL] * 4 + [Kind.HOST]


def test_branches_join() -> None:
    env = kinds(
        """
        a = torch.ones(3)
        b = torch.ones(3)
        c = torch.ones(3)
        if flag:
            a = a.to(device)
            b = b.to(device)
        else:
            a = a.cuda()
        """
    )
    assert env["a"] is Kind.ACCEL  # moved in both arms
    assert env["b"] is Kind.MAYBE  # moved in one arm only: on the device along one path, the CPU along the other
    assert env["c"] is Kind.HOST
    b = module_env(
        """
        b = torch.ones(3)
        if flag:
            b = b.to(device)
        """
    )["b"]
    assert {a.kind for a in flow.values.alternatives(b)} == {Kind.HOST, Kind.ACCEL}


def test_a_branch_that_returns_does_not_weaken_the_other() -> None:
    analysis = analyse(
        """
        def f(flag, device):
            a = torch.ones(3)
            if flag:
                return None
            else:
                a = a.to(device)
            return a
        """
    )
    function = next(node for node in analysis.final_env if isinstance(node, cst.FunctionDef))
    assert analysis.final_env[function]["a"].kind is Kind.ACCEL


def test_loop_carried_values_are_joined_before_events_are_recorded() -> None:
    # On the first iteration `acc` is on the host; after one iteration it is on the device.
    body = """
        acc = torch.zeros(3)
        for step in range(3):
            acc = acc + torch.ones(3).to(device)
            acc = acc.to(device)
        """
    # The first iteration adds a device tensor to the host `acc`: that path is a real device error.
    assert event_types(body) == ["Mix"]
    assert kinds(body)["acc"] is Kind.MAYBE


def test_loader_batches_are_on_the_host_and_unpack() -> None:
    analysis = analyse(
        """
        def train(model, train_loader, device):
            model.to(device)
            for step, (x, y) in enumerate(train_loader):
                out = model(x)
        """
    )
    assert [type(e).__name__ for e in analysis.events] == ["InputNotMoved"]


def test_data_loader_object_is_a_loader() -> None:
    assert event_types(
        """
        from torch.utils.data import DataLoader
        data = DataLoader(dataset)
        model = nn.Linear(2, 2).to(device)
        for x, y in data:
            model(x)
        """
    ) == ["InputNotMoved"]


def test_loader_reassigned_from_an_unknown_call_is_not_a_loader() -> None:
    assert (
        event_types(
            """
        def train(model, loader, accelerator, device):
            model.to(device)
            loader = accelerator.prepare(loader)
            for x, y in loader:
                model(x)
        """
        )
        == []
    )


def test_unknown_never_produces_an_event() -> None:
    assert (
        event_types(
            """
        def f(a, b, model, device):
            c = a + b
            d = model(a)
            e = torch.cat([a, b])
            return c.numpy(), d.numpy(), e.numpy()
        """
        )
        == []
    )


def test_zero_dim_host_tensor_mixes_legally_in_arithmetic_but_not_in_cat() -> None:
    assert event_types("x = torch.ones(3).to(device)\ny = x * torch.tensor(2.0)") == []
    assert event_types("x = torch.ones(3).to(device)\ny = torch.cat([x, torch.tensor([2.0])])") == ["Mix"]


def test_indexing_device_tensor_with_host_index_is_legal() -> None:
    assert event_types("x = torch.ones(3).to(device)\ny = x[torch.tensor([0, 1])]") == []


def test_aliases_share_the_value() -> None:
    env = kinds("a = torch.ones(3).to(device)\nb = a\nc, d = a, torch.ones(2)")
    assert (env["b"], env["c"], env["d"]) == (Kind.ACCEL, Kind.ACCEL, Kind.HOST)


def test_tuple_unpacking_of_moves() -> None:
    env = kinds("a, b = x.to(device), y.to(device)")
    assert env["a"] is env["b"] is Kind.ACCEL


def test_attribute_chains_are_tracked() -> None:
    env = kinds("state.buffer = torch.zeros(3)\nstate.moved = torch.zeros(3).cuda()")
    assert env["state.buffer"] is Kind.HOST
    assert env["state.moved"] is Kind.ACCEL


def test_rebinding_a_name_forgets_its_attributes() -> None:
    env = kinds("state.buffer = torch.zeros(3)\nstate = make()")
    assert "state.buffer" not in env


def test_module_moves_in_place_tensor_does_not() -> None:
    types = event_types(
        """
        model = nn.Linear(2, 2)
        model.to(device)
        t = torch.ones(2)
        t.to(device)
        """
    )
    assert types == ["DiscardedMove"]
    assert kinds("model = nn.Linear(2, 2)\nmodel.to(device)")["model"] is Kind.ACCEL


def test_move_helpers_are_moves_and_configurable() -> None:
    assert kinds("b = batch_to_device(batch, device)")["b"] is Kind.ACCEL
    config = AnalysisConfig().with_extra_move_functions(["ship"])
    analysis = analyse("b = ship(batch, device)", config)
    assert analysis.final_env[analysis.ctx.module]["b"].kind is Kind.ACCEL


def test_model_output_follows_the_model() -> None:
    env = module_env("model = nn.Linear(2, 2).to(device)\nout = model(torch.ones(2).to(device))")
    assert env["out"].kind is Kind.ACCEL and env["out"].grad


def test_no_grad_outputs_do_not_require_grad() -> None:
    env = module_env(
        "model = nn.Linear(2, 2).to(device)\nwith torch.no_grad():\n    out = model(torch.ones(2).to(device))"
    )
    assert env["out"].kind is Kind.ACCEL and not env["out"].grad


def test_module_inputs_in_forward() -> None:
    analysis = analyse(
        """
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(3, 3)

            def forward(self, x, n: int):
                a = x + torch.arange(x.size(1))
                b = n + torch.arange(n)
                return self.emb(torch.arange(3))
        """
    )
    assert [type(e).__name__ for e in analysis.events] == ["HostMeetsInput", "HostMeetsInput"]


def test_comprehensions_are_followed_and_make_containers() -> None:
    assert event_types("x = torch.ones(3).to(device)\ny = [x + torch.ones(3) for _ in range(2)]") == ["Mix"]
    env = module_env("batch = {'x': torch.ones(3)}\nmoved = {k: v.to(device) for k, v in batch.items()}")
    assert env["moved"].kind is Kind.CONTAINER
    assert [e.kind for e in env["moved"].elements] == [Kind.ACCEL]


def test_comprehensions_lambdas_and_f_strings_are_followed() -> None:
    assert event_types("x = torch.ones(3).to(device)\ny = [x + torch.ones(3) for _ in range(2)]") == ["Mix"]
    assert event_types("x = torch.ones(3).to(device)\nf = lambda: x + torch.ones(3)") == ["Mix"]
    assert event_types('x = torch.ones(3).to(device)\nprint(f"{x + torch.ones(3)}")') == ["Mix"]
    # A lambda's parameters and a comprehension's targets are values of their own.
    assert event_types("x = torch.ones(3).to(device)\nf = lambda x: x + torch.ones(3)") == []
    assert event_types("x = torch.ones(3).to(device)\ny = [x + torch.ones(3) for x in range(2)]") == []
    # ... which do not leak out (Python 3 comprehensions have their own scope).
    assert event_types("x = torch.ones(3).to(device)\ny = [1 for x in range(2)]\nz = x + torch.ones(3)") == ["Mix"]


def test_a_match_statement_keeps_what_is_known() -> None:
    source = (
        "x = torch.ones(3).to(device)\n"
        "match mode:\n"
        "    case 'a':\n"
        "        y = x + torch.ones(3)\n"
        "    case [x]:\n"
        "        z = x + torch.ones(3)\n"
        "w = x + torch.ones(3)\n"
    )
    # The first case, and after the match along the paths that did not capture `x` in the second.
    assert event_types(source) == ["Mix", "Mix"]


def test_deep_nesting_does_not_blow_up() -> None:
    nested = (
        "x = torch.ones(3)\n" + "".join("    " * i + "if a:\n" for i in range(60)) + "    " * 60 + "x = x.to(device)\n"
    )
    assert "x" in kinds(nested)


# -- distributed training events (DEV50x) ---------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("import torch.distributed as dist\nt = torch.zeros(3)\ndist.all_reduce(t)", ["CollectiveOnHost"]),
        ("import torch.distributed as dist\nt = torch.zeros(3).cpu()\ndist.broadcast(t, 0)", ["CollectiveOnHost"]),
        ("import torch.distributed as dist\nt = make().cpu()\ndist.all_reduce(tensor=t)", ["CollectiveOnHost"]),
        ("import torch.distributed as dist\nout = []\ndist.all_gather(out, torch.ones(2))", ["CollectiveOnHost"]),
        ("import torch.distributed as dist\nt = torch.zeros(3, device=device)\ndist.all_reduce(t)", []),
        ("import torch.distributed as dist\nt = torch.zeros(3)\nt = t.to(device)\ndist.all_reduce(t)", []),
        ("import torch.distributed as dist\ndist.all_reduce(tensor)", []),
        ("import torch.distributed as dist\ndist.all_gather_object(out, torch.zeros(3))", []),
        ("from torch.distributed import all_reduce as ar\nar(torch.zeros(3))", []),
    ],
)
def test_collectives_on_host_tensors(body: str, expected: list[str]) -> None:
    assert event_types(body) == expected


def test_synced_logs_of_host_tensors_in_lightning_modules_only() -> None:
    source = """
        import lightning.pytorch as pl

        class Lit(pl.LightningModule):
            def step(self, x):
                a = torch.tensor(1.0)
                self.log("a", a, sync_dist=True)
                self.log("b", torch.tensor(2.0), sync_dist=False)
                self.log("c", torch.tensor(3.0, device=self.device), sync_dist=True)
                self.log_dict({"d": x.cpu(), "e": 1.0}, sync_dist=True)

        class Plain(nn.Module):
            def step(self):
                self.log("a", torch.tensor(1.0), sync_dist=True)
        """
    events = analyse(source).events_of(flow.events.SyncedLogOnHost)
    assert [e.tensor.expr.value if isinstance(e.tensor.expr, cst.Name) else "x.cpu()" for e in events] == [
        "a",
        "x.cpu()",
    ]


def test_wrapping_a_module_still_on_the_host() -> None:
    source = """
        from torch.nn.parallel import DistributedDataParallel as DDP

        def a(rank):
            model = nn.Linear(2, 2)
            return DDP(model, device_ids=[rank])

        def b(rank):
            model = nn.Linear(2, 2).to(rank)
            return DDP(model, device_ids=[rank])

        def c(model, rank):
            return DDP(model, device_ids=[rank])

        def d():
            model = nn.DataParallel(nn.Linear(2, 2))
            model.cuda()
            return model
        """
    analysis = analyse(source)
    wrapped = analysis.events_of(flow.events.WrappedUnmoved)
    assert [(e.function.name.value if e.function else None, e.wrapper.rsplit(".", 1)[-1]) for e in wrapped] == [
        ("a", "DistributedDataParallel"),
        ("d", "DataParallel"),
    ]
    final = {f.name.value: env for f, env in analysis.final_env.items() if isinstance(f, cst.FunctionDef)}
    assert final["d"]["model"].kind is Kind.ACCEL  # DEV504 reads this: the wrapper was moved afterwards


def test_cpu_only_paths_give_way_where_paths_join() -> None:
    # A test mode that pins the device to the CPU in one arm: after the join the model is on the device.
    env = kinds(
        """
        model = nn.Linear(2, 2)
        if args.test_mode:
            device = "cpu"
            model.to(device)
        else:
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            model.to(device)
        """
    )
    assert env["model"] is Kind.ACCEL
    # Moved back to the CPU only on a CPU-only path: along the others it is still on the device.
    body = """
        x = torch.ones(3).to(device)
        if not torch.cuda.is_available():
            x = x.cpu()
        x.numpy()
        """
    assert event_types(body) == ["NumpyOnAccel"]
    # Moved back to the CPU exactly when the device chosen for it may be an accelerator.
    body = """
        device = torch.device("cuda" if use_gpu else "cpu")
        x = torch.ones(3).to(device)
        if use_gpu:
            x = x.cpu()
        x.numpy()
        """
    assert event_types(body) == []


def test_no_finding_on_a_cpu_only_path() -> None:
    body = """
        x = torch.ones(3).to(device)
        if device.type == "cpu":
            y = x + torch.ones(3)
        if args.cuda:
            pass
        else:
            z = x + torch.ones(3)
        """
    assert event_types(body) == []
    # An accelerator test with an `elif` for another accelerator: the `else` of the first is not CPU-only.
    body = """
        x = torch.ones(3).to(device)
        if args.cuda:
            pass
        elif args.mps:
            z = x + torch.ones(3)
        """
    assert event_types(body) == ["Mix"]


def test_a_container_keeps_the_places_of_its_elements() -> None:
    body = """
        h0 = torch.zeros(1, 2, 4)
        c0 = torch.zeros(1, 2, 4)
        lstm = nn.LSTM(3, 4).to(device)
        out = lstm(torch.ones(5, 2, 3).to(device), (h0, c0))
        """
    assert event_types(body) == ["InputNotMoved"]


def test_a_class_with_a_base_from_elsewhere_may_be_a_module() -> None:
    # ``ModelMixin`` (another package) may be an ``nn.Module``: its submodules move with it.
    assert (
        event_types(
            """
        from diffusers import ModelMixin

        class Transformer(ModelMixin):
            def __init__(self):
                super().__init__()
                self.rope = nn.Linear(4, 4)

            def forward(self, hidden):
                ids = torch.ones(2, 4, device=hidden.device)
                return self.rope(ids)
        """
        )
        == []
    )
    # A plain class keeps what it built where it built it.
    assert event_types(
        """
        class Trainer:
            def __init__(self):
                self.model = nn.Linear(4, 2)

            def step(self, device):
                return self.model(torch.ones(2, 4, device=device))
        """
    ) == ["Mix"]


def test_a_module_offloaded_at_the_end_of_a_call_is_not_on_the_host_before() -> None:
    assert (
        event_types(
            """
        class Pipeline:
            def __init__(self, unet, device):
                self.unet = unet.to(device)
                self.device = device
                self.offload = None

            def __call__(self, steps):
                latents = torch.randn(1, 4, device=self.device)
                for _ in range(steps):
                    latents = self.unet(latents)
                if self.offload is not None:
                    self.unet.to("cpu")
                return latents
        """
        )
        == []
    )


def test_a_loader_the_file_builds_with_an_unknown_call_yields_unknown_batches() -> None:
    source = """
        def train(model, loader, device):
            for x, y in loader:
                model(x)

        def main(device, make):
            model = nn.Linear(4, 2).to(device)
            train(model, {loader}, device)
        """
    # A prefetcher or ``create_loader(...)`` may put the batches on the device already.
    assert event_types(source.format(loader="make()")) == []
    assert event_types(source.format(loader="torch.utils.data.DataLoader([torch.ones(4)])")) == ["InputNotMoved"]


def test_a_class_with_its_own_to_moves_what_it_holds() -> None:
    assert (
        event_types(
            """
        class Solver:
            def __init__(self, n):
                self.alphas = torch.ones(n)

            def to(self, device):
                self.alphas = self.alphas.to(device)
                return self

            def step(self, x, t):
                return x * self.alphas[t]

        def main(device):
            solver = Solver(4).to(device)
            return solver.step(torch.ones(4, device=device), 0)
        """
        )
        == []
    )
