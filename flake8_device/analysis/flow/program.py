"""The functions and classes of the parsed file, as the interpreter resolves calls to them.

A call ``helper(x)``, ``self.reset()`` or ``Model.build(cfg)`` names code in the same file; the
interpreter applies that code's summary at the call (:mod:`.summaries`), and a class's methods
see the attributes its construction and its other methods set.  Only the code that was parsed
is known here: a call to anything else is opaque.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst

from flake8_device.analysis.flow.syntax import block_of, compound_blocks, descendants, is_static, target_paths
from flake8_device.analysis.symbols import PLAIN_BASES, dotted_name

# How many base classes deep a method or attribute is looked up.
MAX_BASE_DEPTH = 4


@dataclass
class ClassEntry:
    node: cst.ClassDef
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    # The bases as written (``nn.Module``, ``Base``).
    bases: tuple[str, ...] = ()


class Program:
    def __init__(self, module: cst.Module, plain_bases: frozenset[str] = frozenset()) -> None:
        """``plain_bases``: the names this file imports from the project's own modules that are
        classes known to be neither modules nor to move what they hold (see flake8_device/project.py)."""
        self.plain_bases = plain_bases
        self.functions: dict[str, cst.FunctionDef] = {}
        self.classes: dict[str, ClassEntry] = {}
        self._owners: dict[cst.FunctionDef, ClassEntry] = {}
        self._sets: dict[cst.FunctionDef, bool] = {}
        self._fluent: dict[cst.FunctionDef, bool] = {}
        self._device_properties: dict[str, str | None] = {}
        self._copies: dict[cst.FunctionDef, dict[str, str]] = {}
        self._rewires: dict[cst.FunctionDef, bool] = {}
        self._call_sites: CallSites | None = None
        for statement in _definitions(module.body):
            if isinstance(statement, cst.FunctionDef):
                self.functions.setdefault(statement.name.value, statement)
            else:
                entry = ClassEntry(statement, bases=tuple(dotted_name(a.value) or "" for a in statement.bases))
                for member in _definitions(block_of(statement.body)):
                    if isinstance(member, cst.FunctionDef):
                        entry.methods.setdefault(member.name.value, member)
                        self._owners[member] = entry
                self.classes.setdefault(statement.name.value, entry)

    def call_sites(self, tree: ast.Module) -> CallSites:
        """Where ``tree`` (the whole file this program was parsed from) calls each function: one per
        program, shared by every analysis of the module (a module another file imports has one
        analysis per summary), so that it is walked at most once."""
        if self._call_sites is None:
            self._call_sites = CallSites(tree)
        return self._call_sites

    def owner(self, function: cst.FunctionDef) -> ClassEntry | None:
        return self._owners.get(function)

    def sets_attributes(self, method: cst.FunctionDef) -> bool:
        """Does the method assign (or move in place) an attribute of its first parameter, or call
        another method on it (which may)?  Read from its statements only, once."""
        found = self._sets.get(method)
        if found is None:
            params = [*method.params.posonly_params, *method.params.params]
            found = self._sets[method] = bool(params) and _sets_attributes(method, params[0].name.value)
        return found

    def returns_self(self, method: cst.FunctionDef) -> bool:
        """Does every ``return`` of the method give back its first parameter (``return self``: a
        fluent method such as an object's own ``to``)?  Read from its statements only, once."""
        found = self._fluent.get(method)
        if found is None:
            params = [*method.params.posonly_params, *method.params.params]
            found = self._fluent[method] = bool(params) and _returns_only(method, params[0].name.value)
        return found

    def parameter_copies(self, init: cst.FunctionDef) -> dict[str, str]:
        """``self.device = device`` at the top of ``init``: attribute -> the parameter it keeps, for
        attributes assigned exactly once in ``init`` (anywhere), there.  A construction's caller
        gives the value (a device string, a flag) that its summary cannot name."""
        found = self._copies.get(init)
        if found is None:
            found = self._copies[init] = _parameter_copies(init)
        return found

    def rewires_own_layers(self, init: cst.FunctionDef) -> bool:
        """Does ``init`` hand one of its instance's attributes to a function of this file that
        assigns that argument's attributes (``copy_params(self.rnn, other.rnn)`` setting
        ``rnn.weight_ih_l0 = nn.Parameter(...)``)?  Its layers' parameters may then be another
        module's, wherever those are."""
        found = self._rewires.get(init)
        if found is None:
            found = self._rewires[init] = self._rewires_own_layers(init)
        return found

    def _rewires_own_layers(self, init: cst.FunctionDef) -> bool:
        params = [*init.params.posonly_params, *init.params.params]
        if not params:
            return False
        self_name = params[0].name.value
        for node in descendants(init.body):
            if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
                continue
            callee = self.functions.get(node.func.value)
            if callee is None:
                continue
            mutated = _mutated_parameters(callee)
            positional = [a for a in node.args if a.keyword is None and not a.star]
            for position, argument in enumerate(positional):
                if position in mutated and _on(argument.value, self_name):
                    return True
        return False

    def lineage(self, name: str) -> Iterator[ClassEntry]:
        """The class ``name`` and its bases defined in this file, nearest first."""
        seen: set[str] = set()
        todo = [(name, 0)]
        while todo:
            current, depth = todo.pop(0)
            entry = self.classes.get(current.rsplit(".", 1)[-1])
            if entry is None or current in seen or depth > MAX_BASE_DEPTH:
                continue
            seen.add(current)
            yield entry
            todo.extend((base, depth + 1) for base in entry.bases)

    def device_property(self, class_name: str) -> str | None:
        """The attribute whose device a ``device`` property returns (``return self.audio.device``)
        for instances of ``class_name``: defined in the class, a base, or (for a mixin) a class of
        this file built on it; None where no such property is found.  Looked up once per class."""
        if class_name not in self._device_properties:
            self._device_properties[class_name] = self._device_property(class_name)
        return self._device_properties[class_name]

    def _device_property(self, class_name: str) -> str | None:
        users = [e for e in self.classes.values() if class_name in (b.rsplit(".", 1)[-1] for b in e.bases)]
        for entry in [*self.lineage(class_name), *users]:
            method = entry.methods.get("device")
            if method is None or not any(dotted_name(d.decorator) == "property" for d in method.decorators):
                continue
            body = block_of(method.body)
            if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
                return None
            returned = body[0].body[0]
            if not isinstance(returned, cst.Return) or not isinstance(returned.value, cst.Attribute):
                return None
            held = returned.value.value
            if returned.value.attr.value != "device" or not isinstance(held, cst.Attribute):
                return None
            return held.attr.value if isinstance(held.value, cst.Name) else None
        return None

    def unknown_base(self, class_name: str) -> bool:
        """Whether ``class_name`` (or a base in this file) derives from a class defined elsewhere
        (``object``, the typing helpers and the project's known plain classes aside): what that
        base does is not known here."""
        return any(
            base.split("[")[0] not in PLAIN_BASES
            and base not in self.plain_bases
            and base.rsplit(".", 1)[-1] not in self.classes
            for entry in self.lineage(class_name)
            for base in entry.bases
        )

    def moves_itself(self, class_name: str) -> bool:
        """A class that may move what it holds: a base from elsewhere (perhaps ``nn.Module``), or a
        ``to``/``cuda``/``_apply`` of its own or of a base in this file."""
        if self.unknown_base(class_name):
            return True
        return any(name in entry.methods for entry in self.lineage(class_name) for name in ("to", "cuda", "_apply"))

    def method(self, class_name: str, name: str) -> cst.FunctionDef | None:
        """``name`` as instances of ``class_name`` see it: its own, or a base's in this file."""
        for entry in self.lineage(class_name):
            if name in entry.methods:
                return entry.methods[name]
        return None

    def subclass_method(self, class_name: str, name: str) -> cst.FunctionDef | None:
        """``self.name(...)`` in ``class_name``, which does not define it: a hook that one subclass
        of this file implements (a template method); None when no subclass, or several, do."""
        found = {
            entry.methods[name]
            for other in self.classes
            if other != class_name
            for entry in [self.classes[other]]
            if name in entry.methods and any(e.node.name.value == class_name for e in self.lineage(other))
        }
        return found.pop() if len(found) == 1 else None

    def base_method(self, class_name: str, name: str) -> cst.FunctionDef | None:
        """``super().name`` inside ``class_name``: the first base in this file that defines it."""
        lineage = list(self.lineage(class_name))[1:]
        return next((entry.methods[name] for entry in lineage if name in entry.methods), None)


@dataclass(frozen=True)
class Signature:
    """How a call's arguments bind to a function's parameters."""

    positional: tuple[str, ...]
    keyword_only: frozenset[str]
    star_args: bool
    star_kwargs: bool
    star_name: str | None = None  # (``tensors`` of ``*tensors``)

    @classmethod
    def of(cls, function: cst.FunctionDef, *, bound: bool) -> Signature:
        """``bound``: the first parameter (``self``) is supplied by the call, not by an argument."""
        params = function.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        if bound and positional and not is_static(function):
            positional = positional[1:]  # ``self`` (or ``cls``) comes with the call
        star = params.star_arg
        return cls(
            tuple(positional),
            frozenset(p.name.value for p in params.kwonly_params),
            isinstance(star, cst.Param),
            params.star_kwarg is not None,
            star.name.value if isinstance(star, cst.Param) else None,
        )

    def bind(self, call: cst.Call, unpacked: dict[int, int] | None = None) -> tuple[dict[str, cst.Arg], bool] | None:
        """Parameter name -> the argument passed for it, and whether a starred argument of unknown
        length (``*args``, ``**kwargs``) may pass the parameters left out; None when the call cannot
        bind (too many arguments, an unknown keyword).

        What comes before a ``*args`` of unknown length, and every keyword, is bound all the same:
        ``self.p_losses(x, c, t, *args, **kwargs)`` passes ``t`` as its third parameter whatever
        ``args`` holds.  ``unpacked``: for a ``*args`` argument of known length (a tuple built in
        the caller), that length by the argument's ``id``; its parameters are bound to the starred
        argument itself."""
        bound: dict[str, cst.Arg] = {}
        position: int | None = 0  # (None: past a ``*args`` of unknown length)
        open_ = False
        for argument in call.args:
            if argument.star == "*" and unpacked is not None and id(argument) in unpacked and position is not None:
                for _ in range(unpacked[id(argument)]):
                    if position >= len(self.positional):
                        return None if not self.star_args else (bound, open_)
                    bound[self.positional[position]] = argument
                    position += 1
                continue
            if argument.star:
                open_ = True
                if argument.star == "*":
                    position = None
                continue
            if argument.keyword is None:
                if position is None:
                    continue  # its parameter depends on the length of the ``*args`` before it
                if position >= len(self.positional):
                    if self.star_args:
                        position += 1
                        continue
                    return None
                bound[self.positional[position]] = argument
                position += 1
            else:
                name = argument.keyword.value
                if name in self.positional or name in self.keyword_only:
                    bound[name] = argument
                elif not self.star_kwargs:
                    return None
        return bound, open_

    def star_arguments(self, call: cst.Call) -> list[cst.Arg] | None:
        """The arguments that ``*args`` collects at ``call`` (the positional ones past the named
        parameters); None where a starred argument hides which."""
        if self.star_name is None or any(a.star for a in call.args):
            return None
        positional = [a for a in call.args if a.keyword is None]
        return positional[len(self.positional) :]

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.positional, *sorted(self.keyword_only))


