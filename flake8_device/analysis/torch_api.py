"""What the linter knows about PyTorch's API, as plain data (torch is never imported).

Names are fully qualified (``torch.nn.Linear``); :mod:`.symbols` turns the
names written in a file into these.
"""

from __future__ import annotations

import re

# Factories that turn data into a tensor: a tensor given stays on its device (``torch.as_tensor``
# returns it as it is, ``torch.tensor`` copies it there).
DATA_CONVERSIONS: frozenset[str] = frozenset({"torch.as_tensor", "torch.tensor"})

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

# torch functions of tensors that return something else than a tensor where their inputs are.
NON_TENSOR_FUNCTIONS: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        "is_tensor",
        "is_storage",
        "is_floating_point",
        "is_complex",
        "is_nonzero",
        "is_same_size",
        "numel",
        "equal",
        "allclose",
        "save",
        "load",
        "manual_seed",
        "get_rng_state",
        "set_rng_state",
        "result_type",
        "promote_types",
        "can_cast",
        "broadcast_shapes",
        "set_printoptions",
        "nn.utils.clip_grad_norm_",
        "nn.utils.clip_grad_value_",
        "nn.init.calculate_gain",
        "autograd.grad",
        "autograd.backward",
    )
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

# Layers without parameters or buffers of their own: they run wherever their input is.
STATELESS_NN_MODULES: frozenset[str] = frozenset(
    f"torch.nn.{name}"
    for name in (
        "ReLU",
        "ReLU6",
        "LeakyReLU",
        "GELU",
        "SiLU",
        "Mish",
        "ELU",
        "SELU",
        "CELU",
        "Sigmoid",
        "Tanh",
        "Softplus",
        "Softsign",
        "Hardtanh",
        "Hardswish",
        "Hardsigmoid",
        "LogSigmoid",
        "Tanhshrink",
        "Softshrink",
        "Hardshrink",
        "Threshold",
        "GLU",
        "Softmax",
        "LogSoftmax",
        "Softmax2d",
        "Softmin",
        "Dropout",
        "Dropout1d",
        "Dropout2d",
        "Dropout3d",
        "AlphaDropout",
        "FeatureAlphaDropout",
        "Identity",
        "Flatten",
        "Unflatten",
        "MaxPool1d",
        "MaxPool2d",
        "MaxPool3d",
        "AvgPool1d",
        "AvgPool2d",
        "AvgPool3d",
        "AdaptiveAvgPool1d",
        "AdaptiveAvgPool2d",
        "AdaptiveAvgPool3d",
        "AdaptiveMaxPool1d",
        "AdaptiveMaxPool2d",
        "AdaptiveMaxPool3d",
        "LPPool1d",
        "LPPool2d",
        "Upsample",
        "UpsamplingNearest2d",
        "UpsamplingBilinear2d",
        "PixelShuffle",
        "PixelUnshuffle",
        "ChannelShuffle",
        "ZeroPad1d",
        "ZeroPad2d",
        "ZeroPad3d",
        "ConstantPad1d",
        "ConstantPad2d",
        "ConstantPad3d",
        "ReflectionPad1d",
        "ReflectionPad2d",
        "ReflectionPad3d",
        "ReplicationPad1d",
        "ReplicationPad2d",
        "ReplicationPad3d",
        "CosineSimilarity",
        "PairwiseDistance",
        "Fold",
        "Unfold",
    )
)

# NumPy functions that convert their first argument (a tensor, or a list of tensors) to an array,
# which fails for a tensor on an accelerator; and reductions that do so for a list only (given one
# tensor, ``np.sum(t)`` calls the tensor's own ``sum`` instead).
NUMPY_CONVERSIONS: frozenset[str] = frozenset(
    f"numpy.{name}"
    for name in (
        "array asarray asanyarray ascontiguousarray concatenate stack vstack hstack dstack column_stack "
        "percentile quantile median unique exp log abs sqrt isnan isfinite clip round"
    ).split()
)
NUMPY_LIST_REDUCTIONS: frozenset[str] = frozenset(
    f"numpy.{name}" for name in ("sum", "mean", "max", "min", "std", "var", "average", "prod")
)
# Annotations that say one tensor (``x: torch.Tensor``).
TENSOR_TYPES: frozenset[str] = frozenset(
    {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor", "torch.nn.Parameter"}
)
PARAMETER_CLASSES: frozenset[str] = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
BUFFER_CLASSES: frozenset[str] = frozenset({"torch.nn.Buffer", "torch.nn.parameter.Buffer"})

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

# ``torch.cat`` and its kin: they join the tensors of one list.
_JOINING = ("cat", "concat", "concatenate", "stack", "hstack", "vstack")

# Tensor methods that reduce: ``t.sum()`` is 0-dim, and so is ``t.sum(0)`` of a 1-D ``t``.
REDUCTION_METHODS: frozenset[str] = frozenset(
    ("sum", "mean", "max", "min", "prod", "norm", "std", "var", "all", "any", "amax", "amin")
)

# Reductions that, given only a tensor (``torch.max(t)``: no dimension), give a 0-dim tensor.
FULL_REDUCTIONS: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        *REDUCTION_METHODS, "median", "nanmean", "nansum", "argmax", "argmin", "logsumexp", "count_nonzero",
    )
)  # fmt: skip

