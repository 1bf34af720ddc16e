"""The device flow across the file's calls: the script calling its functions, deep call chains,
device variables shared by caller and callee."""

from __future__ import annotations

import ast
import textwrap

import pytest

from flake8_device.analysis import flow
from flake8_device.analysis.flow import Kind
from flake8_device.analysis.symbols import Symbols
from tests.test_flow import HEADER, analyse, event_types, kinds


def test_the_script_calls_the_files_functions() -> None:
    # A `def` at the top level binds the function the script's calls then apply.
    body = """
        def load_model():
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            return nn.Linear(3, 3).to(device)

        def detect(model, image):
            return model(image).detach().numpy()

        if __name__ == "__main__":
            model = load_model()
            detect(model, torch.ones(3).to(model.weight.device))
        """
    assert event_types(body) == ["NumpyOnAccel"]
    # Rebound to something else, the name is no longer the function.
    body = """
        def load_model():
            return nn.Linear(3, 3).cuda()

        def detect(model, image):
            return model(image).detach().numpy()

        detect = make_detector()
        detect(load_model(), torch.ones(3).cuda())
        """
    assert event_types(body) == []


def test_a_deep_call_chain_is_followed_from_its_top() -> None:
    # The script calls `main`, which calls the model, whose forward calls a submodule's forward, which
    # calls a helper: the chain is as deep as the summaries go, and a summary made while its callees
    # were cut off is not reused where they are not.
    body = """
        import numpy as np

        def rate(scores, labels):
            return torch.eq(scores.argmax(-1), labels).float().mean()

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)

            def forward(self, h, labels):
                return rate(self.fc(h), labels)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(4, 4)
                self.head = Head()

            def forward(self, x, labels):
                return self.head(self.enc(x), labels)

        def main(steps):
            model = Net().cuda()
            for _ in range(steps):
                acc = model(torch.randn(2, 4).cuda(), torch.zeros(2).long().cuda())
                print(np.array([acc * 100]))

        main(3)
        """
    assert event_types(body) == ["NumpyOnAccel"]


def test_what_one_device_variable_places_never_meets_across_its_alternatives() -> None:
    # `device` is "cpu" for the script's call and may be an accelerator for other callers: the
    # model and the batch are on the CPU together, or on the device together.
    body = """
        def train(model, loader, device):
            for x, y in loader:
                x = x.to(device)
                if flip:
                    x = x.flip(0)
                loss = F.cross_entropy(model(x), y.to(device))

        def main(device="cpu"):
            model = nn.Linear(4, 3).to(device)
            train(model, [(torch.randn(2, 4), torch.zeros(2).long())], device)

        main("cpu")
        """
    assert event_types(body) == []
    # A batch left where the loader put it still meets the model on the device.
    body = """
        def train(model, loader, device):
            for x, y in loader:
                loss = F.cross_entropy(model(x), y.to(device))

        def main(device="cpu"):
            model = nn.Linear(4, 3).to(device)
            train(model, [(torch.randn(2, 4), torch.zeros(2).long())], device)

        main("cuda")
        """
    assert "InputNotMoved" in event_types(body)


def test_a_model_moved_along_one_path_is_no_device_choice_of_its_own() -> None:
    # `if args.device == "gpu": model.cuda()` and an input moved under `self.device == "gpu"` (the
    # same flag, passed on): the link between the two tests is not known, so no mismatch is claimed.
    body = """
        class Predictor:
            def __init__(self, model, device="cpu"):
                self.model = model
                self.device = device

            def inference(self, img):
                img = torch.from_numpy(img).float()
                if self.device == "gpu":
                    img = img.cuda()
                return self.model(img)

        def main(exp, args):
            model = exp.get_model()
            if args.device == "gpu":
                model.cuda()
            return Predictor(model, args.device)

        predictor = main(Exp(), parse())
        predictor.inference(np.zeros(3))
        """
    assert "DeviceChoiceMismatch" not in event_types(body)


def test_a_device_fallback_with_or_may_name_the_accelerator() -> None:
    body = """
        import numpy as np

        class Head(nn.Module):
            def __init__(self, device=None):
                super().__init__()
                self.linear = nn.Linear(4, 3)
                self.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))

        head = Head()
        np.asarray(head(torch.ones(2, 4).to(next(head.parameters()).device)))
        """
    assert event_types(body) == ["NumpyOnAccel"]
    body = """
        x = torch.ones(3).to(device or "cpu")
        y = torch.ones(3).to(None or "cpu")
        z = torch.ones(3).to(args.device or "cuda")
        """
    found = kinds(body)
    assert (found["x"], found["y"], found["z"]) == (flow.Kind.ACCEL, flow.Kind.HOST, flow.Kind.ACCEL)


