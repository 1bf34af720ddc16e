"""Which names in a file are torch (and friends), and which classes are modules.

Built once per file from the standard-library ``ast`` tree (flake8 hands it to
plugins for free, and ``ast.parse`` is an order of magnitude faster than a
LibCST parse), so the LibCST pass never needs the costly
``QualifiedNameProvider``: a dotted name is resolved by looking its first
component up in the import table.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

import libcst as cst

from flake8_device.analysis import torch_api

# Imports of torch-family packages below the top level, which the module-level import table
# does not see, and classes defined in indented blocks (perhaps inside functions).
_NESTED_IMPORTS = re.compile(r"(?m)^[ \t]+(?:from|import)[ \t]+(?:torch|lightning|pytorch_lightning|torchmetrics)\b")
_NESTED_CLASSES = re.compile(r"(?m)^[ \t]+class[ \t]+(\w+)")


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``torch.nn.Linear`` for the expression ``torch.nn.Linear``; None for anything else."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def ast_dotted_name(node: ast.expr) -> str | None:
    """``torch.nn.Linear`` for that expression in the stdlib ``ast``; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


_IMPORT_TIME_BLOCKS: tuple[type[ast.stmt], ...] = tuple(
    t for t in (ast.If, ast.Try, getattr(ast, "TryStar", None), ast.With) if t is not None
)