def _definitions(body: Sequence[cst.CSTNode]) -> Iterator[cst.FunctionDef | cst.ClassDef]:
    """Functions and classes defined in a body, also under ``if``/``try`` at that level."""
    for statement in body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            yield statement
        elif isinstance(statement, (cst.If, cst.Try, cst.With)):
            for block in compound_blocks(statement):
                yield from _definitions(block)


def _sets_attributes(method: cst.FunctionDef, self_name: str) -> bool:
    stack: list[cst.BaseStatement] = list(block_of(method.body))
    while stack:
        statement = stack.pop()
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets: list[cst.BaseExpression] = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets = [small.target]
                elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    targets = [small.value.func]  # ``self.x.to(d)``, ``self.reset()``
                if any(_on(target, self_name) for target in targets):
                    return True
        elif isinstance(statement, cst.BaseCompoundStatement) and not isinstance(
            statement, (cst.FunctionDef, cst.ClassDef)
        ):
            for block in compound_blocks(statement):
                stack.extend(block)
    return False


def _returns_only(method: cst.FunctionDef, name: str) -> bool:
    """At least one ``return``, and each returns the plain name ``name``."""
    returns: list[cst.Return] = []
    stack: list[cst.BaseStatement] = list(block_of(method.body))
    while stack:
        statement = stack.pop()
        if isinstance(statement, cst.SimpleStatementLine):
            returns.extend(small for small in statement.body if isinstance(small, cst.Return))
        elif isinstance(statement, cst.BaseCompoundStatement) and not isinstance(
            statement, (cst.FunctionDef, cst.ClassDef)
        ):
            for block in compound_blocks(statement):
                stack.extend(block)
    return bool(returns) and all(isinstance(r.value, cst.Name) and r.value.value == name for r in returns)


