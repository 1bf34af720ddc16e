"""What the linter knows about PyTorch's API, as plain data (torch is never imported).

Names are fully qualified (``torch.nn.Linear``); :mod:`.symbols` turns the
names written in a file into these.
"""

from __future__ import annotations

import re

# Factories that allocate on the default device (the CPU) unless given ``device=``.
TENSOR_FACTORIES: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        "arange",
        "as_tensor",
        "bartlett_window",
        "blackman_window",
        "empty",
        "empty_strided",
        "eye",
        "from_numpy",
        "full",
        "hamming_window",
        "hann_window",
        "kaiser_window",
        "linspace",
        "logspace",
        "ones",
        "rand",
        "randint",
        "randn",
        "randperm",
        "range",
        "tensor",
        "tril_indices",
        "triu_indices",
        "zeros",
        "normal",
        "Tensor",
        "FloatTensor",
        "LongTensor",
        "IntTensor",
        "BoolTensor",
        "DoubleTensor",
        "HalfTensor",
        "ByteTensor",
    )
)

# Factories that never take a ``device=`` argument: the result lives where numpy lives.
HOST_ONLY_FACTORIES: frozenset[str] = frozenset(
    {
        "torch.from_numpy",
        "torch.FloatTensor",
        "torch.LongTensor",
        "torch.IntTensor",
        "torch.BoolTensor",
        "torch.DoubleTensor",
        "torch.HalfTensor",
        "torch.ByteTensor",
        "torch.Tensor",
    }
)

# ``torch.*_like(x)`` follows ``x`` unless told otherwise.
LIKE_FACTORIES: frozenset[str] = frozenset(
    f"torch.{name}_like" for name in ("empty", "full", "ones", "rand", "randint", "randn", "zeros")
)

# ``x.new_*()`` follows ``x``.
NEW_METHODS: frozenset[str] = frozenset(
    {"new_empty", "new_full", "new_ones", "new_tensor", "new_zeros", "new_empty_strided"}
)

# torch functions that build a tensor from other tensors without moving it.
# (``torch.tril(torch.ones(n, n))`` is as much a CPU tensor as ``torch.ones``.)
TENSOR_TRANSFORMS: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        "tril",
        "triu",
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "flatten",
        "exp",
        "log",
        "sin",
        "cos",
        "sqrt",
        "outer",
        "meshgrid",
        "diag",
        "where",
        "clamp",
        "abs",
        "pow",
        "matmul",
        "einsum",
        "cumsum",
        "sum",
        "mean",
        "reshape",
        "unsqueeze",
        "squeeze",
        "transpose",
        "permute",
        "roll",
        "flip",
        "repeat_interleave",
        "polar",
        "complex",
        "logical_not",
        "masked_fill",
        "bmm",
        "mm",
        "add",
        "mul",
        "sub",
        "div",
        "maximum",
        "minimum",
        "max",
        "min",
        "argmax",
        "argmin",
        "softmax",
        "sigmoid",
        "tanh",
        "relu",
        "erf",
        "floor",
        "ceil",
        "round",
        "sign",
        "reciprocal",
        "rsqrt",
        "atan2",
        "gather",
        "index_select",
        "topk",
        "sort",
        "cdist",
        "dist",
        "norm",
        "lerp",
    )
)