def module_level_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements executed at import time, looking inside if/try/with blocks."""
    return _preorder(body, lambda statement: _blocks(statement) if isinstance(statement, _IMPORT_TIME_BLOCKS) else ())


def top_level_definition(tree: ast.Module, name: str, kinds: tuple[type[ast.stmt], ...]) -> ast.stmt | None:
    """The statement of one of ``kinds`` (``ast.ClassDef``, ...) that defines ``name`` at the top
    level of ``tree``: the last one, which is what the name is bound to once the module has run."""
    found = None
    for statement in tree.body:
        if isinstance(statement, kinds) and getattr(statement, "name", None) == name:
            found = statement
    return found


def all_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement at any depth (in functions, classes, blocks), never entering expressions:
    several times cheaper than ``ast.walk`` for what only statements can be (imports, classes)."""
    return _preorder(body, _blocks)


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement blocks directly inside ``statement``, in source order of their kinds."""
    blocks = [getattr(statement, name, None) for name in ("body", "orelse", "finalbody")]
    blocks = [block for block in blocks if isinstance(block, list)]
    blocks += [part.body for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ()))]
    return blocks


def _preorder(
    body: Iterable[ast.stmt], inner: Callable[[ast.stmt], Iterable[list[ast.stmt]]]
) -> Iterator[ast.stmt]:
    """Each statement, then the statements of its ``inner`` blocks.  (A stack, not recursion: an
    ``elif`` chain of a thousand arms nests a thousand deep.)"""
    todo: list[Iterator[ast.stmt]] = [iter(body)]
    while todo:
        statement = next(todo[-1], None)
        if statement is None:
            todo.pop()
            continue
        yield statement
        todo.extend(iter(block) for block in reversed(list(inner(statement))))


_BUILTIN_NAMES = frozenset(dir(builtins))
# Bases, as written, that add no behaviour of their own.
PLAIN_BASES = frozenset({"", "object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol"})
# Where a star import hands on names, these are assumed to mean what they mean everywhere else.
_CONVENTIONAL_ALIASES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional"}
# Packages whose classes are known here: a base from one of them that is not a module class is not one.
_NOT_MODULE_ROOTS = frozenset(
    {"torch", "abc", "typing", "typing_extensions", "enum", "builtins", "collections", "dataclasses", "object"}
)


class Symbols:
    """The import table of one file and the module classes it defines."""

    def __init__(self, tree: ast.Module | None) -> None:
        self.imports: dict[str, str] = {}
        # Local class name -> dotted base names as written.
        self._class_bases: dict[str, list[str]] = {}
        # Local classes that define ``forward`` (with a base from elsewhere: a module, see
        # ``_compute_module_classes``).
        self._with_forward: set[str] = set()
        self._module_classes: set[str] | None = None
        self._modules_by_evidence: set[str] = set()
        # Names imported from the project's own modules that are module classes there (see
        # ``add_project_modules``).
        self._project_modules: frozenset[str] = frozenset()
        self.project_plain_classes: frozenset[str] = frozenset()
        # ``from M import *`` at module level: what it binds is not known here.
        self.star_imports: list[str] = []
        # Module-level ``from M import name`` (relative ones too): local name -> (level, M, name),
        # and ``import M`` / ``import M as m``: local name -> (0, M).  The project's own modules
        # among them are read by the device flow (see flake8_device/project.py).
        self.from_imports: dict[str, tuple[int, str | None, str]] = {}
        self.module_imports: dict[str, tuple[int, str]] = {}
        if tree is None:
            return
        for statement in module_level_statements(tree.body):
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                self.add_ast_import(statement)
            elif isinstance(statement, ast.ClassDef):
                self._add_class(statement)
        if self.star_imports:
            # A star import of the project's own module (``from models.common import *``) hands on
            # what that module imported; these names are spelled this way by convention only.
            for local, target in _CONVENTIONAL_ALIASES.items():
                self.imports.setdefault(local, target)

    # -- imports -------------------------------------------------------------
    def add_ast_import(self, statement: ast.Import | ast.ImportFrom) -> None:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    self.imports[alias.asname] = alias.name
                    self.module_imports[alias.asname] = (0, alias.name)
                else:
                    top = alias.name.split(".")[0]
                    self.imports.setdefault(top, top)
                    if top == alias.name:
                        self.module_imports.setdefault(top, (0, top))
            return
        for alias in statement.names:
            if alias.name == "*":
                self.star_imports.append("." * statement.level + (statement.module or ""))
                continue
            local = alias.asname or alias.name
            # (A name from a module: a module of the project, maybe; see ``from_imports``.)
            self.from_imports[local] = (statement.level, statement.module, alias.name)
            if statement.module and not statement.level:
                self.imports[local] = f"{statement.module}.{alias.name}"

    def add_cst_import(self, statement: cst.Import | cst.ImportFrom) -> None:
        """Imports met inside functions while walking the LibCST tree."""
        if isinstance(statement, cst.Import):
            for alias in statement.names:
                name = dotted_name(alias.name)
                if name is None:
                    continue
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.imports[alias.asname.name.value] = name
                else:
                    top = name.split(".")[0]
                    self.imports.setdefault(top, top)
        elif (
            statement.module is not None and not statement.relative and not isinstance(statement.names, cst.ImportStar)
        ):
            module = dotted_name(statement.module)
            if module is None:
                return
            for alias in statement.names:
                name = dotted_name(alias.name)
                if name is None:
                    continue
                local = name
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local = alias.asname.name.value
                self.imports[local] = f"{module}.{name}"

    def qualify_dotted(self, dotted: str | None) -> str | None:
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        target = self.imports.get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """Fully qualified name of an imported name or attribute chain, else None."""
        return self.qualify_dotted(dotted_name(node))

    def tensor_annotation(self, text: str) -> bool:
        """Does the annotation ``text`` say one tensor (``torch.Tensor``, ``th.Tensor`` of ``import
        torch as th``, ``Optional[Tensor]``, ``Tensor | None``, ``"Tensor"``, jaxtyping's
        ``Float[Tensor, "b n"]``)?  ``List[Tensor]`` is not one tensor."""
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except (SyntaxError, ValueError):
            return False
        return self._tensor_type(node, 0)

    def annotation_admits(self, text: str, qualified: str) -> bool:
        """Does the annotation ``text`` name ``qualified`` anywhere (``Union[str, torch.device]``,
        ``str | torch.device``, ``Optional[torch.device]``, quoted or not)?"""
        try:
            node = ast.parse(text.strip(), mode="eval").body
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                node = ast.parse(node.value.strip(), mode="eval").body
        except (SyntaxError, ValueError):
            return False
        return any(
            isinstance(sub, (ast.Name, ast.Attribute)) and self.qualify_dotted(ast_dotted_name(sub)) == qualified
            for sub in ast.walk(node)
        )

    def _tensor_type(self, node: ast.expr, depth: int) -> bool:
        if depth > 3:
            return False
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.tensor_annotation(node.value) if depth == 0 else False
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [node.left, node.right]
            nones = [s for s in sides if isinstance(s, ast.Constant) and s.value is None]
            return len(nones) == 1 and all(self._tensor_type(s, depth + 1) for s in sides if s not in nones)
        if isinstance(node, ast.Subscript):
            base = ast_dotted_name(node.value) or ""
            qualified = self.qualify_dotted(base) or base
            inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if qualified in ("typing.Optional", "Optional"):
                return len(inner) == 1 and self._tensor_type(inner[0], depth + 1)
            if qualified in ("typing.Union", "Union"):
                kept = [e for e in inner if not (isinstance(e, ast.Constant) and e.value is None)]
                return len(kept) == 1 and self._tensor_type(kept[0], depth + 1)
            if qualified.startswith("jaxtyping."):
                return bool(inner) and self._tensor_type(inner[0], depth + 1)
            return False
        dotted = ast_dotted_name(node)
        if dotted is None:
            return False
        qualified = self.qualify_dotted(dotted)
        if qualified is not None:
            return qualified in torch_api.TENSOR_TYPES
        return dotted in ("Tensor", "torch.Tensor")  # (as written, where the file's imports do not say)

    def alias_for(self, qualified: str) -> str | None:
        """Shortest way to write ``qualified`` with this file's imports (``nn.ModuleList``)."""
        best: str | None = None
        for local, target in self.imports.items():
            if qualified == target:
                candidate = local
            elif qualified.startswith(target + "."):
                candidate = local + qualified[len(target) :]
            else:
                continue
            if best is None or len(candidate) < len(best):
                best = candidate
        return best

    def _host_making_functions(self, tree: ast.Module) -> list[str]:
        """The file's top-level functions that return what a torch factory makes without ``device=``
        (``return torch.zeros(shape).uniform_(0, 1) < p``): their calls make host tensors too."""
        found = []
        for statement in tree.body:
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(statement):
                if isinstance(node, ast.Return) and node.value is not None and self._host_factory_root(node.value):
                    found.append(statement.name)
                    break
        return found

    def _host_factory_root(self, node: ast.expr) -> bool:
        """Is ``node`` a chain of methods and comparisons on a factory call without ``device=``?"""
        while True:
            if isinstance(node, ast.Compare):
                node = node.left
            elif isinstance(node, ast.Call):
                qualified = self.qualify_dotted(ast_dotted_name(node.func))
                if qualified in torch_api.TENSOR_FACTORIES:
                    # (torch.tensor(n) of a number is a 0-dim tensor, which meets any device)
                    scalar = qualified in ("torch.tensor", "torch.as_tensor", "torch.scalar_tensor")
                    return not scalar and not any(k.arg == "device" for k in node.keywords)
                if not isinstance(node.func, ast.Attribute):
                    return False
                node = node.func.value
            else:
                return False

    def vocabulary(
        self, text: str, tree: ast.Module | None = None, project_functions: Sequence[str] = ()
    ) -> dict[str, str]:
        """Regular expressions for how this file spells things, to fill marker templates:

        - ``{modules}``: calls building a module (``nn.Linear(``, ``Net(``, ``create_model(``);
        - ``{factories}``: torch tensor factory calls (``torch.zeros(``, ``th.ones(``, ``zeros(``);
        - ``{wrappers}``: ``DataParallel`` / ``DistributedDataParallel`` calls, under any alias;
        - ``{classes}``: calls of any class defined in this file.

        ``project_functions``: how this file spells calls of functions of the project's other
        modules, as regular expressions (``make_mask``, or ``helpers`` then a dot and a name); such a
        call may build a module or a tensor, as the function's summary will tell.

        Spelled from the import table and every class name.  Imports of torch below the top
        level are first added to the table from ``tree`` (a full walk, only for such files), so
        markers stay necessary conditions.
        """
        cached = self.__dict__.get("_vocabulary")
        if cached is not None:
            return cached
        if tree is not None and _NESTED_IMPORTS.search(text):
            for node in all_statements(tree.body):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    self.add_ast_import(node)
        factory_names = "|".join(sorted({q.rsplit(".", 1)[1] for q in torch_api.TENSOR_FACTORIES}))
        modules = [r"create_model", r"from_pretrained", r"hub\.load", r"models\.\w+", *project_functions]
        factories = list(project_functions)
        wrappers = [r"DataParallel"]
        for local, target in self.imports.items():
            name = re.escape(local)
            if target == "torch.nn":
                modules.append(rf"{name}\.[A-Z]\w*")
            elif target == "torch":
                modules.append(rf"{name}\.nn\.[A-Z]\w*")
                factories.append(rf"{name}\.(?:{factory_names})")
            elif torch_api.is_nn_module_class(target):
                modules.append(name)
                if target in torch_api.INPUT_SCATTERING_WRAPPERS:
                    wrappers.append(name)
            elif target in torch_api.TENSOR_FACTORIES:
                factories.append(name)
        if tree is not None and re.search(rf"\breturn\b[^\n]*\b(?:{factory_names})\s*\(", text):
            factories += [re.escape(name) for name in self._host_making_functions(tree)]
        if self._module_classes is None:
            self._module_classes = self._compute_module_classes()
        nested = {m.group(1) for m in _NESTED_CLASSES.finditer(text)} if "class" in text else set()
        modules += [re.escape(name) for name in sorted(self._module_classes | nested)]
        classes = [re.escape(name) for name in sorted(set(self._class_bases) | nested)]
        vocabulary = {
            "modules": rf"(?:{'|'.join(modules)})\s*\(",
            "factories": rf"(?:{'|'.join(factories)})\s*\(" if factories else "(?!)",
            "wrappers": rf"(?:{'|'.join(wrappers)})\s*\(",
            "classes": rf"(?:{'|'.join(classes)})\s*\(" if classes else "(?!)",
        }
        self.__dict__["_vocabulary"] = vocabulary
        return vocabulary

    @property
    def uses_torch(self) -> bool:
        return any(t == "torch" or t.startswith("torch.") for t in self.imports.values())

    # -- classes -------------------------------------------------------------
    def _add_class(self, node: ast.ClassDef) -> None:
        self._class_bases[node.name] = [d for d in map(ast_dotted_name, node.bases) if d]
        if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "forward" for s in node.body):
            self._with_forward.add(node.name)
        for statement in node.body:
            if isinstance(statement, ast.ClassDef):
                self._add_class(statement)

    def add_cst_class(self, node: cst.ClassDef) -> None:
        """Classes defined inside functions, met while walking the LibCST tree."""
        if node.name.value in self._class_bases:
            return
        self._class_bases[node.name.value] = [d for d in (dotted_name(a.value) for a in node.bases) if d]
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        if any(isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in body):
            self._with_forward.add(node.name.value)
        self._module_classes = None

    def _compute_module_classes(self) -> set[str]:
        seen = self._derived_modules(set())
        # (Only in a file that imports torch: elsewhere ``forward`` means something else.)
        candidates = self._with_forward if self.uses_torch else set()
        evidenced = {n for n in candidates if self._foreign_base(self._class_bases.get(n, []))}
        self._modules_by_evidence = self._derived_modules(evidenced - seen) - seen
        return seen | self._modules_by_evidence

    def add_project_modules(self, names: frozenset[str], plain: frozenset[str] = frozenset()) -> None:
        """Names this file imports from the project's own modules that are module classes there
        (``from .base import BaseWeightedLoss``): a class of this file deriving from one is a module;
        ``plain``: those that are classes known to be no module and not to move what they hold
        (``from .base import AbstractStrategy``)."""
        self._project_modules = names
        self.project_plain_classes = plain
        self._module_classes = None

    def bases_of(self, name: str) -> list[str]:
        """The bases of this file's class ``name``, as written."""
        return list(self._class_bases.get(name, ()))

    def imported_bases(self) -> set[str]:
        """The bases of this file's classes that it imports by name (``from .base import Base``)."""
        return {base for bases in self._class_bases.values() for base in bases if base in self.from_imports}

    def _derived_modules(self, found: set[str]) -> set[str]:
        """``found`` and the classes deriving from them or from ``nn.Module`` and its kin."""
        found = set(found)
        changed = True
        while changed:
            changed = False
            for name, bases in self._class_bases.items():
                if name in found:
                    continue
                for base in bases:
                    qualified = self.qualify_dotted(base)
                    if (
                        base in found
                        or base in self._project_modules
                        or (qualified is not None and torch_api.is_nn_module_class(qualified))
                    ):
                        found.add(name)
                        changed = True
                        break
        return found

    def module_by_evidence(self, name: str) -> bool:
        """A module class of this file only because it defines ``forward`` over a base from elsewhere
        (``nn.Module`` is not among the bases seen here): what registers state cannot be proven."""
        self.is_local_module_class(name)
        return name in self._modules_by_evidence

    def _foreign_base(self, bases: list[str]) -> bool:
        """Does a class derive from a class defined elsewhere that this file cannot see, one not known
        to be anything but a module?  With ``forward`` defined, such a class is a module: a project's
        own ``BaseModel``, ``MessagePassing``, ``PyroModule`` (what else defines ``forward`` is known:
        ``torch.autograd.Function``, and plain Python classes with no base from elsewhere)."""
        foreign = False
        for base in bases:
            head = base.split(".")[0]
            if head in self._class_bases:
                continue  # a class of this file: it decides through its own bases
            qualified = self.qualify_dotted(base)
            if qualified is None:
                if head in _BUILTIN_NAMES or (head not in self.from_imports and not self.star_imports):
                    return False  # a name bound some other way (a parameter, an assignment)
            elif qualified.split(".")[0] in _NOT_MODULE_ROOTS:
                return False  # torch's other classes, the standard library's
            foreign = True
        return foreign

    def is_local_module_class(self, name: str) -> bool:
        if self._module_classes is None:
            self._module_classes = self._compute_module_classes()
        return name in self._module_classes

    def is_lightning_module_class(self, name: str, _seen: frozenset[str] = frozenset()) -> bool:
        for base in self._class_bases.get(name, ()):
            qualified = self.qualify_dotted(base)
            if qualified in torch_api.LIGHTNING_MODULE_BASES:
                return True
            if base in self._class_bases and base not in _seen and self.is_lightning_module_class(base, _seen | {name}):
                return True
        return False

    def class_inherits(self, name: str, qualified_bases: frozenset[str], _seen: frozenset[str] = frozenset()) -> bool:
        """Does local class ``name`` derive (directly or through local classes) from one of these?"""
        for base in self._class_bases.get(name, ()):
            if self.qualify_dotted(base) in qualified_bases:
                return True
            if (
                base in self._class_bases
                and base not in _seen
                and self.class_inherits(base, qualified_bases, _seen | {name})
            ):
                return True
        return False

    def is_model_registry_entry(self, func: cst.BaseExpression) -> bool:
        """``models.__dict__[arch]``: a model class looked up in an imported package of models
        (torchvision's, or the project's own, as pytorch/examples' ImageNet script does)."""
        if not isinstance(func, cst.Subscript):
            return False
        table = func.value
        if not (isinstance(table, cst.Attribute) and table.attr.value == "__dict__"):
            return False
        package = self.qualify(table.value) or ""
        return package.rsplit(".", 1)[-1] == "models"

    def is_module_constructor(self, func: cst.BaseExpression) -> bool:
        """Is ``func(...)`` building an ``nn.Module`` (a torch.nn class or a local subclass, or an
        entry of a package of models)?"""
        if isinstance(func, cst.Name) and self.is_local_module_class(func.value):
            return True
        if self.is_model_registry_entry(func):
            return True
        qualified = self.qualify(func)
        return qualified is not None and torch_api.is_nn_module_class(qualified)