def test_numpy_of_what_a_modules_own_layers_make() -> None:
    # Model code runs wherever the module is: the output of its layers with parameters cannot go to
    # NumPy without `.cpu()`; its raw input (a transform's CPU image) and parameter-free layers can.
    body = """
        class DBNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Conv2d(3, 1, 1)
                self.act = nn.Sigmoid()

            def forward(self, x, return_boxes=False):
                prob = torch.sigmoid(self.head(x))
                if return_boxes:
                    return post(prob.squeeze(1).detach().numpy())
                return prob

        class ToArray(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.Sigmoid()

            def forward(self, image):
                return image.numpy(), self.act(image).numpy()
        """
    assert event_types(body) == ["NumpyOnAccel"]


def test_one_batch_taken_with_next_and_a_model_kept_by_a_trainer() -> None:
    # `next(iter(loader))` is a batch like the loop's; a model handed to a trainer, moved there and
    # called through `self.model` (its `.eval()` says it is a module) meets that batch unmoved.
    body = """
        DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

        class Trainer:
            def __init__(self, model, valid_loader):
                self.model = model.to(DEVICE)
                self.valid_loader = valid_loader

            def validation(self):
                self.model.eval()
                clip, future = next(iter(self.valid_loader))
                return self.model(clip)

        def main():
            batches = [(torch.rand(2, 4), torch.rand(2, 4))]
            Trainer(nn.Linear(4, 4), batches).validation()
        """
    assert event_types(body) == ["InputNotMoved"]
    # A name bound to `next` is not the builtin.
    body = body.replace("clip, future = next(", "next = pick\n                clip, future = next(")
    assert event_types(body) == []


def test_a_module_class_that_overrides_call_runs_it() -> None:
    body = """
        class Scorer(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Linear(3, 3)

            def __call__(self, x):
                return self.net(x).cpu()

        scorer = Scorer().cuda()
        out = scorer(torch.rand(3).cuda())
        total = out + torch.ones(3).cuda()
        """
    assert event_types(body) == ["Mix"]


def test_a_sequence_of_tensors_is_where_its_elements_are() -> None:
    found = kinds(
        """
        xs = [torch.ones(3).cuda(), torch.zeros(3).cuda()]
        a = torch.stack(xs)
        b = torch.cat([x * 2 for x in xs])
        """
    )
    assert (found["a"], found["b"]) == (flow.Kind.ACCEL, flow.Kind.ACCEL)


def test_an_nccl_backend_chosen_by_a_command_line_default() -> None:
    import ast

    from flake8_device.rules.frameworks import initialises_nccl

    source = (
        "parser.add_argument('--backend', default='nccl')\n"
        "dist.init_process_group(backend=args.backend, init_method=args.init_method)\n"
    )
    assert initialises_nccl(ast.parse(source))
    assert not initialises_nccl(ast.parse(source.replace("'nccl'", "'gloo'")))


def test_loop_targets_unpack_tuples_by_position() -> None:
    body = """
        import numpy as np

        episode = []
        for step in range(3):
            episode.append((torch.ones(3).cuda(), np.zeros(2)))
        rewards = np.array([r for _, r in episode])
        """
    assert event_types(body) == []


def test_a_method_of_a_model_never_moved_meets_device_tensors_through_its_layers() -> None:
    body = """
        class PolicyNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Linear(4, 2)

            def forward(self, obs, reward):
                return self.net(torch.cat((obs, reward), dim=-1))

            def distribution(self, obs, reward):
                return Categorical(self.forward(obs, reward))

            def describe(self, obs):
                return obs.shape

        class Agent:
            def __init__(self, device):
                self.device = device
                self.net = PolicyNet()

            def update(self, obs, reward):
                obs = obs.to(self.device)
                self.net.describe(obs)
                return self.net.distribution(obs, reward.to(self.device))
        """
    assert event_types(body) == ["Mix"]
    assert event_types(body.replace("self.net = PolicyNet()", "self.net = PolicyNet().to(device)")) == []


def test_one_parameter_given_different_places_never_meets_itself() -> None:
    # `output` is a host tensor for one call and wherever the inputs are for others: its two slices
    # are on one device along every path.
    body = """
        def average_precision(output):
            scores = output.gather(0, output.argsort(dim=0))
            ends = scores[:-1] != scores[1:]
            return ends

        def compute(outputs):
            return average_precision(torch.cat([o.cpu() for o in outputs]))
        """
    assert event_types(body) == []
    # Two parameters are two values: a host tensor still meets the other one's device tensor.
    body = """
        def compare(a, b):
            return a != b

        def check(x):
            return compare(torch.ones(3), x.cuda())
        """
    assert set(event_types(body)) == {"Mix"}


def test_a_model_moved_in_an_assignment_moves_in_place() -> None:
    # `self.model = model.to(gpu)` moves `model` too: wrapping it next is fine.
    body = """
        from torch.nn.parallel import DistributedDataParallel as DDP

        class Trainer:
            def __init__(self, model, gpu_id):
                self.model = model.to(gpu_id)
                self.model = DDP(model, device_ids=[gpu_id])

        def main(rank):
            Trainer(nn.Linear(4, 2), rank)
        """
    assert event_types(body) == []


