"""Text markers shared by rules: regular expressions whose presence is necessary for a finding.

Only the first marker of a rule is scanned over a whole file (see :mod:`.units`), so
rules lead with the cheapest, rarest one; Python's ``re`` is fast on patterns that
start with a literal and slow on alternations behind ``\\b``, so markers avoid the
latter where a little over-matching is harmless.  ``{moves}`` stands for the
configured move-helper names (``batch_to_device`` and friends).
"""

from __future__ import annotations

from flake8_device.analysis import torch_api

_FACTORY_NAMES = "|".join(sorted({q.rsplit(".", 1)[1] for q in torch_api.TENSOR_FACTORIES}))
_STATEFUL_NAMES = "|".join(sorted({q.rsplit(".", 1)[1] for q in torch_api.STATEFUL_NN_MODULES}))

_TRANSFORM_NAMES = "|".join(sorted({q.rsplit(".", 1)[1] for q in torch_api.TENSOR_TRANSFORMS}))

# Any torch tensor factory call.
FACTORY_CALL = rf"(?:{_FACTORY_NAMES})\s*\("
# `self.x = <a tensor built from factories>`: the value starts (after signs, numbers and
# parentheses) with a factory or a torch function of tensors (`torch.tril(torch.ones(...))`).
ATTRIBUTE_SET_TO_TENSOR = (
    rf"\.\w+\s*(?::[^=\n]+)?=\s*[-+*/().\d\s]*(?:[A-Za-z_]\w*\.)*(?:{_FACTORY_NAMES}|{_TRANSFORM_NAMES})\s*\("
)
# `self.x = [nn.Linear(...), ...]`, `= (Block() for ...)`, `= {"a": nn.Linear()}`, `= list(...)`: a
# container whose first element is a call; ..._OF_MODULES: a call building a module or a
# parameter (all elements must), spelled with the file's vocabulary.
_CONTAINER = r"\.\w+\s*(?::[^=\n]+)?=\s*(?:(?:[\[(]|list\s*\(|tuple\s*\(){first}|\{{[^:{{}}]*:{first})"
ATTRIBUTE_SET_TO_CONTAINER = _CONTAINER.format(first=r"(?:\s|#[^\n]*)*[\w.]+\s*\(")
ATTRIBUTE_SET_TO_CONTAINER_OF_MODULES = _CONTAINER.format(first=r"(?:\s|#[^\n]*)*(?:{modules}|[\w.]*Parameter\s*\()")
# A factory call, spelled as this file can spell one (`torch.zeros(`, `th.ones(`, `zeros(`):
# filled in per file (see Symbols.vocabulary); a literal start makes it fast to scan for.
FILE_FACTORY_CALL = "{factories}"
# A factory call whose first parenthesis group has no `device=`: nested parentheses stop the
# look-ahead early, so a call without `device=` always matches (the marker stays necessary).
HOST_FACTORY_CALL = r"{factories}(?![^()]*\bdevice\s*=)"
STATEFUL_LAYER_CALL = rf"(?:{_STATEFUL_NAMES})\s*\("

# Something that puts a value on an accelerator: a move, a `device=` other than another
# tensor's `.device` (or a `device=None` default in a signature), a `device_map=`, or a move helper.
ACCELERATOR_SOURCE = r"\.(?:to|cuda)\s*\(|device(?:_map)?\s*=\s*(?![\w.]*\.device\b|None\b)|(?:{moves})\s*\("
# Something that is certainly on the host: `.cpu()`, a factory without `device=` (or with
# `device="cpu"`), a data loader, `.to("cpu")`.
HOST_SOURCE = rf"\.cpu\s*\(|{HOST_FACTORY_CALL}|device\s*=\s*[\"']cpu|[Ll]oader|LOADER|dl\b|\.to\s*\(\s*[\"']cpu"
# A call building an `nn.Module` (which may never be moved): filled in per file from its imports
# and classes (see Symbols.vocabulary).
MODULE_CONSTRUCTOR_CALL = "{modules}"
# Either side of a meeting between the host and the accelerator (scanned first, over the file).
MEETING_SIDE = rf"{ACCELERATOR_SOURCE}|{HOST_SOURCE}|{MODULE_CONSTRUCTOR_CALL}"
# A move written as a statement or anywhere.
MOVE_CALL = r"\.(?:to|cuda)\s*\("
LOADER = r"[Ll]oader|LOADER|dl\b"