# Tensor methods whose result lives on the same device as the receiver.
DEVICE_PRESERVING_METHODS: frozenset[str] = frozenset(
    {
        "abs",
        "add",
        "add_",
        "addmm",
        "all",
        "any",
        "argmax",
        "argmin",
        "argsort",
        "bmm",
        "bool",
        "byte",
        "ceil",
        "chunk",
        "clamp",
        "clamp_",
        "clamp_min",
        "clamp_max",
        "clip",
        "clone",
        "contiguous",
        "copy_",
        "cos",
        "cumsum",
        "detach",
        "detach_",
        "diag",
        "diagonal",
        "div",
        "div_",
        "double",
        "eq",
        "exp",
        "expand",
        "expand_as",
        "fill_",
        "flatten",
        "flip",
        "float",
        "floor",
        "gather",
        "ge",
        "gt",
        "half",
        "index_select",
        "int",
        "le",
        "log",
        "log_softmax",
        "long",
        "lt",
        "masked_fill",
        "masked_fill_",
        "matmul",
        "max",
        "mean",
        "min",
        "mm",
        "mul",
        "mul_",
        "ne",
        "neg",
        "norm",
        "normal_",
        "permute",
        "pow",
        "prod",
        "reciprocal",
        "relu",
        "repeat",
        "repeat_interleave",
        "reshape",
        "reshape_as",
        "round",
        "rsqrt",
        "scatter",
        "scatter_",
        "scatter_add",
        "scatter_add_",
        "sigmoid",
        "sign",
        "sin",
        "softmax",
        "sort",
        "split",
        "sqrt",
        "square",
        "squeeze",
        "std",
        "sub",
        "sub_",
        "sum",
        "t",
        "tanh",
        "to_dense",
        "topk",
        "transpose",
        "tril",
        "triu",
        "type_as",
        "uniform_",
        "unbind",
        "unflatten",
        "unsqueeze",
        "var",
        "view",
        "view_as",
        "zero_",
        "bfloat16",
        "requires_grad_",
        "roll",
        "masked_select",
        "nonzero",
        "cumprod",
        "logical_not",
        "logical_and",
        "logical_or",
        "where",
        "exp_",
        "log_",
        "sqrt_",
        "lerp",
        "addcmul",
        "addcdiv",
        "baddbmm",
        "einsum",
        "index_add",
        "index_add_",
        "index_fill",
        "index_fill_",
        "index_copy",
        "index_copy_",
        "masked_scatter",
        "narrow",
        "select",
        "unfold",
        "movedim",
        "swapaxes",
        "amax",
        "amin",
        "logsumexp",
        "nan_to_num",
        "floor_divide",
        "fmod",
        "remainder",
        "isnan",
        "isinf",
        "isfinite",
        "cpu_",
    }
)

# Tensor methods whose result is not a tensor (it carries no device).
NON_TENSOR_METHODS: frozenset[str] = frozenset(
    {
        "item",
        "tolist",
        "size",
        "dim",
        "numel",
        "ndimension",
        "nelement",
        "element_size",
        "get_device",
        "is_contiguous",
        "is_floating_point",
        "data_ptr",
        "stride",
        "storage_offset",
        "__len__",
        "numpy",
        "type",
    }
)

# Attributes of a tensor that are not tensors.
NON_TENSOR_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "shape",
        "dtype",
        "device",
        "ndim",
        "is_cuda",
        "requires_grad",
        "layout",
        "names",
        "is_leaf",
        "grad_fn",
        "itemsize",
        "nbytes",
    }
)

# Attributes of a tensor that are tensors on the same device.
DEVICE_PRESERVING_ATTRIBUTES: frozenset[str] = frozenset({"T", "mT", "H", "mH", "data", "real", "imag", "grad"})

# torch.nn classes that are *not* modules.
_NN_NON_MODULE_CLASSES: frozenset[str] = frozenset(
    {
        "torch.nn.Parameter",
        "torch.nn.UninitializedParameter",
        "torch.nn.UninitializedBuffer",
        "torch.nn.Buffer",
        "torch.nn.Module",
    }
)

# torch.nn modules that own parameters or buffers by default: building one of these
# puts state on the CPU.  Parameter-free modules (activations, pooling, dropout)
# are harmless wherever they are built, so they are deliberately absent.
STATEFUL_NN_MODULES: frozenset[str] = frozenset(
    f"torch.nn.{name}"
    for name in (
        "Linear",
        "Bilinear",
        "LazyLinear",
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "LazyConv1d",
        "LazyConv2d",
        "LazyConv3d",
        "BatchNorm1d",
        "BatchNorm2d",
        "BatchNorm3d",
        "SyncBatchNorm",
        "LazyBatchNorm1d",
        "LazyBatchNorm2d",
        "LazyBatchNorm3d",
        "GroupNorm",
        "LayerNorm",
        "RMSNorm",
        "Embedding",
        "EmbeddingBag",
        "RNN",
        "LSTM",
        "GRU",
        "RNNCell",
        "LSTMCell",
        "GRUCell",
        "MultiheadAttention",
        "Transformer",
        "TransformerEncoder",
        "TransformerDecoder",
        "TransformerEncoderLayer",
        "TransformerDecoderLayer",
        "PReLU",
    )
)

