"""Device conditions and device choices: ``if args.cuda:``, ``"cuda" if use_gpu else "cpu"``.

The interpreter remembers names bound to a condition that chooses a device, and values placed on
the accelerator exactly when such a condition holds (``Kind.CONDITIONAL``), so that a model and its
inputs chosen under different conditions can be told apart from ones chosen together.
"""

from __future__ import annotations

import re

import libcst as cst

from flake8_device.analysis import patterns
from flake8_device.analysis.flow.base import InterpreterBase
from flake8_device.analysis.flow.knowledge import ACCELERATOR_WORDS, DEVICE_NAME, names_accelerator, names_cpu
from flake8_device.analysis.flow.state import State
from flake8_device.analysis.flow.syntax import last_name, path_of
from flake8_device.analysis.flow.values import ALWAYS, Kind, Value, movable_pair, negate
from flake8_device.analysis.symbols import dotted_name

# A condition that chooses a device names one (``args.cuda``, ``use_gpu``, ``device.type == "cpu"``);
# other conditions are not device choices.  ("device" alone is not enough: it is in every `.to(device)`,
# and the DEV306 marker built from these words would select nearly every unit.)
# Spelled out in three cases rather than with `re.I`, which makes `re` several times slower.
DEVICE_CONDITION_WORDS = "|".join(
    spelling
    for word in ("cuda", "gpu", "cpu", "mps", "xpu", "npu", "accel")
    for spelling in (word, word.upper(), word.capitalize())
)
DEVICE_CONDITION = re.compile(DEVICE_CONDITION_WORDS)


