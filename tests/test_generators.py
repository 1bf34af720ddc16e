"""DEV303 under a default device the file sets: samplers draw their permutation there, so a CPU
generator handed to one is reported where it is made (the generator is what to change)."""

from __future__ import annotations

import textwrap

from test_flow import analyse

from flake8_device.analysis.flow import Kind
from flake8_device.engine import Engine
from flake8_device.registry import rule_by_code


def lint(source: str, code: str = "DEV303") -> list[int]:
    rule = rule_by_code(code)
    assert rule is not None
    result = Engine([rule]).lint(textwrap.dedent(source))
    assert result.error is None and not result.internal_errors
    return [v.line for v in result.violations]


def test_cpu_generator_for_a_sampler_under_an_accelerator_default_device() -> None:
    source = """
    import torch
    from torch.utils.data import DataLoader, SubsetRandomSampler

    def make_loader(dataset, seed):
        rng = torch.Generator()
        rng.manual_seed(seed)
        sampler = SubsetRandomSampler(list(range(len(dataset))), generator=rng)
        return DataLoader(dataset, sampler=sampler)

    def create_engine(device):
        torch.set_default_device(device.type)
    """
    assert lint(source) == [6]


def test_generator_in_a_closure_and_a_sampler_subclass() -> None:
    source = """
    import torch
    from torch.utils.data import RandomSampler, SubsetRandomSampler

    class SeededSampler(RandomSampler):
        def set_epoch(self, epoch):
            self.epoch = epoch

    def prepare(dataset, shuffle):
        rng = torch.Generator()

        def make_sampler(indexes):
            return SubsetRandomSampler(indexes, generator=rng)

        other = SeededSampler(dataset, generator=getattr(dataset, "generator", torch.Generator()))
        return make_sampler(list(range(len(dataset)))), other

    def main():
        torch.set_default_device("cuda")
    """
    assert lint(source) == [10, 15]


def test_generator_on_the_default_device_or_no_setting() -> None:
    good = """
    import torch
    from torch.utils.data import RandomSampler

    def make(dataset):
        torch.set_default_device("cuda")
        return RandomSampler(dataset, generator=torch.Generator(device=torch.get_default_device()))
    """
    assert lint(good) == []
    plain = """
    import torch
    from torch.utils.data import RandomSampler

    def make(dataset):
        return RandomSampler(dataset, generator=torch.Generator())
    """
    assert lint(plain) == []
    scoped = """
    import torch
    from torch.utils.data import RandomSampler

    def make(dataset):
        with torch.device("cuda"):
            model = torch.nn.Linear(2, 2)
        return RandomSampler(dataset, generator=torch.Generator()), model
    """
    assert lint(scoped) == []


def test_an_optional_generator_keeps_its_place() -> None:
    analysis = analyse(
        """
        generator = None
        if seed is not None:
            generator = torch.Generator().manual_seed(seed)
        """
    )
    value = analysis.final_env[analysis.ctx.module]["generator"]
    assert value.kind is Kind.MAYBE
    assert any(a.generator and a.kind is Kind.HOST for a in value.alternatives)


def test_default_device_set_when_a_dataset_module_is_imported() -> None:
    module = """
    import torch
    import torch.utils.data as data

    torch.set_default_tensor_type("torch.cuda.FloatTensor")


    class Clips(data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, index):
            return index
    """
    assert lint(module, "DEV304") == [5]
    # Set in a function (the caller decides when), on the CPU, or with no dataset here: not reported.
    in_a_function = "def setup():\n        torch.set_default_device('cuda')"
    setting = 'torch.set_default_tensor_type("torch.cuda.FloatTensor")'
    assert lint(module.replace(setting, in_a_function), "DEV304") == []
    assert lint(module.replace("torch.cuda.FloatTensor", "torch.FloatTensor"), "DEV304") == []
    assert lint(module.replace("data.Dataset", "object"), "DEV304") == []
    # A loader imported but never built here is built by the importer: still reported here.  One
    # built here is reported where it is built instead.
    loader_import = "import torch.utils.data as data\n    from torch.utils.data import DataLoader\n"
    imported = module.replace("import torch.utils.data as data\n", loader_import)
    assert lint(imported, "DEV304") == [6]
    built = imported + "\n\n    loader = DataLoader(Clips(), batch_size=2)\n"
    assert lint(built, "DEV304") == []
