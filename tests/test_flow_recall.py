"""Device-flow shapes taken from real bugs (bench/realworld): names bound on one path, dicts with
string keys, modules held under loss names, a model's parameters, moves by hand."""

from __future__ import annotations

from test_flow import analyse, event_types, kinds, module_env

from flake8_device.analysis.flow import Kind
from flake8_device.analysis.flow.values import alternatives


def test_name_bound_on_one_path_keeps_its_value_where_it_is_used() -> None:
    # Along the other path `reg` is unbound: where it is used, it is the module built on the first.
    body = """
        model = nn.Linear(2, 2).to(device)
        if use_reg:
            reg = nn.BatchNorm1d(2)
        for x in batches:
            out = model(x.to(device))
            if use_reg:
                out = out + reg(out)
        """
    assert kinds(body)["reg"] is Kind.HOST
    assert event_types(body) == ["Mix"]


def test_parameters_and_imports_bound_on_one_path_stay_unknown() -> None:
    analysis = analyse(
        """
        def f(x, device):
            if device == "cpu":
                x = torch.zeros(3)
            return x
        """
    )
    function = next(node for node in analysis.final_env if node is not analysis.ctx.module)
    assert analysis.final_env[function].get("x", None) is None or analysis.final_env[function]["x"].kind in (
        Kind.MAYBE,
        Kind.UNKNOWN,
    )


def test_a_dict_with_string_keys_keeps_each_value() -> None:
    env = module_env(
        """
        criteria = {"mse": nn.MSELoss().to(device)}
        if use_mel:
            criteria["mel"] = nn.BatchNorm1d(3)
        mse = criteria["mse"]
        mel = criteria["mel"]
        other = criteria.get("mse")
        """
    )
    assert env["mse"].kind is Kind.ACCEL and env["other"].kind is Kind.ACCEL
    assert env["mel"].kind is Kind.HOST


def test_a_dict_with_computed_keys_joins_its_values() -> None:
    env = module_env(
        """
        parts = {}
        parts[name] = torch.zeros(3)
        parts["b"] = torch.zeros(3).to(device)
        x = parts["b"]
        """
    )
    assert {a.kind for a in alternatives(env["x"])} == {Kind.HOST, Kind.ACCEL}


def test_a_module_held_under_a_loss_name_is_a_loss_never_moved() -> None:
    body = """
        class Regularizer(nn.Module):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm1d(4)

            def forward(self, a, b):
                return (self.bn(a) * self.bn(b)).sum()

        emb = nn.Linear(4, 4).to(device)
        reg_loss = Regularizer()
        for x in batches:
            z = emb(x.to(device))
            total = reg_loss(z, z)
        """
    assert event_types(body) == ["UnmovedLossOrMetric"]


def test_a_local_loss_class_compares_its_arguments() -> None:
    env = module_env(
        """
        class MelLoss(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("mel", torch.ones(3, 3))

        criterion = MelLoss()
        """
    )
    assert env["criterion"].compares


def test_a_modules_parameters_are_where_it_is() -> None:
    env = module_env(
        """
        host = nn.Linear(2, 2)
        moved = nn.Linear(2, 2).to(device)
        a = [p for p in host.parameters()]
        for name, p in moved.named_parameters():
            b = p.data
        """
    )
    assert env["a"].kind is Kind.CONTAINER and env["a"].elements[0].kind is Kind.HOST
    assert env["b"].kind is Kind.ACCEL


def test_moving_every_parameter_by_hand_moves_the_model() -> None:
    env = module_env(
        """
        model = nn.Linear(2, 2)
        for param in model.parameters():
            if param.device != device:
                param.data = param.data.to(device)
        """
    )
    assert env["model"].kind is Kind.ACCEL


def test_an_empty_placeholder_tested_for_content_meets_nothing() -> None:
    guarded = """
        cache = {"keys": torch.tensor([]), "values": torch.empty(0)}
        k = v = torch.ones(3).to(device)
        if cache["keys"].numel() != 0:
            k = torch.cat((cache["keys"], k))
            v = torch.cat((cache["values"], v))
        """
    assert event_types(guarded) == []
    # Without the test, the empty CPU accumulator meets the device tensors (torch.cat checks devices).
    accumulator = """
        losses = torch.tensor([])
        for x in batches:
            losses = torch.cat([losses, x.to(device)])
        """
    assert event_types(accumulator) == ["Mix"]