# Functions that combine the tensors of one list or tuple argument with each other
# (``torch.cat(parts)``): the elements of a container they are given meet.
SEQUENCE_JOINS: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        *_JOINING,
        "dstack",
        "column_stack",
        "row_stack",
        "block_diag",
        "broadcast_tensors",
        "cartesian_prod",
        "einsum",
    )
)

# Operations that reject a 0-dim CPU tensor beside device tensors (most elementwise ops accept one).
SAME_DEVICE_EVEN_FOR_SCALARS: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        *_JOINING,
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


# -- optimizers, generators, metrics and indices (DEV3xx) ------------------------------------------

# Optimizers that build their state in ``__init__`` (on the parameters' device at that moment);
# the others build it lazily at the first ``step()``, wherever the parameters are then.
EAGER_STATE_OPTIMIZERS: frozenset[str] = frozenset({"torch.optim.Adagrad", "torch.optim.adagrad.Adagrad"})

_OPTIMIZER_CLASS = re.compile(r"torch\.optim\.(?:[a-z_]+\.)?[A-Z]\w*$")
_NOT_OPTIMIZERS = ("torch.optim.lr_scheduler.", "torch.optim.swa_utils.", "torch.optim.Optimizer")


def is_optimizer_class(qualified: str) -> bool:
    """``torch.optim.Adam`` and friends (not schedulers, not SWA helpers, not the base class)."""
    return bool(_OPTIMIZER_CLASS.match(qualified)) and not qualified.startswith(_NOT_OPTIMIZERS)


GENERATOR_CLASSES: frozenset[str] = frozenset({"torch.Generator", "torch._C.Generator"})

# Random functions whose result follows their first tensor argument (``torch.bernoulli(p)``) and
# in-place initialisers of their first argument (``nn.init.normal_(w)``): a ``generator=`` must be
# on that tensor's device.
RANDOM_FOLLOWING_INPUT: frozenset[str] = frozenset(
    {"torch.bernoulli", "torch.multinomial", "torch.poisson", "torch.normal", "torch.rand_like", "torch.randn_like"}
    | {
        f"torch.nn.init.{name}"
        for name in (
            "uniform_",
            "normal_",
            "trunc_normal_",
            "xavier_uniform_",
            "xavier_normal_",
            "kaiming_uniform_",
            "kaiming_normal_",
            "orthogonal_",
            "sparse_",
        )
    }
)

# Tensor methods drawing random numbers in place (or from the receiver): the generator must be on
# the receiver's device.
RANDOM_METHODS: frozenset[str] = frozenset(
    {
        "normal_",
        "uniform_",
        "random_",
        "bernoulli",
        "bernoulli_",
        "exponential_",
        "geometric_",
        "log_normal_",
        "cauchy_",
        "multinomial",
    }
)

# Data utilities that draw with their generator on the CPU (``torch.randperm(n, generator=g)``
# without ``device=``): a generator on an accelerator fails there.
HOST_GENERATOR_CONSUMERS: frozenset[str] = frozenset(
    {
        "torch.utils.data.DataLoader",
        "torch.utils.data.dataloader.DataLoader",
        "torch.utils.data.random_split",
        "torch.utils.data.dataset.random_split",
        "torch.utils.data.RandomSampler",
        "torch.utils.data.sampler.RandomSampler",
        "torch.utils.data.SubsetRandomSampler",
        "torch.utils.data.sampler.SubsetRandomSampler",
        "torch.utils.data.WeightedRandomSampler",
        "torch.utils.data.sampler.WeightedRandomSampler",
    }
)

DEFAULT_DEVICE_SETTERS: frozenset[str] = frozenset({"torch.set_default_device", "torch.set_default_tensor_type"})