def condition_shaped(node: cst.BaseExpression) -> bool:
    """A flag: ``a and b``, ``not a``, ``args.cuda``, ``torch.cuda.is_available()``, ``x == "cuda"``."""
    if isinstance(node, (cst.BooleanOperation, cst.Name, cst.Attribute)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    if isinstance(node, cst.Comparison):
        # Comparing with a string (`args.device == "cuda"`); tensor comparisons are not flags.
        return any(patterns.is_string(c.comparator) for c in node.comparisons) or patterns.is_string(node.left)
    return isinstance(node, cst.Call) and (dotted_name(node.func) or "").endswith("is_available")


# A flag or attribute whose truth means the CPU (``args.cpu``, ``no_cuda``, ``force_cpu``); other
# device words (``use_gpu``, ``args.cuda``) mean an accelerator.
_CPU_FLAG = re.compile(r"cpu|(?:^|_)(?:no|disable|without)_?(?:cuda|gpu|accel\w*|mps)$", re.I)
_ACCELERATOR_FLAG = re.compile(r"cuda|gpu|mps|xpu|npu|accel", re.I)
_AVAILABILITY_CALL = re.compile(r"(?:^|\.)(?:is_available|is_built)$")


def _flag_polarity(name: str) -> bool | None:
    """True when a flag named ``name`` being true means the CPU, False when it means an accelerator."""
    last = name.rsplit(".", 1)[-1]
    if _CPU_FLAG.search(last):
        return True
    if _ACCELERATOR_FLAG.search(last):
        return False
    return None


class ConditionsMixin(InterpreterBase):
    def _cpu_when(self, test: cst.BaseExpression) -> bool | None:
        """Whether a test holding means the code runs on the CPU only (True), or that it may run on an
        accelerator and its failing means the CPU only (False); None when the test says neither.

        ``if device.type == "cpu":``, ``if not torch.cuda.is_available():``, ``if args.cpu:`` guard
        CPU-only code; ``if use_cuda:`` and ``if torch.cuda.is_available():`` guard the accelerator,
        and their ``else`` is CPU-only.  Such paths never make an accelerator finding.
        """
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._cpu_when(test.expression)
            return None if inner is None else not inner
        if isinstance(test, cst.BooleanOperation):
            parts = [self._cpu_when(test.left), self._cpu_when(test.right)]
            if isinstance(test.operator, cst.And):
                # Both must hold: one meaning the CPU suffices; failing means the CPU if each part
                # failing does (``use_cuda and torch.cuda.is_available()``).
                if True in parts:
                    return True
                return False if parts == [False, False] or (False in parts and None in parts) else None
            if parts == [True, True]:
                return True
            return False if parts == [False, False] else None
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            return self._compared_device(test)
        if isinstance(test, cst.Call):
            name = dotted_name(test.func) or ""
            return False if _AVAILABILITY_CALL.search(name) and _ACCELERATOR_FLAG.search(name) else None
        path = path_of(test)
        if path is None:
            return None
        if path in self.state.polarity:
            return self.state.polarity[path]
        if path.endswith(".is_cuda"):
            return False
        if path.endswith(".is_cpu"):
            return True
        return _flag_polarity(path)

    @staticmethod
    def _compared_device(test: cst.Comparison) -> bool | None:
        """``device.type == "cpu"`` means the CPU; ``!= "cpu"``, ``== "cuda"`` an accelerator; so does a
        device given (``args.device is not None``), where none given means the CPU."""
        target = test.comparisons[0]
        if isinstance(target.comparator, cst.Name) and target.comparator.value == "None":
            compared = path_of(test.left)
            if compared is None or not DEVICE_NAME.search(compared):
                return None
            if isinstance(target.operator, cst.IsNot):
                return False
            return True if isinstance(target.operator, cst.Is) else None
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)):
            return None
        literal = next(
            (patterns.string_value(s) for s in (test.left, target.comparator) if patterns.string_value(s) is not None),
            None,
        )
        if literal is None:
            return None
        equal = isinstance(target.operator, (cst.Equal, cst.Is))
        kind = literal.split(":")[0]
        if kind == "cpu":
            return equal
        if kind in ACCELERATOR_WORDS and equal:
            return False
        return None

    def _bind_condition(self, path: str, value_node: cst.BaseExpression, value: Value) -> None:
        """Remember names bound to device conditions (``use_cuda = ...``) and device choices."""
        conditions = self.state.conditions
        # Cheap shape checks first: this runs for every assignment.
        if isinstance(value_node, (cst.Integer, cst.Float)) or (
            isinstance(value_node, cst.Call) and last_name(value_node.func) not in ("device", "is_available")
        ):
            conditions.pop(path, None)
            return
        choice = self._device_choice(value_node)
        if choice is not None:
            conditions[path] = (True, choice)
            return
        if value.kind in (Kind.UNKNOWN, Kind.NEUTRAL) and value.module is not True and condition_shaped(value_node):
            polarity = self._cpu_when(value_node)
            if polarity is None:
                self.state.polarity.pop(path, None)
            else:
                self.state.polarity[path] = polarity
            text = self._canonical(value_node, conditions)
            if DEVICE_CONDITION.search(text):
                conditions[path] = (False, text)
                return
        conditions.pop(path, None)

    def _canonical(self, node: cst.BaseExpression, conditions: dict[str, tuple[bool, str]]) -> str:
        """A condition as comparable text, with names bound to conditions replaced by them."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return negate(self._canonical(node.expression, conditions))
        if isinstance(node, cst.BooleanOperation):
            operator = "and" if isinstance(node.operator, cst.And) else "or"
            left = self._canonical(node.left, conditions)
            right = self._canonical(node.right, conditions)
            return f"({left}) {operator} ({right})"
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            compared = self._device_comparison(node, conditions)
            if compared is not None:
                return compared
        path = path_of(node)
        if path is not None:
            entry = conditions.get(path)
            return entry[1] if entry is not None and not entry[0] else path
        return " ".join(self.ctx.code_for(node).split())

    def _device_comparison(self, node: cst.Comparison, conditions: dict[str, tuple[bool, str]]) -> str | None:
        """``device.type == "cuda"``, ``str(device) != "cpu"``: the condition of ``device``'s choice."""
        target = node.comparisons[0]
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return None
        sides = (node.left, target.comparator)
        literal = next((patterns.string_value(s) for s in sides if patterns.string_value(s) is not None), None)
        other = next((s for s in sides if patterns.string_value(s) is None), None)
        if literal is None or other is None:
            return None
        if isinstance(other, cst.Attribute) and other.attr.value == "type":
            other = other.value
        elif isinstance(other, cst.Call) and dotted_name(other.func) == "str" and len(other.args) == 1:
            other = other.args[0].value
        path = path_of(other)
        entry = conditions.get(path or "")
        if entry is None or not entry[0]:
            return None
        kind = literal.split(":")[0]
        if kind not in ("cpu", *ACCELERATOR_WORDS):
            return None
        accelerator_when_equal = kind != "cpu"
        equal = isinstance(target.operator, cst.Equal)
        return entry[1] if accelerator_when_equal == equal else negate(entry[1])

    def _condition_text(
        self,
        test: cst.BaseExpression,
        after_if: cst.BaseParenthesizableWhitespace,
        conditions: dict[str, tuple[bool, str]],
    ) -> str | None:
        """The canonical text of a test that chooses a device, or None.

        The test must name a device on the line of its ``if`` (``if args.cuda:``, ``"cuda" if
        use_gpu else "cpu"``): that is what the DEV306 marker looks for, so the marker stays a
        necessary condition.  Names are then resolved (``use_cuda`` -> ``not args.no_cuda and ...``).
        """
        if isinstance(after_if, cst.ParenthesizedWhitespace):
            return None  # `if` and its test on different lines
        first_line = self.ctx.module.code_for_node(test).split("\n", 1)[0]
        if not DEVICE_CONDITION.search(first_line):
            return None
        return self._canonical(test, conditions)

    def _device_choice(self, node: cst.BaseExpression) -> str | None:
        """The condition under which a device expression is an accelerator (ALWAYS for a literal one)."""
        literal = patterns.string_value(node)
        if literal is not None:
            return ALWAYS if names_accelerator(literal) else None
        if isinstance(node, cst.Integer):
            return ALWAYS
        if isinstance(node, cst.Call) and self.symbols.qualify(node.func) == "torch.device":
            first = patterns.positional(node, 0)
            return self._device_choice(first.value) if first is not None else None
        if isinstance(node, cst.IfExp):
            test = self._condition_text(node.test, node.whitespace_after_if, self.state.conditions)
            if test is None:
                return None
            if self._is_accelerator_expression(node.body) and self._is_cpu_expression(node.orelse):
                return test
            if self._is_cpu_expression(node.body) and self._is_accelerator_expression(node.orelse):
                return negate(test)
            return None
        entry = self.state.conditions.get(path_of(node) or "")
        return entry[1] if entry is not None and entry[0] else None

    def _is_accelerator_expression(self, node: cst.BaseExpression) -> bool:
        if self._device_choice(node) == ALWAYS:
            return True
        # `device if args.cuda else "cpu"`: a device variable from elsewhere is the accelerator.
        name = dotted_name(node)
        bound = self.state.env.get(name or "")
        return (
            name is not None
            and bool(DEVICE_NAME.search(name))
            and (name not in self.state.conditions)
            and (bound is None or bound.constant is None)
        )

    def _is_cpu_expression(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call) and self.symbols.qualify(node.func) == "torch.device":
            first = patterns.positional(node, 0)
            node = first.value if first is not None else node
        return names_cpu(patterns.string_value(node))

    def _conditional_placement(
        self,
        node: cst.If | cst.IfExp,
        when_true: Value,
        when_false: Value,
        conditions: dict[str, tuple[bool, str]],
    ) -> Value | None:
        """``x.cuda() if use_cuda else x``: on the accelerator exactly when the test holds."""
        candidates = ((when_true, when_false, False), (when_false, when_true, True))
        for accel, host, negated in candidates:
            if not movable_pair(accel, host):
                continue
            after_if = node.whitespace_before_test if isinstance(node, cst.If) else node.whitespace_after_if
            condition = self._condition_text(node.test, after_if, conditions)
            if condition is None:
                return None
            if accel.condition == (condition if negated else negate(condition)):
                # Placed on a device chosen by the opposite of this arm's test: that device is the CPU
                # here (``if run_on_gpu: y = y.cpu()``, where ``y`` is on the device ``run_on_gpu`` chose).
                return host
            return Value(
                Kind.CONDITIONAL,
                condition=negate(condition) if negated else condition,
                module=accel.module,
                device=accel.device,
                move=accel.move,
                origin=accel.origin,
                stateful=accel.stateful,
            )
        return None

    def _join_placements_under(self, statement: cst.If, body: State, orelse: State, before: State) -> None:
        """After ``if use_cuda: x = x.cuda()``, ``x`` is on the accelerator exactly when ``use_cuda``.

        Read from the branches as they were, before the join let a CPU-only branch give way."""
        if body.terminated or orelse.terminated:
            return
        for key in body.env.keys() & orelse.env.keys():
            when_true, when_false = body.env[key], orelse.env[key]
            if when_true == when_false:
                continue
            placed = self._conditional_placement(statement, when_true, when_false, before.conditions)
            if placed is not None:
                self.state.env[key] = placed

    # -- helper objects with host constants (DEV307) ----------------------------------------------
