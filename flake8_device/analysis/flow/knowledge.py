"""Names and shapes the interpreter recognises (loaders, losses, devices, tensor-only attributes)."""

from __future__ import annotations

import re

LOADER_NAME = re.compile(r"(?:^|_)(?:data_?)?loader$|^dl$|_dl$", re.I)
LOSS_NAME = re.compile(
    r"(?:^|_)(?:criterion|loss_fn|loss_func|lossfn|loss_function|loss_fcn|loss_fct)$|(?:^|_)criterion", re.I
)
METRIC_NAME = re.compile(r"metric", re.I)
CTC_NAME = re.compile(r"(?:^|_)ctc(?:_?loss|_criterion)?$|^CTCLoss$", re.I)
OPTIMIZER_NAME = re.compile(r"optim|^opt$", re.I)
# A function that builds a loss (``get_loss``, ``build_criterion``, ``make_loss_fn``).
LOSS_FACTORY_NAME = re.compile(r"^(?:get|build|make|create|init)_?(?:loss|criterion)", re.I)
# A function that restores a checkpoint into what it is given (``restore_epoch(dir, model, optimizer)``).
RESTORE_NAME = re.compile(r"load|restore|resume", re.I)
# ``Value.constant`` of an optimizer class passed around as a value (``optimizer_fn=torch.optim.Adagrad``).
OPTIMIZER_CLASS_PREFIX = "optimizer class:"
# The names of torch.optim's optimizer classes (a cheap test before resolving a name).
OPTIMIZER_CLASS_NAMES = frozenset(
    {"Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "ASGD", "LBFGS", "NAdam", "RAdam"}
    | {"RMSprop", "Rprop", "SGD", "SparseAdam"}
)
# A name that holds a loss when it holds a module (``reg_loss``; as a tensor it is a loss value).
LOSS_MODULE_NAME = re.compile(r"(?:^|_)loss$|Loss$")
TRANSFORM_NAME = re.compile(r"(?:device|gpu|cuda|batch)_?(?:transforms?|augs?|augmentations?)$", re.I)
DEVICE_NAME = re.compile(r"(?:^|_|\.)(?:device|dev|devices|rank|local_rank|gpu|gpu_id|gpus|cuda)$", re.I)
DTYPE_NAME = re.compile(r"dtype$", re.I)
# Objects whose ``.device`` is a configured device, not a tensor's.
CONFIG_OWNER = re.compile(
    r"(?:^|\.)(?:args|cfg|config|conf|opt|opts|options|hparams|hp|params|accelerator|trainer|fabric|"
    r"settings|training_args|runner|engine|state)$"
)
# Parameters named for a model: its ``.device`` and ``.dtype`` (a Hugging Face or diffusers model's)
# are no evidence of a tensor.
MODULE_OWNER = re.compile(r"(?:^|_)(?:module|model|net|network|unet|vae|pipe|pipeline)$", re.I)
# Data-loading code (a collator, a dataset, a sampler: named so, or its class or that class's
# bases are): it runs in the loader's workers, on host tensors.
DATA_LOADING_CODE = re.compile(r"[Cc]ollat|Dataset|Sampler|DataLoader|__getitem__")
# A docstring saying the tensors are on the host ("float64 host points", "CPU tensors").
HOST_WORDS = re.compile(r"\b(?:host|CPU|cpu)\b")
TRANSFORM_MODULES = ("kornia.augmentation", "torchvision.transforms.v2", "kornia.enhance", "kornia.color")
MODULE_FACTORIES = re.compile(
    r"^(?:timm\.create_model|torchvision\.models\.\w+|torch\.hub\.load|.*\.from_pretrained|"
    r"transformers\.AutoModel\w*\.from_pretrained)$"
)
PASS_THROUGH_CALLS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter"})
# Argument names whose presence means the module itself places its weights.
PLACEMENT_KEYWORDS = ("device", "device_map")
ACCELERATOR_WORDS = ("cuda", "mps", "xpu", "npu", "hpu", "xla", "mlu", "meta")


def names_cpu(literal: str | None) -> bool:
    """A device string naming the CPU: ``"cpu"``, ``"cpu:0"``."""
    return literal is not None and literal.split(":")[0] == "cpu"


def names_accelerator(literal: str | None) -> bool:
    """A device string naming an accelerator: ``"cuda"``, ``"cuda:1"``, ``"mps"``."""
    return literal is not None and literal.split(":")[0] in ACCELERATOR_WORDS


# Attributes only tensors have (modules also have `.to`, `.cuda`, `.float`, `.half`: not evidence).
TENSOR_EVIDENCE = frozenset(
    {
        "size",
        "device",
        "view",
        "permute",
        "unsqueeze",
        "squeeze",
        "contiguous",
        "masked_fill",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
        "new_tensor",
        "dim",
        "numel",
        "type_as",
        "expand",
        "expand_as",
        "bmm",
        "matmul",
        "is_cuda",
        "detach",
        "softmax",
        "log_softmax",
        "chunk",
        "flatten",
        "masked_select",
        "clone",
        "long",
        "bool",
        "index_select",
        "gather",
        "scatter",
        "scatter_",
        "scatter_add",
        "masked_fill_",
        "narrow",
        "unbind",
        "requires_grad_",
        "backward",
        "is_floating_point",
    }
)
MODULE_TENSOR_EVIDENCE = TENSOR_EVIDENCE | {"shape", "ndim", "dtype"}
ATTACH_METHODS = frozenset({"add_module", "register_module", "register_parameter", "register_buffer"})
LIST_ATTACH_METHODS = frozenset({"append", "insert"})
# Tensor methods whose tensor arguments may live on another device: they read across devices
# (``dst.copy_(src)``), or take sizes and dimensions only, or another tensor's shape
# (``x.expand(n, h)`` with ``h`` a 0-dim tensor, ``x.view_as(other)``).
SHAPE_ARGUMENT_METHODS = frozenset(
    {
        "expand",
        "expand_as",
        "view",
        "view_as",
        "reshape",
        "reshape_as",
        "repeat",
        "tile",
        "permute",
        "narrow",
        "unflatten",
        "flatten",
        "transpose",
        "movedim",
        "unsqueeze",
        "squeeze",
        "roll",
        "flip",
        "split",
        "chunk",
    }
)
CROSS_DEVICE_METHODS = frozenset({"copy_", "to", "type_as", "set_"}) | SHAPE_ARGUMENT_METHODS
NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad"})