# Arguments a function takes wherever they are, whatever the device of the others: the CTC loss
# moves its targets to the device of ``log_probs`` itself and reads its lengths on the host (cuDNN
# wants all three there); a count or size given as a 0-dim tensor is read as a number
# (``torch.multinomial(weights, n)``).  Function (or loss class) -> (position, keyword) of each.
CTC_ANY_DEVICE_ARGUMENTS: tuple[tuple[int, str], ...] = (
    (1, "targets"),
    (2, "input_lengths"),
    (3, "target_lengths"),
)
ANY_DEVICE_ARGUMENTS: dict[str, tuple[tuple[int, str], ...]] = {
    "torch.nn.functional.ctc_loss": CTC_ANY_DEVICE_ARGUMENTS,
    "torch.ctc_loss": CTC_ANY_DEVICE_ARGUMENTS,
    "torch.nn.CTCLoss": CTC_ANY_DEVICE_ARGUMENTS,
    "torch.multinomial": ((1, "num_samples"),),
    "torch.topk": ((1, "k"),),
    "torch.kthvalue": ((1, "k"),),
    "torch.narrow": ((2, "start"), (3, "length")),
}

# Index arguments: function -> (position of the indexed tensor, position and keyword of the index).
# Unlike subscripts (where a device tensor may take host indices), these need both on one device.
INDEX_FUNCTIONS: dict[str, tuple[int, int, str]] = {
    "torch.gather": (0, 2, "index"),
    "torch.index_select": (0, 2, "index"),
    "torch.take_along_dim": (0, 1, "indices"),
    "torch.take": (0, 1, "index"),
    "torch.index_add": (0, 2, "index"),
    "torch.index_copy": (0, 2, "index"),
    "torch.index_fill": (0, 2, "index"),
    "torch.scatter": (0, 2, "index"),
    "torch.scatter_add": (0, 2, "index"),
    "torch.scatter_reduce": (0, 2, "index"),
}

# Index arguments of tensor methods: method -> (position, keyword) of the index.
INDEX_METHODS: dict[str, tuple[int, str]] = {
    "gather": (1, "index"),
    "index_select": (1, "index"),
    "take_along_dim": (0, "indices"),
    "take": (0, "index"),
    **{
        name: (1, "index")
        for name in (
            "index_add",
            "index_add_",
            "index_copy",
            "index_copy_",
            "index_fill",
            "index_fill_",
            "scatter",
            "scatter_",
            "scatter_add",
            "scatter_add_",
            "scatter_reduce",
            "scatter_reduce_",
        )
    },
}

# torchmetrics metrics whose default state is tensors (created on the CPU, summed in place by
# ``update``), named without their ``Binary``/``Multiclass``/``Multilabel`` prefix.  Metrics that
# keep Python lists (``AUROC``, ``AveragePrecision``, curves, retrieval, detection, clustering) take
# device tensors without complaint, so they are deliberately absent.
TENSOR_STATE_METRICS: frozenset[str] = frozenset(
    {
        "Accuracy",
        "Precision",
        "Recall",
        "F1Score",
        "FBetaScore",
        "ConfusionMatrix",
        "StatScores",
        "JaccardIndex",
        "Specificity",
        "HammingDistance",
        "ExactMatch",
        "CohenKappa",
        "MatthewsCorrCoef",
        "NegativePredictiveValue",
        "MeanSquaredError",
        "MeanAbsoluteError",
        "MeanAbsolutePercentageError",
        "SymmetricMeanAbsolutePercentageError",
        "WeightedMeanAbsolutePercentageError",
        "MeanSquaredLogError",
        "NormalizedRootMeanSquaredError",
        "R2Score",
        "ExplainedVariance",
        "PearsonCorrCoef",
        "ConcordanceCorrCoef",
        "LogCoshError",
        "TweedieDevianceScore",
        "MeanMetric",
        "SumMetric",
        "MaxMetric",
        "MinMetric",
        "PeakSignalNoiseRatio",
        "StructuralSimilarityIndexMeasure",
        "CharErrorRate",
        "WordErrorRate",
        "MatchErrorRate",
        "WordInfoLost",
        "WordInfoPreserved",
        "Perplexity",
        "KLDivergence",
        "HingeLoss",
    }
)

# Keywords that switch a metric to list states (``multidim_average="samplewise"``, ``dim=...``).
LIST_STATE_METRIC_KEYWORDS: tuple[str, ...] = (
    "multidim_average",
    "dim",
    "reduction",
    "return_full_image",
    "compute_on_cpu",
)

_METRIC_TASK_PREFIX = re.compile(r"^(?:Binary|Multiclass|Multilabel)(?=[A-Z])")


def is_tensor_state_metric(qualified: str) -> bool:
    if not qualified.startswith("torchmetrics."):
        return False
    name = qualified.rsplit(".", 1)[-1]
    return _METRIC_TASK_PREFIX.sub("", name) in TENSOR_STATE_METRICS