def test_a_forward_that_moves_part_of_its_input_takes_it_from_anywhere() -> None:
    body = """
        class Backbone(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)

            def forward(self, batch):
                return self.fc(batch["features"].to(next(self.parameters()).device))

        def fit(device):
            model = Backbone().to(device)
            for batch in [{"features": torch.randn(4, 4)}]:
                model(batch)
        """
    assert event_types(body) == []


def test_a_helper_converting_its_argument_follows_what_each_call_passes() -> None:
    # UDOP's padding helper: `torch.tensor(seq)` only where `seq` is no tensor.  A device tensor
    # stays on the device; a list is made on the host.
    helper = """
        def padded(seq, length):
            if isinstance(seq, torch.Tensor):
                n = seq.shape[0]
            else:
                n = len(seq)
                seq = torch.tensor(seq)
            if length > n:
                seq = torch.cat([seq, torch.stack([torch.tensor(0.0)] * (length - n)).to(seq)], dim=0)
            return seq[:length]
        """
    on_device = """
        def stacked(patches, length):
            patches = [p.cuda() for p in patches]
            return torch.stack([padded(item, length) for item in patches])
        """
    assert event_types(helper + on_device) == []
    from_a_list = """
        def shifted(x, length):
            return x.cuda() + padded([1.0, 2.0], length)
        """
    assert event_types(helper + from_a_list) == ["Mix"]


def test_what_a_stateless_modules_method_computes_from_its_inputs_is_not_where_the_module_is() -> None:
    # diffusers' Shap-E ray sampler: an `nn.Module` with no parameters, never moved; what `sample`
    # computes from its two inputs is where they are, not on the host with the module.
    body = """
        class Sampler(nn.Module):
            def sample(self, t0, t1, n):
                ts = torch.linspace(0, 1, n).to(t0.device)
                return t0 * (1.0 - ts) + t1 * ts

        def render(rays, sampler):
            rays = rays.cuda()
            ts = sampler.sample(rays[..., :1], rays[..., 1:2], 4)
            return rays * ts

        render(torch.ones(2, 3), Sampler())
        """
    assert event_types(body) == []
    # The same with a construction that keeps only a setting.
    configured = body.replace(
        "class Sampler(nn.Module):",
        'class Sampler(nn.Module):\n            def __init__(self, mode="linear"):\n                self.mode = mode\n',
    )
    assert "self.mode" in configured and event_types(configured) == []


def test_a_wrapper_of_a_model_its_caller_passes_is_where_that_model_is() -> None:
    # `Student(model)` keeps what `build` is given: neither on the CPU nor anywhere known.
    body = """
        class Student(nn.Module):
            def __init__(self, model, head=None):
                super().__init__()
                self.model = model
                self.head = head

        def build(model):
            wrapped = Student(model)
            return wrapped

        wrapped = build(unknown_model)
        own = Student(nn.Linear(3, 3))
        """
    found = kinds(body)
    assert found["wrapped"] is Kind.UNKNOWN
    assert found["own"] is Kind.HOST


def test_a_class_with_forward_over_a_base_from_elsewhere_is_a_module() -> None:
    body = """
        from abc import ABC
        from segmentation_kit import SegmentationModel
        from .base import Backbone

        class Model(SegmentationModel):
            def forward(self, x):
                return x

        class Local(Backbone):
            def forward(self, x):
                return x

        class Derived(Model):
            def predict(self, x):
                return x

        class NoForward(SegmentationModel):
            def predict(self, x):
                return x

        class Interface(ABC):
            def forward(self, x):
                return x

        class Function(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x
        """
    symbols = analyse(body).ctx.symbols
    names = ("Model", "Local", "Derived", "NoForward", "Interface", "Function")
    modules = {n for n in names if symbols.is_local_module_class(n)}
    assert modules == {"Model", "Local", "Derived"}
    assert symbols.module_by_evidence("Derived") and not symbols.module_by_evidence("NoForward")


def test_a_star_import_hands_on_the_conventional_torch_names() -> None:
    source = "from models.common import *\n\nclass Detect(nn.Module):\n    pass\n"
    symbols = Symbols(ast.parse(source))
    assert symbols.is_local_module_class("Detect") and not symbols.module_by_evidence("Detect")
    assert symbols.qualify_dotted("F.pad") == "torch.nn.functional.pad"
    assert Symbols(ast.parse("import numpy as nn\nfrom m import *\n")).qualify_dotted("nn.Module") == "numpy.Module"


