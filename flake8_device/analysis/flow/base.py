"""What every part of the interpreter may use: its attributes, and the methods the parts share.

The interpreter is one class assembled from mixins, one per job (see :mod:`.interpreter`); this
base declares what they read of each other, so that each module stays readable on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import libcst as cst

from flake8_device.analysis.flow.state import State

if TYPE_CHECKING:
    from flake8_device.analysis.defaults import DefaultDeviceSetting
    from flake8_device.analysis.facts import FileFacts
    from flake8_device.analysis.flow.budget import Budget
    from flake8_device.analysis.flow.events import AttributeStore, Event, Operand
    from flake8_device.analysis.flow.program import CallSites, Program
    from flake8_device.analysis.flow.summaries import LocalResult, Summary
    from flake8_device.analysis.flow.values import Value
    from flake8_device.analysis.helpers import HelperClasses
    from flake8_device.analysis.symbols import Symbols


class ForeignModule(Protocol):
    """The summaries of another module of the project (``ModuleSummaries``)."""

    def summary(self, function: cst.FunctionDef, budget: Budget) -> Summary | None: ...


class FileAnalysis(Protocol):
    """What the interpreter asks of the analysis of the whole file (``FlowAnalysis``, which runs it):
    summaries of the file's functions, class attribute states, what callers pass, the events."""

    ctx: FileFacts
    program: Program
    budget: Budget
    final_env: dict[cst.CSTNode, dict[str, Value]]
    contexts: dict[cst.FunctionDef, dict[str, list[tuple[int, Value]]]]
    enclosing: dict[cst.FunctionDef, cst.FunctionDef]

    @property
    def helpers(self) -> HelperClasses: ...

    @property
    def default_device_is_cpu(self) -> bool: ...

    @property
    def default_device_setting(self) -> DefaultDeviceSetting | None: ...

    def summary(
        self,
        function: cst.FunctionDef,
        *,
        seeded: bool = True,
        attributes: tuple[tuple[str, Value], ...] | None = None,
    ) -> Summary | None: ...

    def attribute_state(self, class_name: str) -> dict[str, Value]: ...

    def imported_function(self, func: cst.BaseExpression) -> tuple[ForeignModule, cst.FunctionDef] | None: ...

    def imported_layers(self, name: str) -> bool: ...

    def foreign_summary(self, module: ForeignModule, function: cst.FunctionDef) -> Summary | None: ...

    def held(
        self, class_name: str, attribute: str, value: Value, *, construction: bool, cache: bool = True
    ) -> Value: ...

    def keeps_place(self, class_name: str) -> bool: ...

    def optimizer_class(self, name: str) -> bool: ...

    def eager_optimizer(self, name: str) -> bool: ...

    def param_group_tensors(self, name: str) -> tuple[str, ...]: ...

    def names_from_outside(self, function: cst.FunctionDef | None) -> frozenset[str]: ...

    def record_context(self, function: cst.FunctionDef, values: dict[str, Value], *, record: bool) -> None: ...

    def record_store(self, class_name: str, attribute: str, store: AttributeStore) -> None: ...

    def node_number(self, node: cst.CSTNode | None) -> str: ...

    @property
    def call_sites(self) -> CallSites | None: ...

    def add(self, event: Event, key_node: cst.CSTNode, function: cst.FunctionDef | None = None) -> None: ...

    def retract(self, kind: type, key_node: cst.CSTNode, function: cst.FunctionDef | None) -> None: ...


