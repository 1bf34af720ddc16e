"""DeepSpeed configurations, from dict literals in code and from JSON files, as one small tree.

Both sources become the same :class:`ConfigObject` tree, where every value
keeps an *anchor*: the LibCST node it was written as (code), or its
``Position`` in the JSON text.  The DeepSpeed rules check the tree and report
on anchors, so a dict literal and a ``ds_config.json`` get the same findings
from the same code.

In code, a configuration is checked where it *reaches* a consumer in the same
function (or the same top-level script): passed as a literal, or through a
name bound once to a literal and never changed afterwards (no item
assignment, no ``.update()``):

- ``deepspeed.initialize(config=...)`` (also ``config_params=``),
- ``HfDeepSpeedConfig(...)`` (Hugging Face),
- ``TrainingArguments(deepspeed=...)`` and its subclasses' names,
- ``DeepSpeedStrategy(config=...)`` (Lightning, Fabric),
- ``DeepSpeedPlugin(hf_ds_config=...)`` (Accelerate).

The Hugging Face family (and Accelerate) resolves ``"auto"`` values; plain
DeepSpeed does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

import libcst as cst

from flake8_device.analysis import patterns
from flake8_device.walk import children

if TYPE_CHECKING:
    from flake8_device.analysis.facts import FileFacts


@dataclass(frozen=True)
class Position:
    """Where a JSON value starts: 1-based line, 0-based column (as violations count)."""

    line: int
    col: int


Anchor = Union[cst.CSTNode, Position]


class _Unknown:
    """A value that is not a literal (a variable, a call): never judged."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass
class ConfigValue:
    # str / int / float / bool / None, a ConfigObject, a list of ConfigValue, or UNKNOWN.
    value: object
    anchor: Anchor
    # The anchor of the key this value is stored under (None for list items and the root).
    key_anchor: Anchor | None = None
    # From JSON text: the value's ``[start, end)`` offsets (notebooks replace cell sources in place).
    start: int = -1
    end: int = -1

    @property
    def members(self) -> dict[str, ConfigValue]:
        return self.value.entries if isinstance(self.value, ConfigObject) else {}

    @property
    def items(self) -> list[ConfigValue]:
        return self.value if isinstance(self.value, list) else []


@dataclass
class ConfigObject:
    entries: dict[str, ConfigValue] = field(default_factory=dict)
    # May hold keys we cannot see (``**base``, a computed key): a missing key proves nothing.
    open: bool = False

    def get(self, key: str) -> ConfigValue | None:
        return self.entries.get(key)

    def object(self, key: str) -> ConfigObject | None:
        found = self.entries.get(key)
        return found.value if found is not None and isinstance(found.value, ConfigObject) else None

    def string(self, key: str) -> str | None:
        found = self.entries.get(key)
        return found.value if found is not None and isinstance(found.value, str) else None


def is_deepspeed_config(root: object) -> bool:
    """A DeepSpeed config is recognised by its ``zero_optimization`` section (all our checks live there)."""
    return isinstance(root, ConfigObject) and isinstance(root.object("zero_optimization"), ConfigObject)


def zero_stage(zero: ConfigObject) -> tuple[int | None, bool]:
    """The ZeRO stage as an int (``None`` when not a literal) and whether it was written at all."""
    found = zero.get("stage")
    if found is None:
        return (None if zero.open else 0), False
    value = found.value
    if isinstance(value, int) and not isinstance(value, bool):
        return value, True
    return None, True


# -- dict literals in code ---------------------------------------------------------------