def test_arguments_before_a_star_argument_are_bound_and_the_rest_are_unknown() -> None:
    # Latent diffusion's shape: `forward(x, c, *args, **kwargs)` hands its own `t` on by position
    # before the starred arguments, so `p_losses` gets the device timesteps and indexes the plain
    # attribute with them.
    body = """
        class Diffusion(nn.Module):
            def __init__(self, steps):
                super().__init__()
                self.net = nn.Linear(4, 4)
                self.logvar = torch.zeros(steps)

            def forward(self, x, c, *args, **kwargs):
                t = torch.randint(0, 10, (x.shape[0],), device=x.device)
                return self.p_losses(x, c, t, *args, **kwargs)

            def p_losses(self, x, c, t, noise=None):
                return self.net(x + c) * self.logvar[t]
        """
    assert event_types(body) == ["PlainAttributeMeets"]
    # Passed by the starred arguments instead, the timesteps are not known.
    hidden = body.replace("self.p_losses(x, c, t, *args, **kwargs)", "self.p_losses(x, c, *args, **kwargs)")
    assert event_types(hidden) == []
    # What the starred arguments may pass is unknown, never a parameter's default: `device="cpu"`
    # is what `place` gets only where nothing else can be passed.
    body = """
        def place(x, device="cpu"):
            return x.to(device)

        def run(x, *args):
            return place(x, *args) + torch.ones(3).cuda()
        """
    assert event_types(body) == []
    assert event_types(body.replace("place(x, *args)", "place(x)")) == ["Mix"]


def test_an_optimizers_parameters_are_where_its_model_is() -> None:
    # AdaFactor's shape: factored state made with `torch.zeros(shape)` (no device) on the first
    # step, kept in the per-parameter state dict and updated with the gradients' statistics.
    body = """
        class AdaFactor(torch.optim.Optimizer):
            @torch.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is None:
                            continue
                        grad = p.grad
                        state = self.state[p]
                        factored = grad.dim() >= 2
                        if len(state) == 0:
                            state["step"] = 0
                            state["exp_avg"] = torch.zeros_like(p)
                            if factored:
                                state["row"] = torch.zeros(grad.shape[:-1])
                                state["col"] = torch.zeros(grad.shape[-1:])
                            else:
                                state["sq"] = torch.zeros_like(grad)
                        state["step"] += 1
                        if factored:
                            row, col = state["row"], state["col"]
                            row.mul_(0.9).add_(grad.mean(dim=-1))
                            col.mul_(0.9).add_(grad.mean(dim=-2))
                        else:
                            state["sq"].mul_(0.9).add_(grad * grad)
        """
    assert event_types(body) == ["HostMeetsInput", "HostMeetsInput"]
    placed = body.replace("torch.zeros(grad.shape[:-1])", "torch.zeros(grad.shape[:-1], device=p.device)")
    placed = placed.replace("torch.zeros(grad.shape[-1:])", "grad.new_zeros(grad.shape[-1:])")
    assert event_types(placed) == []
    # A class that is no optimizer: what its `param_groups` hold is not known.
    assert event_types(body.replace("(torch.optim.Optimizer)", "")) == []


def test_an_entry_stored_in_an_unknown_dict_is_read_back_along_its_path() -> None:
    # `state = cache[p]` is unknown; along the path that stores `state["row"]`, reading it gives what
    # was stored, and only that entry (not the other entries stored beside it).
    body = """
        def update(p, cache, grad: torch.Tensor):
            state = cache[p]
            if len(state) == 0:
                state["row"] = torch.zeros(3).cuda()
                state["col"] = torch.zeros(4)
            return state["row"] + grad.cuda()
        """
    assert event_types(body) == []
    assert event_types(body.replace("torch.zeros(3).cuda()", "torch.zeros(3)")) == ["Mix"]


@pytest.mark.parametrize(
    ("imports", "annotation", "tensor"),
    [
        ("import torch as th", "th.Tensor", True),
        ("from torch import Tensor as T", "T", True),
        ("import torch", '"torch.Tensor"', True),
        ("from typing import Optional", "Optional[torch.Tensor]", True),
        ("import torch", "torch.Tensor | None", True),
        ("from jaxtyping import Float", 'Float[torch.Tensor, "b n"]', True),
        ("from typing import List", "List[torch.Tensor]", False),
        ("import numpy as th", "th.Tensor", False),
    ],
)
def test_a_parameter_annotated_as_a_tensor_is_an_input(imports: str, annotation: str, tensor: bool) -> None:
    # Imitation's shape: a module's method (not `forward`) whose rewards are annotated `th.Tensor`
    # multiplies them with discounts made on the CPU.  The annotation is read through the imports.
    body = f"""
        {imports}

        class Preference(nn.Module):
            def probability(self, rews1: {annotation}, rews2: {annotation}):
                discounts = 0.9 ** torch.arange(len(rews1))
                return (discounts * (rews2 - rews1)).sum()
        """
    assert event_types(body) == (["HostMeetsInput"] if tensor else [])
    tree = ast.parse(HEADER + textwrap.dedent(body))
    assert Symbols(tree).tensor_annotation(annotation) is tensor


