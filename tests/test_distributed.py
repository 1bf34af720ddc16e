"""Which files run their collectives over NCCL (DEV503, DEV504): the backend as real code names it."""

from __future__ import annotations

import ast
import textwrap

import pytest

from flake8_device.engine import Engine
from flake8_device.registry import rule_by_code
from flake8_device.rules.frameworks import initialises_nccl


def nccl(source: str) -> bool:
    return initialises_nccl(ast.parse(textwrap.dedent(source)))


@pytest.mark.parametrize(
    "source",
    [
        'dist.init_process_group("nccl")',
        'dist.init_process_group(backend="nccl", world_size=2)',
        # An option whose default is NCCL, read back from the parsed arguments.
        """
        parser.add_argument("--dist-backend", default="nccl", type=str)
        dist.init_process_group(backend=args.dist_backend, init_method=args.dist_url)
        """,
        """
        parser.add_argument("--backend", dest="comm", default="nccl")
        dist.init_process_group(args.comm)
        """,
        # A parameter's default, a variable.
        """
        def setup(rank, backend="nccl"):
            dist.init_process_group(backend, rank=rank)
        """,
        """
        BACKEND = "nccl"
        dist.init_process_group(backend=BACKEND)
        """,
        # No backend on a CUDA machine: since PyTorch 2.6, the accelerator's backend only.
        """
        dist.init_process_group()
        torch.cuda.set_device(dist.get_rank())
        """,
        # Accelerate launches multi-GPU processes over NCCL.
        "accelerator = Accelerator(mixed_precision='fp16')",
        # Chosen by CUDA's presence: NCCL wherever there is a GPU.
        'dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")',
        """
        backend = "nccl" if torch.cuda.is_available() else "gloo"
        dist.init_process_group(backend, rank=rank, world_size=world)
        """,
        'dist.init_process_group(backend=os.environ.get("BACKEND") or "nccl")',
    ],
)
def test_nccl_backend(source: str) -> None:
    assert nccl(source)


@pytest.mark.parametrize(
    "source",
    [
        'dist.init_process_group("gloo")',
        """
        parser.add_argument("--dist-backend", default="gloo", type=str)
        dist.init_process_group(backend=args.dist_backend)
        """,
        "dist.init_process_group(backend=backend)",
        # No backend, and nothing about CUDA: gloo on a CPU machine.
        "dist.init_process_group()",
        "accelerator = Accelerator(cpu=True)",
        'dist.init_process_group("gloo" if on_cpu else "mpi")',
    ],
)
def test_not_nccl(source: str) -> None:
    assert not nccl(source)


def test_collective_on_host_tensor_with_the_default_backend() -> None:
    source = """
    import torch
    import torch.distributed as dist

    def main(prompt):
        dist.init_process_group()
        torch.cuda.set_device(dist.get_rank())
        length = torch.tensor([len(prompt)])
        dist.broadcast(length, src=0)
    """
    rule = rule_by_code("DEV503")
    assert rule is not None
    result = Engine([rule]).lint(textwrap.dedent(source))
    assert [v.line for v in result.violations] == [9]