def _on(target: cst.BaseExpression, self_name: str) -> bool:
    """``self.x``, ``self.x[k]``, ``(self.a, b)``: a target (or callee) reached through ``self``."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_on(e.value, self_name) for e in target.elements)
    while isinstance(target, (cst.Attribute, cst.Subscript)):
        target = target.value
        if isinstance(target, cst.Name) and target.value == self_name:
            return True
    return False


def _assigned(function: cst.FunctionDef) -> Iterator[str]:
    """The path of every name or attribute chain ``function`` assigns (``a = ...``,
    ``self.a += ...``, ``a, self.b = ...``, ``for self.a in ...``, ``with f() as a``,
    ``(a := ...)``), once per assignment; items (``d[k] = ...``) have none."""
    for node in descendants(function.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                yield from target_paths(target.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            yield from target_paths(node.target)
        elif isinstance(node, cst.AsName):
            yield from target_paths(node.name)


def rebound_names(function: cst.FunctionDef) -> frozenset[str]:
    """The plain names ``function`` assigns anywhere in it: a parameter among them may no longer
    hold what the caller gave."""
    return frozenset(path for path in _assigned(function) if "." not in path)


def _parameter_copies(init: cst.FunctionDef) -> dict[str, str]:
    """See ``Program.parameter_copies``: parameters never rebound in ``init``, kept by attributes
    assigned once there, at its top level."""
    params = [*init.params.posonly_params, *init.params.params, *init.params.kwonly_params]
    if not params:
        return {}
    self_name = params[0].name.value
    names = {p.name.value for p in params[1:]} - rebound_names(init)
    counts: dict[str, int] = {}
    for path in _assigned(init):
        owner, _, attribute = path.rpartition(".")
        if owner == self_name:
            counts[attribute] = counts.get(attribute, 0) + 1
    copies = {}
    for line in block_of(init.body):
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(target := small.targets[0].target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == self_name
                and isinstance(small.value, cst.Name)
                and small.value.value in names
                and counts.get(target.attr.value) == 1
            ):
                copies[target.attr.value] = small.value.value
    return copies


def _mutated_parameters(function: cst.FunctionDef) -> frozenset[int]:
    """Positions of the parameters whose attributes ``function`` assigns (``lstm.weight = ...``)."""
    names = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    assigned = {path.split(".")[0] for path in _assigned(function) if path.count(".") == 1}
    return frozenset(i for i, name in enumerate(names) if name in assigned)


class CallSites:
    """Every place the whole file names a function or method (by its ``ast``, so code the sparse
    parse left out counts too): the calls, and whether the name is ever used otherwise."""

    def __init__(self, tree: ast.Module) -> None:
        self._tree = tree

    @cached_property
    def _walked(self) -> tuple[dict[str, list[ast.Call]], set[str]]:
        """The calls of each name, and the names used other than as what a call calls (``shift =
        self._shift``, a callback): walked once, where a flag is first asked for."""
        calls: dict[str, list[ast.Call]] = {}
        called: set[int] = set()
        named: list[tuple[str, ast.AST]] = []
        for node in ast.walk(self._tree):
            if isinstance(node, ast.Call):
                name = _called_name(node.func)
                if name is not None:
                    calls.setdefault(name, []).append(node)
                    called.add(id(node.func))
            elif isinstance(node, ast.Name):
                named.append((node.id, node))
            elif isinstance(node, ast.Attribute):
                named.append((node.attr, node))
        return calls, {name for name, node in named if id(node) not in called}

    def constant_flags(self, function: cst.FunctionDef, *, method: bool) -> dict[str, str]:
        """For a private function (``_rel_shift``: called by its own file only): each parameter
        with a ``True``/``False`` default that every call of the file leaves at one constant
        (passing it as that literal, or not at all), never rebound in the function -> that
        constant.  Empty where the name is used other than in a plain call (a callback, a starred
        call), and for methods that a class's name may call unbound."""
        name = function.name.value
        if not name.startswith("_") or name.startswith("__"):
            return {}
        params = function.params
        defaults = {
            p.name.value: p.default.value
            for p in (*params.posonly_params, *params.params, *params.kwonly_params)
            if isinstance(p.default, cst.Name) and p.default.value in ("True", "False")
        }
        if not defaults:
            return {}  # (no flag to ask about: the file's calls are not walked)
        all_calls, other = self._walked
        if name in other:
            return {}
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        if method and positional and not is_static(function):
            positional = positional[1:]
        given: dict[str, set[object]] = {flag: set() for flag in defaults.keys() - rebound_names(function)}
        calls = all_calls.get(name, [])
        if not given or not calls:
            return {}
        for call in calls:
            receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
            if method != (receiver is not None) or (isinstance(receiver, ast.Name) and receiver.id[:1].isupper()):
                return {}
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return {}
            passed: dict[str, ast.expr] = dict(zip(positional, call.args))
            passed.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
            for flag, values in given.items():
                argument = passed.get(flag)
                if argument is None:
                    values.add(defaults[flag] == "True")
                elif isinstance(argument, ast.Constant) and isinstance(argument.value, bool):
                    values.add(argument.value)
                else:
                    values.add(None)
        return {flag: str(values.pop()) for flag, values in given.items() if len(values) == 1 and None not in values}


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