def test_a_star_parameter_holds_what_each_call_passes() -> None:
    # SMP's shape: `_take_channels(*xs)` selects channels of each tensor it is given with an index
    # made on the CPU; the metric module passes its inputs.
    body = """
        def take_channels(*xs, ignore=None):
            channels = [c for c in range(xs[0].shape[1]) if c not in ignore]
            return [torch.index_select(x, dim=1, index=torch.tensor(channels)) for x in xs]

        class IoU(nn.Module):
            def forward(self, pr, gt):
                pr, gt = take_channels(pr, gt, ignore=[0])
                return (pr * gt).sum()
        """
    assert event_types(body) == ["HostMeetsInput"]
    assert event_types(body.replace("torch.tensor(channels)", "torch.tensor(channels, device=xs[0].device)")) == []
    # Called with host tensors only, the CPU index is where they are.
    body = """
        def take_channels(*xs, ignore=None):
            channels = [c for c in range(xs[0].shape[1]) if c not in ignore]
            return [torch.index_select(x, dim=1, index=torch.tensor(channels)) for x in xs]

        pr, gt = take_channels(torch.ones(2, 3), torch.zeros(2, 3), ignore=[0])
        """
    assert event_types(body) == []


def test_a_parameter_documented_as_a_tensor_is_an_input() -> None:
    # A plain function that never mentions a device takes tensors where its docstring says so.
    body = '''
        def scale(pr, weights):
            """Scale the predictions.

            Args:
                pr (torch.Tensor): predicted tensor
                weights (list of float): one weight per class
            """
            return pr * torch.tensor([0.5, 2.0])
        '''
    assert event_types(body) == ["HostMeetsInput"]
    assert event_types(body.replace("pr (torch.Tensor)", "pr (np.ndarray)")) == []
    numpy_style = body.replace("Args:\n                pr (torch.Tensor): predicted tensor", "pr : Tensor")
    assert event_types(numpy_style) == ["HostMeetsInput"]


def test_a_keyword_argument_of_a_layer_from_elsewhere_is_not_known_to_meet_its_weights() -> None:
    # BLIP's shape: a CPU attention mask given by keyword to a text model of another module, whose
    # forward moves it to its embeddings' device: not seen here, so not reported.
    body = """
        from .text import TextModel

        class Captioner(nn.Module):
            def __init__(self):
                super().__init__()
                self.text = TextModel()
                self.attn = nn.MultiheadAttention(4, 1)

            def forward(self, x, ids):
                mask = torch.ones(x.shape[:-1], dtype=torch.long)
                return self.text(ids, encoder_hidden_states=x, encoder_attention_mask=mask)
        """
    assert event_types(body) == []
    # Its positional input meets its weights; a torch.nn layer's keyword arguments do too.
    assert event_types(body.replace("self.text(ids, ", "self.text(mask, ")) == ["HostMeetsInput"]
    torch_layer = body.replace(
        "self.text(ids, encoder_hidden_states=x, encoder_attention_mask=mask)",
        "self.attn(x, x, x, key_padding_mask=torch.zeros(x.shape[:-1]))",
    )
    assert event_types(torch_layer) == ["HostMeetsInput"]


def test_a_module_container_is_where_the_modules_it_is_given_are() -> None:
    # NVIDIA's BART distillation: the kept layers of a moved model, put in a new `nn.ModuleList`
    # and attached back, are where the model is; fresh layers appended there are on the CPU.
    body = """
        def distill(layers, n):
            kept = nn.ModuleList()
            for i in range(n):
                kept.append(layers[i])
            return kept

        def run(model, device):
            model = model.to(device)
            model.encoder.layers = distill(model.encoder.layers, 2)
            return model
        """
    assert event_types(body) == []
    assert event_types(body.replace("kept.append(layers[i])", "kept.append(nn.Linear(2, 2))")) == ["AttachAfterMove"]


def test_a_private_flag_every_call_leaves_alone_closes_its_branch_in_the_summary() -> None:
    # Transformer-XL's `_rel_shift(x, zero_triu=False)`: a CPU mask made under the flag is no
    # path of any call, as long as no call of the file passes the flag as anything else.
    body = """
        class Attn(nn.Module):
            def _shift(self, x, zero_triu=False):
                x = x.flip(0)
                if zero_triu:
                    x = x * torch.tril(torch.ones(4, 4))
                return x

            def forward(self, h):
                return self._shift(h) + h

        model = Attn().to("cuda")
        out = model(torch.randn(4, 4, device="cuda"))
        """
    assert event_types(body) == []
    for call in ("self._shift(h, zero_triu=True)", "self._shift(h, True)", "self._shift(h, zero_triu=flag)"):
        passed = body.replace("self._shift(h)", call).replace("def forward(self, h)", "def forward(self, h, flag=True)")
        assert "HostMeetsInput" in event_types(passed), call
    # A name used other than in a call may be called with anything.
    aliased = body.replace("return self._shift(h)", "shift = self._shift\n                return self._shift(h)")
    assert "HostMeetsInput" in event_types(aliased)


def test_a_submodule_made_along_some_paths_goes_where_the_module_goes() -> None:
    # OpenNMT's attention: `self.relative_attention_bias = nn.Embedding(...)` or `None`, by the
    # configuration; where it is an embedding, it is registered and moves with the module.
    body = """
        class Attn(nn.Module):
            def __init__(self, buckets):
                super().__init__()
                if buckets > 0:
                    self.bias = nn.Embedding(buckets, 4)
                else:
                    self.bias = None

            def forward(self, key):
                if self.bias is not None:
                    return self.bias(torch.arange(key.size(2), device=key.device))
                return key
        """
    assert event_types(body) == []
    # A plain list holding it is no registration: it stays where it was made.
    listed = body.replace("self.bias = nn.Embedding(buckets, 4)", "self.bias = [nn.Embedding(buckets, 4)]")
    listed = listed.replace("self.bias(torch", "self.bias[0](torch")
    assert event_types(listed) != []