def from_cst(node: cst.BaseExpression) -> ConfigValue:
    """The literal value of ``node``: dicts (and ``dict(k=v)`` calls), lists, strings, numbers, constants."""
    if isinstance(node, cst.Dict):
        result = ConfigObject()
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = patterns.string_value(element.key)
                if key is None:
                    result.open = True
                    continue
                value = from_cst(element.value)
                value.key_anchor = element.key
                result.entries[key] = value
            else:
                result.open = True  # ``**base``
        return ConfigValue(result, node)
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "dict"
        and all(a.keyword is not None or a.star == "**" for a in node.args)
    ):
        result = ConfigObject()
        for arg in node.args:
            if arg.keyword is None:
                result.open = True
                continue
            value = from_cst(arg.value)
            value.key_anchor = arg.keyword
            result.entries[arg.keyword.value] = value
        return ConfigValue(result, node)
    if isinstance(node, (cst.List, cst.Tuple)):
        return ConfigValue(
            [from_cst(e.value) if isinstance(e, cst.Element) else ConfigValue(UNKNOWN, e) for e in node.elements],
            node,
        )
    if isinstance(node, cst.SimpleString):
        text = patterns.string_value(node)
        return ConfigValue(text if text is not None else UNKNOWN, node)
    if isinstance(node, (cst.Integer, cst.Float)):
        return ConfigValue(node.evaluated_value, node)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = from_cst(node.expression)
        if isinstance(inner.value, (int, float)) and not isinstance(inner.value, bool):
            return ConfigValue(-inner.value, node)
        return ConfigValue(UNKNOWN, node)
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return ConfigValue({"True": True, "False": False, "None": None}[node.value], node)
    return ConfigValue(UNKNOWN, node)


@dataclass(frozen=True)
class DeepSpeedConfigUse:
    """A configuration that reaches a consumer: the tree, the consumer, and whether ``"auto"`` resolves."""

    config: ConfigObject
    consumer: str
    hugging_face: bool


# (qualified-name suffix, keyword, position of the argument when passed positionally, resolves "auto")
_CONSUMERS: tuple[tuple[str, tuple[str, ...], int | None, bool], ...] = (
    ("deepspeed.initialize", ("config", "config_params"), None, False),
    ("HfDeepSpeedConfig", ("config_file_or_dict",), 0, True),
    ("TrainingArguments", ("deepspeed",), None, True),
    ("DeepSpeedStrategy", ("config",), None, False),
    ("DeepSpeedPlugin", ("hf_ds_config",), None, True),
)


def _consumer(ctx: FileFacts, call: cst.Call) -> tuple[str, cst.BaseExpression, bool] | None:
    qualified = ctx.symbols.qualify(call.func)
    if qualified is None:
        return None
    written = patterns.last_name(call.func) or ""
    for suffix, keywords, position, hugging_face in _CONSUMERS:
        if not (qualified == suffix or qualified.endswith("." + suffix) or qualified.endswith(suffix)):
            continue
        if not written.endswith(suffix.rsplit(".", 1)[-1]):
            return None  # an alias: the rules' markers look for the name as written
        if suffix == "TrainingArguments" and not qualified.startswith(("transformers", "trl", "optimum")):
            continue
        for keyword in keywords:
            arg = patterns.keyword(call, keyword)
            if arg is not None:
                return qualified, arg.value, hugging_face
        if position is not None:
            arg = patterns.positional(call, position)
            if arg is not None:
                return qualified, arg.value, hugging_face
        return None
    return None


def configs_in_module(ctx: FileFacts) -> list[DeepSpeedConfigUse]:
    found: list[DeepSpeedConfigUse] = []
    seen: set[int] = set()
    # (node, enclosing scope) pairs: the scope is the function, or the module for script code.
    stack: list[tuple[cst.CSTNode, cst.CSTNode]] = [(child, ctx.module) for child in children(ctx.module)]
    while stack:
        node, scope = stack.pop()
        inner_scope = node if isinstance(node, cst.FunctionDef) else scope
        if isinstance(node, cst.Call):
            consumer = _consumer(ctx, node)
            if consumer is not None:
                qualified, argument, hugging_face = consumer
                if isinstance(argument, cst.Name):
                    bound = patterns.single_binding(scope, argument.value)
                    argument = bound if bound is not None else argument
                value = from_cst(argument)
                if isinstance(value.value, ConfigObject) and id(argument) not in seen:
                    seen.add(id(argument))
                    found.append(DeepSpeedConfigUse(value.value, qualified, hugging_face))
        stack.extend((child, inner_scope) for child in children(node))
    return found