PARAMETER_CLASSES: frozenset[str] = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})

# Base classes (besides torch.nn.Module) whose subclasses are modules.
MODULE_BASES: frozenset[str] = frozenset(
    {
        "torch.nn.Module",
        "torch.nn.modules.module.Module",
        "torch.nn.modules.Module",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "lightning.pytorch.core.LightningModule",
        "lightning.pytorch.core.module.LightningModule",
        "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule",
        "pytorch_lightning.core.module.LightningModule",
        "torchmetrics.Metric",
        "torchmetrics.metric.Metric",
    }
)

LIGHTNING_MODULE_BASES: frozenset[str] = frozenset(n for n in MODULE_BASES if "ightning" in n)

_NN_CLASS = re.compile(r"torch\.nn\.(?:modules\.[\w.]+\.)?[A-Z]\w*$")


def is_nn_module_class(qualified: str) -> bool:
    """``torch.nn.Linear`` and friends: a capitalised name under ``torch.nn``."""
    if qualified in MODULE_BASES:
        return True
    if qualified in _NN_NON_MODULE_CLASSES:
        return False
    return bool(_NN_CLASS.match(qualified)) or qualified in (
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.DataParallel",
    )


DTYPE_NAMES: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        "float",
        "float16",
        "float32",
        "float64",
        "double",
        "half",
        "bfloat16",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "long",
        "uint8",
        "bool",
        "complex64",
        "complex128",
        "cfloat",
        "cdouble",
        "short",
        "float8_e4m3fn",
        "float8_e5m2",
    )
)


# Wrappers that move (scatter) CPU inputs to their devices themselves.
INPUT_SCATTERING_WRAPPERS: frozenset[str] = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
    }
)

# Operations that reject a 0-dim CPU tensor beside device tensors (most elementwise ops accept one).
SAME_DEVICE_EVEN_FOR_SCALARS: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "matmul",
        "mm",
        "bmm",
        "einsum",
        "gather",
        "index_select",
        "cdist",
        "outer",
        "take_along_dim",
        "searchsorted",
        "bucketize",
        "scatter",
        "scatter_add",
        "index_add",
        "index_copy",
        "masked_select",
    )
)


# torch.distributed collectives and which of their arguments are tensors they communicate:
# (positional indices, keyword names).  Object collectives (``*_object``) pickle on the host.
_COLLECTIVE_TENSORS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "all_reduce": ((0,), ("tensor",)),
    "broadcast": ((0,), ("tensor",)),
    "reduce": ((0,), ("tensor",)),
    "all_gather": ((1,), ("tensor",)),
    "all_gather_into_tensor": ((0, 1), ("output_tensor", "input_tensor")),
    "reduce_scatter": ((0,), ("output",)),
    "reduce_scatter_tensor": ((0, 1), ("output", "input")),
    "gather": ((0,), ("tensor",)),
    "scatter": ((0,), ("tensor",)),
    "all_to_all_single": ((0, 1), ("output", "input")),
    "send": ((0,), ("tensor",)),
    "recv": ((0,), ("tensor",)),
    "isend": ((0,), ("tensor",)),
    "irecv": ((0,), ("tensor",)),
}
DIST_COLLECTIVES: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    f"{module}.{name}": tensors
    for module in ("torch.distributed", "torch.distributed.distributed_c10d")
    for name, tensors in _COLLECTIVE_TENSORS.items()
}