def test_a_callers_host_input_meeting_what_a_layer_computes_is_the_callers_finding() -> None:
    # A model tried on the CPU, then moved and given device inputs: `x + self.pos(x)` is where the
    # module is at each call (a host input after the move is reported at the call, not here).
    body = """
        class Seq(nn.Module):
            def __init__(self):
                super().__init__()
                self.pos = nn.Linear(6, 6)
                self.mix = nn.Linear(6, 6)

            def forward(self, x):
                return self.mix(x + self.pos(x))

        def main(device):
            model = Seq()
            sample = torch.rand(2, 6)
            model(sample)
            model.to(device)
            return model(sample.to(device))
        """
    assert event_types(body) == []
    assert event_types(body.replace("model(sample.to(device))", "model(sample)")) == ["InputNotMoved"]


def test_what_is_made_on_a_tensors_device_meets_that_tensor_path_by_path() -> None:
    # kornia's `gaussian`: `sigma` is a host tensor made here or what the caller passes; `mean` and
    # `x` are made on `sigma.device`, so along each path they are where `sigma` is.
    body = """
        def gaussian(size, sigma, device=None):
            if isinstance(sigma, float):
                sigma = torch.tensor([[sigma]], device=device)
            mean = torch.tensor([[2.0]], device=sigma.device)
            x = torch.arange(size, device=sigma.device) - mean
            return torch.exp(-x.pow(2.0) / (2 * sigma.pow(2.0)))

        def kernel(size, sigma, device=None):
            return gaussian(size, sigma, device=device)

        def blur(image, sigma):
            sigma = sigma.to(device=image.device)
            return kernel(5, sigma[:, 1])

        def run(device):
            blur(torch.rand(2, 3, device=device), torch.tensor([[1.5, 1.5]]))
        """
    assert event_types(body) == []
    # The mean made on the `device` argument (None: the CPU) is the bug kornia fixed.
    assert event_types(body.replace("[[2.0]], device=sigma.device", "[[2.0]], device=device")) != []


def test_a_helper_given_a_tensors_device_makes_its_tensor_where_that_tensor_is_at_each_call() -> None:
    # Darts' TFT: a static helper builds an index on the `device` it is given (`x.device`); the
    # model is tried on the CPU, then moved and called with device inputs.
    body = """
        def relative_index(n, device):
            return torch.arange(n, device=device).float()

        def forward(x):
            device = x.device
            return torch.cat([x, relative_index(x.shape[0], device)])

        def run(device):
            forward(torch.randn(3))
            return forward(torch.randn(3).to(device))
        """
    assert event_types(body) == []


def test_a_host_tensor_meets_inputs_that_one_call_passes_from_where_it_is_not_known() -> None:
    # imitation's `probability`: one call passes ground-truth rewards made on the host, another the
    # reward model's output (not known here): the CPU discounts meet what callers elsewhere pass.
    body = """
        class Prefs(nn.Module):
            def probability(self, rews1: torch.Tensor, rews2: torch.Tensor):
                discounts = 0.9 ** torch.arange(len(rews1))
                return (discounts * (rews2 - rews1)).sum(0)

            def both(self, a, b, fa, fb):
                p = self.probability(self.reward(a), self.reward(b))
                return p, self.probability(torch.from_numpy(fa), torch.from_numpy(fb))
        """
    assert event_types(body) == ["HostMeetsInput"]
    # Where every call of the file passes host tensors, the inputs are on the host.
    assert event_types(body.replace("self.reward(a), self.reward(b)", "torch.zeros(3), torch.zeros(3)")) == []


def test_a_collective_on_the_side_of_a_test_where_the_backend_is_not_nccl() -> None:
    # mistral-inference: the length is moved to the GPU where the backend is NCCL; elsewhere (gloo)
    # the host tensor is what the backend communicates.
    body = """
        import torch.distributed as dist

        def share(first, n):
            if first:
                length = torch.tensor([n])
            else:
                length = torch.tensor([0])
            if dist.get_backend() == "nccl":
                length = length.cuda()
            dist.broadcast(length, src=0)
            return length
        """
    assert event_types(body) == []
    assert event_types(body.replace('if dist.get_backend() == "nccl":', "if n > 3:")) == ["CollectiveOnHost"]


def test_a_model_held_by_a_helper_object_and_moved_through_it_is_moved() -> None:
    # Composer's trainer: `self.state.model.to(device)` in `__init__` moves the model the state
    # object holds; `eval` finds it moved.
    body = """
        class State:
            def __init__(self, model):
                self.model = model

        class Trainer:
            def __init__(self, model, device):
                self.state = State(model)
                self.device = device
                self.state.model.to(device)

            def eval(self, batches):
                for x in batches:
                    self.state.model(x.to(self.device))

        def main():
            Trainer(nn.Linear(4, 2), torch.device("cuda")).eval([torch.randn(3, 4)])
        """
    assert event_types(body) == []
    assert event_types(body.replace("                self.state.model.to(device)\n", "")) != []