def test_a_cpu_device_object_is_the_cpu() -> None:
    assert kinds('device = torch.device("cpu")\nx = torch.ones(3).to(device)')["x"] is Kind.HOST


def test_a_module_moved_into_another_name_moves_in_place() -> None:
    env = module_env(
        """
        model = nn.Linear(2, 2)
        wrapped = model.to(device)
        x = torch.ones(3)
        y = x.to(device)
        """
    )
    assert env["model"].kind is Kind.ACCEL
    assert env["x"].kind is Kind.HOST  # a tensor's move makes a new tensor


def test_a_constructor_that_moves_its_model_in_place() -> None:
    body = """
        class Trainer:
            def __init__(self, model, device):
                self.model = model.to(device)
                self.wrapped = nn.parallel.DistributedDataParallel(model, device_ids=[device])

            def step(self, x):
                return self.wrapped(x.to(self.model.weight.device))

        net = nn.Linear(2, 2)
        trainer = Trainer(net, device)
        """
    assert kinds(body)["net"] is Kind.ACCEL


def test_a_forward_that_moves_the_items_of_its_batch_accepts_a_host_batch() -> None:
    body = """
        class Backbone(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)

            def forward(self, batch):
                return self.fc(batch["features"].to(next(self.parameters()).device))

        model = Backbone().to(device)
        for batch in loader:
            out = model(batch)
        """
    assert event_types(body) == []


def test_a_loss_factory_given_host_class_weights() -> None:
    body = """
        from losses import get_loss

        weights = torch.tensor([1.0, 2.0, 4.0])
        criterion = get_loss("cross_entropy", weight=weights)
        placed = get_loss("cross_entropy", weight=weights, device=device)
        model = nn.Linear(4, 3).to(device)
        x = torch.ones(2, 4).to(device)
        loss = criterion(model(x), targets.to(device)) + placed(model(x), targets.to(device))
        """
    assert event_types(body) == ["UnmovedLossOrMetric"]


def test_a_hook_one_subclass_implements_runs_for_the_base_class() -> None:
    body = """
        class Base(nn.Module):
            def forward(self, x):
                return self.apply_transform(x)

        class AddNoise(Base):
            def __init__(self):
                super().__init__()
                self.noise = torch.distributions.Normal(0.0, 1.0)

            def apply_transform(self, x):
                return x + self.noise.sample(x.shape)

        augment = AddNoise()
        out = augment(torch.ones(3).to(device))
        """
    assert "HostMeetsInput" in event_types(body)


def test_a_module_keeping_only_plain_tensors_has_nothing_to_move() -> None:
    env = module_env(
        """
        class Bank(nn.Module):
            def __init__(self, clips):
                super().__init__()
                self.clips = clips

        class Wrapper(nn.Module):
            def __init__(self, net):
                super().__init__()
                self.net = net

        bank = Bank([torch.randn(4) for _ in range(3)])
        wrapped = Wrapper(nn.Linear(2, 2).to(device))
        """
    )
    assert not env["bank"].stateful
    assert env["wrapped"].kind is Kind.ACCEL


def test_factories_in_functions_follow_an_accelerator_default_device() -> None:
    analysis = analyse(
        """
        import numpy as np

        at_import = torch.zeros(3)

        def build(n):
            made = torch.ones(n)
            layer = nn.Linear(2, 2)
            kept = torch.from_numpy(np.ones(n))
            return made, layer, kept

        def main():
            torch.set_default_device("cuda")
            return build(3)
        """
    )
    build = next(f for f in analysis.final_env if getattr(f, "name", None) and f.name.value == "build")
    env = analysis.final_env[build]
    assert env["made"].kind is Kind.ACCEL and env["layer"].kind is Kind.ACCEL
    assert env["kept"].kind is Kind.HOST  # from_numpy ignores the default device
    assert analysis.final_env[analysis.ctx.module]["at_import"].kind is Kind.HOST  # before any setting runs