class InterpreterBase:
    analysis: FileAnalysis
    # The analysis's work budget: every expression and statement evaluated spends a step.
    budget: Budget
    ctx: FileFacts
    symbols: Symbols
    function: cst.FunctionDef | None
    owner: cst.ClassDef | None
    path: tuple[str, ...]
    state: State
    # False while iterating a loop to its fixed point: events are not recorded then.
    record: bool
    # Depth of ``with torch.no_grad():`` blocks around the statement.
    no_grad: int
    # Inside ``with torch.device(d):``, other than the CPU: where factories and modules allocate
    # (unknown: ``d`` is not followed, and ``meta`` makes placeholders moved later).
    scoped_device: bool
    loop_depth: int
    # The name of ``self`` in a method.
    self_name: str | None
    # The simple statement being interpreted (None inside compound-statement headers).
    statement: cst.SimpleStatementLine | None
    in_module_class: bool
    building_module: bool
    in_lightning_module: bool
    # The file uses a library that places models and batches itself (Accelerate, Fabric).
    uses_auto_placement: bool
    # Events of this run become findings.
    report: bool
    # Summarising the function for its callers (see :mod:`.summaries`): no events are recorded.
    summary_mode: bool
    # Parameters moved in place, and whether an optimizer's state is reloaded after such a move.
    moved_in_place: dict[str, Value]
    # Summary mode: parameters (dicts) the function stored entries into by string key.
    entries_stored: set[str]
    reloads_optimizers: bool
    moves_unseen: bool
    # Summary mode: the function's parameters, and those it moves to a device itself.
    parameters: set[str]
    moves_itself: set[str]
    # Parameters defaulting to the CPU (``device=None``, ``device="cpu"``) that no call of the file
    # passes: where they place a value is not known (the CPU by default, whatever other callers give).
    cpu_defaults: frozenset[str]
    # The call of the expression statement being run (its result is dropped), if it is one.
    discarded: cst.Call | None
    # Inside ``for k in d:``: the loop's key name -> the path of the dict it iterates.
    iterated_keys: dict[str, str]

    if TYPE_CHECKING:

        def _emit(self, event: Event, key_node: cst.CSTNode) -> None: ...

        def _emit_held(self, stale: Operand, partner: Operand | None, operation: str) -> None: ...

        def _eval(self, node: cst.BaseExpression) -> Value: ...

        def _value_of(self, node: cst.BaseExpression) -> Value: ...

        def _known_not_empty(self, operand: Operand) -> bool: ...

        def _given(self, value: Value, partner: cst.BaseExpression) -> bool: ...

        def _attribute(self, node: cst.Attribute, base: Value | None = None) -> Value: ...

        def _imported_callee(self, func: cst.BaseExpression) -> tuple[ForeignModule, cst.FunctionDef] | None: ...

        def _call_local(
            self, node: cst.Call, function: cst.FunctionDef, bound: bool, *, source: ForeignModule | None = None
        ) -> Value: ...

        def _subscript(self, node: cst.Subscript) -> Value: ...

        def store_entry(self, path: str, key: str | None, value: Value) -> None: ...

        def _record_state_meet(self, value: Value) -> None: ...

        def _iteration_value(self, node: cst.BaseExpression) -> Value: ...

        def _meet(
            self,
            node: cst.CSTNode,
            operands: Sequence[Operand],
            operation: str,
            *,
            arithmetic: bool,
            containers: bool = True,
            spread: bool = False,
        ) -> None: ...

        # calls
        def _call_value(self, node: cst.Call, callee: Value, arguments: list[Operand], name: str) -> Value: ...

        # placement
        def _move(self, node: cst.Call, receiver: Value) -> Value | None: ...

        def _own_move(
            self,
            node: cst.Call,
            base: cst.BaseExpression,
            receiver: Value,
            method: str,
            arguments: list[Operand] | None,
        ) -> Value | None: ...

        def _helper_move(self, node: cst.Call, arguments: list[Operand]) -> Value: ...

        def _device_value(self, node: cst.BaseExpression, origin: cst.Call, *, module: bool | None) -> Value | None: ...

        def _move_suffix(self, node: cst.Call) -> str | None: ...

        def _is_dtype(self, node: cst.BaseExpression) -> bool: ...

        # conditions
        def _device_choice(self, node: cst.BaseExpression) -> str | None: ...

        # local calls
        def _local_callee(self, func: cst.BaseExpression) -> tuple[cst.FunctionDef, bool] | None: ...

        def _instantiate(self, node: cst.Call, name: str, arguments: list[Operand], *, module: bool) -> Value: ...

        def _instance_attribute(self, instance: Value, name: str) -> Value | None: ...

        def _call_method(
            self, node: cst.Call, base: cst.BaseExpression, instance: Value, name: str, arguments: list[Operand]
        ) -> LocalResult | None: ...

        def _bind_call(
            self, node: cst.Call, function: cst.FunctionDef, arguments: list[Operand], *, bound: bool
        ) -> tuple[dict[str, cst.Arg], dict[str, Value], dict[str, str]] | None: ...

        def _new_module(self, node: cst.Call, *, stateful: bool, compares: bool = False) -> Value: ...

        # checks
        def _use(self, node: cst.BaseExpression) -> None: ...

        def _note_unseen_move(self, base: cst.BaseExpression, method: str, receiver: Value) -> None: ...

        def _moved(self, path: str) -> None: ...

        def _check_optimizers(self, path: str, moved: Value, move_call: cst.Call) -> None: ...

        def _settle_optimizers(self, value: Value, rebase: Callable[[str], str | None]) -> Value: ...

        def _parameters_owner(self, node: cst.BaseExpression) -> str | None: ...

        def _optimizer_state_loaded(self, node: cst.Call, base: cst.BaseExpression, receiver: Value) -> None: ...

        def _random_target(
            self, node: cst.Call, qualified: str, arguments: list[Operand]
        ) -> tuple[Value, str, bool] | None: ...

        def _check_generator(
            self,
            node: cst.Call,
            arguments: list[Operand],
            target: Value,
            target_text: str,
            *,
            by_default: bool = False,
        ) -> None: ...

        def _attribute_of(self, base: Value, attr: str) -> Value: ...

        def _attach_call(
            self, owner_expr: cst.BaseExpression, value_node: cst.BaseExpression, value: Value, method: str = ""
        ) -> None: ...