def test_a_fallback_for_a_none_device_is_not_the_none() -> None:
    # DreamBooth SD3: `device=device if device is not None else encoders[-1].device`: along the
    # first arm `device` is what the caller gave, never its `None` default (which the callers
    # leave: the ids go where the moved encoder is).
    body = """
        def encode(encoder, ids, device=None):
            return encoder(ids.to(device))

        def encode_prompt(encoders, ids, device=None):
            return encode(encoders[-1], ids, device=device if device is not None else encoders[-1].device)

        def main(accelerator):
            encoder = nn.Embedding(10, 4).to(accelerator.device)
            return encode_prompt([encoder], torch.tensor([1, 2]))
        """
    assert event_types(body) == []
    assert event_types(body.replace("device if device is not None else encoders[-1].device", "device")) != []


def test_an_attribute_and_what_is_moved_to_its_device_stay_on_one_path() -> None:
    # diffusers' schedulers: `self.timesteps` is made on the CPU in `__init__` and on `device` in
    # `set_timesteps`; a timestep moved to `self.timesteps.device` is then compared with
    # `self.timesteps` by another method: along each path, both are where the attribute is.
    body = """
        class Scheduler:
            def __init__(self, steps):
                self.timesteps = torch.from_numpy(np.arange(steps))
                self.begin = None

            def set_timesteps(self, steps, device=None):
                self.timesteps = torch.from_numpy(np.arange(steps)).to(device=device)

            def index_for(self, timestep, schedule=None):
                if schedule is None:
                    schedule = self.timesteps
                return (schedule == timestep).nonzero()

            def init_index(self, timestep):
                if self.begin is None:
                    if isinstance(timestep, torch.Tensor):
                        timestep = timestep.to(self.timesteps.device)
                    self.index = self.index_for(timestep)

            def step(self, output, timestep, sample):
                if self.index is None:
                    self.init_index(timestep)
                return sample
        """
    assert event_types(body) == []
    assert event_types(body.replace("timestep.to(self.timesteps.device)", 'timestep.to("cuda")')) != []


def test_a_comprehension_over_a_literal_list_keeps_one_element_per_item() -> None:
    # Darts' TFT: `torch.cat([ts[:, :n] for ts in [x, self.relative_index] if ts is not None])`, the
    # index cached by an earlier call (where that call's inputs were) beside this call's input.
    body = """
        class TFT(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)
                self.relative_index = None
                self.last = None

            def forward(self, x):
                if x.shape[0] != self.last:
                    self.relative_index = torch.arange(x.shape[1], device=x.device).expand(x.shape[0], -1)
                    self.last = x.shape[0]
                return torch.cat([t[:, :3] for t in [x, self.relative_index] if t is not None], dim=1)
        """
    assert event_types(body) == ["PlainAttributeMeets"]
    # Moved where this call's input is, it is no stale state.
    assert event_types(body.replace("in [x, self.relative_index]", "in [x, self.relative_index.to(x.device)]")) == []
    # Two items of one comprehension meet each other as the items of a list do.
    body = """
        def join(x):
            y = x.cuda()
            return torch.cat([t * 2 for t in [torch.zeros(3), y]])
        """
    listed = body.replace("[t * 2 for t in [torch.zeros(3), y]]", "[torch.zeros(3) * 2, y * 2]")
    assert event_types(body) == event_types(listed)
    assert event_types(body) != []


def test_a_plain_class_building_from_a_tensor_it_was_given_is_no_module_built_before_its_move() -> None:
    # PyTorch Geometric Temporal's GraphAAGCN: a plain class whose `__init__` calls a helper that
    # stacks `torch.eye(n)` with `to_dense_adj` of the edge index it was given (some constructions
    # in the file pass what is not known): the identity is made on the CPU, the adjacency where the
    # edges are.
    body = """
        from torch_geometric.utils import to_dense_adj

        class Graph:
            def __init__(self, edge_index, num_nodes):
                self.edge_index = edge_index
                self.A = self.spatial(num_nodes)

            def spatial(self, num_nodes):
                eye = torch.eye(num_nodes)
                inward = torch.squeeze(to_dense_adj(self.edge_index))
                return torch.stack((eye, inward))

        class Model(nn.Module):
            def __init__(self, edge_index: torch.Tensor, num_nodes: int):
                super().__init__()
                self.graph = Graph(edge_index, num_nodes)
        """
    assert [(type(e).__name__, e.building) for e in analyse(body).events] == [("HostMeetsInput", False)]
    # A module's own construction helper runs before anything can move it (the facts say so; DEV202
    # leaves it).
    module = body.replace("class Graph:", "class Graph(nn.Module):").replace(
        "self.edge_index = edge_index", "super().__init__()\n                self.edge_index = edge_index"
    )
    assert [(type(e).__name__, e.building) for e in analyse(module).events] == [("HostMeetsInput", True)]