def test_a_model_looked_up_in_a_package_of_models_is_built_on_the_host() -> None:
    # (Fast Human Pose Estimation's demo, pytorch/examples' ImageNet) `models.__dict__[arch](...)`.
    body = """
        import torchvision.models as models

        model = models.__dict__["resnet18"](num_classes=10)
        model.eval()
        output = model(torch.zeros(1, 3, 8, 8).to(device))
        """
    env = module_env(body)
    assert env["model"].kind is Kind.HOST and env["model"].module is True
    assert event_types(body) == ["Mix"]
    # Not a package of models: nothing is known of what it builds.
    other = body.replace("torchvision.models as models", "registry as models")
    assert module_env(other)["model"].kind is Kind.UNKNOWN
    assert event_types(other) == []


def test_a_device_objects_batch_to_device_moves_the_batch_there() -> None:
    # (Composer's evaluation loop on MPS) `device.batch_to_device(batch)`: the receiver is the device;
    # the outputs moved to the CPU for the metric then meet the batch left on it.
    body = """
        def evaluate(state, model, loader, metric):
            for batch in loader:
                batch = state.device.batch_to_device(batch)
                outputs = model.eval_forward(batch).cpu()
                model.update_metric(batch, outputs, metric)

        def evaluate_fixed(state, model, loader, metric, cpu):
            for batch in loader:
                batch = state.device.batch_to_device(batch)
                outputs = model.eval_forward(batch).cpu()
                model.update_metric(cpu.batch_to_device(batch), outputs, metric)
        """
    analysis = analyse(body)
    assert [type(e).__name__ for e in analysis.events] == ["Mix"]
    mix = analysis.events[0]
    assert "update_metric" in mix.operation
    assert analysis.ctx.code_for(mix.accel.expr) == "batch" and analysis.ctx.code_for(mix.host.expr) == "outputs"


def test_arithmetic_with_an_unseen_operand_keeps_the_tensors_place() -> None:
    # (imitation's discounted returns) A number or a tensor on its device is all a tensor of one or
    # more dimensions accepts: the result is where that tensor is.
    env = module_env(
        """
        scale = getattr(math, "pi")
        host = scale * torch.arange(4)
        moved = torch.ones(4).to("cuda") - scale
        number = scale * torch.tensor(2.0)
        """
    )
    assert env["host"].kind is Kind.HOST
    assert env["moved"].kind is Kind.ACCEL
    assert "number" not in env or env["number"].kind is Kind.UNKNOWN  # a 0-dim tensor goes where the other is


def test_a_layer_built_here_and_never_moved_outputs_host_tensors() -> None:
    body = """
        def train(loader, device):
            model = nn.Linear(3, 3)
            for x, y in loader:
                out = model(x)
                loss = (out - y.to(device)).pow(2).mean()
        """
    assert event_types(body) == ["Mix"]
    # A layer of an object: what else moves it is not all seen, so its outputs are not placed.
    held = """
        class Agent:
            def __init__(self):
                self.q = nn.Linear(3, 1)

            def value(self, x, device):
                return self.q(x) - torch.ones(2, 1, device=device)
        """
    assert event_types(held) == []


def test_a_layers_weight_and_a_modules_own_parameters_are_where_it_is() -> None:
    body = """
        class Table(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(6, 2)

            def restore(self, saved):
                self.emb.weight.index_copy_(0, torch.arange(2), saved)

            def restore_all(self, saved):
                for name, param in self.named_parameters():
                    param.data.index_add_(0, torch.arange(2), saved)

            def fine(self, saved):
                self.emb.weight.index_copy_(0, torch.arange(2, device=self.emb.weight.device), saved)
        """
    assert event_types(body) == ["HostMeetsInput", "HostMeetsInput"]


def test_a_torch_function_looked_up_by_name_is_that_function() -> None:
    body = """
        class Loss(nn.Module):
            def __init__(self, n=8, window="hann_window"):
                super().__init__()
                self.window = getattr(torch, window)(n)
                self.other = getattr(torch, "hamming_window")(n)
                self.unknown = getattr(torch, cfg.window)(n)

            def forward(self, x):
                return x * self.window * self.other * self.unknown
        """
    analysis = analyse(body)
    assert "PlainAttributeMeets" in [type(e).__name__ for e in analysis.events]
    state = analysis.attribute_state("Loss")
    assert state["window"].kind is Kind.HOST and state["other"].kind is Kind.HOST
    assert state["unknown"].kind is Kind.UNKNOWN