def test_each_side_of_a_test_that_holds_drops_what_its_opposite_made() -> None:
    # Cosmos' pipeline: `video` is the device latents along `if output_type == "latent":` and
    # something not followed otherwise; the check guarded by `... and output_type != "latent"` never
    # sees the latents.
    body = """
        import numpy as np

        def run(latents, output_type, check):
            latents = latents.cuda()
            if output_type == "latent":
                video = latents
            else:
                video = postprocess(latents)
            if check and output_type != "latent":
                video = np.array(video)
            return video
        """
    assert event_types(body) == []
    # Without the part of the test that tells, the latents may reach the conversion.
    assert event_types(body.replace('check and output_type != "latent"', "check")) == ["NumpyOnAccel"]


def test_keyword_arguments_spread_from_a_dict_reach_their_parameters() -> None:
    # `f(x, **kwargs)`: a dict built with string keys gives each named parameter its item; a dict
    # of unknown keys (a comprehension) gives one of its items to each parameter that has no
    # default, which the call must pass.
    helper = """
        def mask(x, low, high, scale=1.0):
            bins = torch.linspace(0, 1, x.shape[-1])
            return (low <= bins) & (bins < high)

        def to_device(batch, device):
            return {k: v.to(device) for k, v in batch.items()}
        """
    keyed = helper + """
        def run(device):
            kwargs = {"low": torch.rand(2, 1).to(device), "high": torch.rand(2, 1).to(device)}
            return mask(torch.ones(2, 8, device=device), **kwargs)

        run(torch.device("cuda"))
        """
    assert event_types(keyed) == ["Mix", "Mix"]  # (`low <= bins`, `bins < high`)
    built = helper + """
        def run(device):
            kwargs = to_device({"low": torch.rand(2, 1), "high": torch.rand(2, 1)}, device)
            return mask(torch.ones(2, 8, device=device), **kwargs)

        run(torch.device("cuda"))
        """
    assert event_types(built) == ["Mix", "Mix"]
    # Kept on the host, the items meet the host bins: nothing to report.
    host = helper + """
        def run():
            kwargs = {"low": torch.rand(2, 1), "high": torch.rand(2, 1)}
            return mask(torch.ones(2, 8), **kwargs)

        run()
        """
    assert event_types(host) == []
    # A dict of unknown keys passes nothing to a parameter with a default (it may not hold it).
    defaulted = """
        def shift(x, offset=None):
            base = torch.zeros(3)
            return base + offset if offset is not None else base

        def run(device, batch):
            kwargs = {k: v.to(device) for k, v in batch.items()}
            return shift(torch.ones(3), **kwargs)

        run(torch.device("cuda"), {})
        """
    assert event_types(defaulted) == []


def test_an_objects_own_to_moves_what_it_says() -> None:
    # A plain class of the file with its own `to` (audiotools' signal moving its samples): after
    # `Signal(x).to(device)` its attributes are where that method put them.
    body = """
        class Signal:
            def __init__(self, samples):
                self.samples = samples

            def to(self, device):
                self.samples = self.samples.to(device)
                return self

        def run(device):
            signal = Signal(torch.randn(3)).to(device)
            return signal.samples + torch.ones(3, device=device)

        run(torch.device("cuda"))
        """
    assert event_types(body) == []
    # Where the method does not move the samples, they stay on the host.
    stays = body.replace("self.samples = self.samples.to(device)", "self.moved = True")
    assert event_types(stays) == ["Mix"]
    # The same where the move is a statement of its own (`signal.to(device)`).
    statement = body.replace(
        "signal = Signal(torch.randn(3)).to(device)", "signal = Signal(torch.randn(3))\n            signal.to(device)"
    )
    assert statement != body and event_types(statement) == []
    assert event_types(statement.replace("self.samples = self.samples.to(device)", "self.moved = True")) == ["Mix"]


def test_iterating_a_generator_function_gives_what_it_yields() -> None:
    # `for x in batches(3)`: each step is what the generator yields (here made on the CPU).
    body = """
        def batches(n):
            for _ in range(n):
                yield torch.randn(2, 4)

        def train(device):
            model = nn.Linear(4, 2).to(device)
            for x in batches(3):
                model(x)

        train(torch.device("cuda"))
        """
    assert event_types(body) == ["InputNotMoved"]
    assert event_types(body.replace("torch.randn(2, 4)", 'torch.randn(2, 4, device="cuda")')) == []
    # `next(...)` takes one step of it too; `yield from` gives the steps of what it delegates to.
    stepped = body.replace("for x in batches(3):\n                model(x)", "model(next(batches(3)))")
    assert stepped != body and event_types(stepped) == ["InputNotMoved"]
    loop = "for _ in range(n):\n                yield torch.randn(2, 4)"
    delegated = body.replace(loop, "yield from [torch.randn(2, 4)]")
    assert delegated != body and event_types(delegated) == ["InputNotMoved"]
