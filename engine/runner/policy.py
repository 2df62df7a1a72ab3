"""The static allow-list: which syntax a snippet may use, checked before any of it runs.

Every node type of the parsed tree must be on the allow-list below; anything else (async code, `match`,
imports other than torch and math, dunder names, ...) is refused with its line,
column (1-based) and a plain-language reason.  This is the first wall; `guards` is the second, at run
time, because a static check cannot know what `x` is in `x.something`.
"""
from __future__ import annotations

import ast
import builtins
import types
from collections.abc import Iterator

from .errors import Phrase, SnippetError, for_safety, reason
from .limits import Limits
from .surface import MATH_NAMES, SAFE_BUILTINS, engine_module, public_names

_ALLOWED = {
    # statements
    ast.Module, ast.Expression, ast.Expr, ast.Assign, ast.AugAssign, ast.For, ast.While, ast.If,
    ast.Break, ast.Continue, ast.Pass, ast.FunctionDef, ast.Return, ast.With, ast.Assert,
    ast.Import, ast.ImportFrom, ast.Delete, ast.ClassDef,  # classes: only the shape `check_ClassDef` allows
    ast.AnnAssign, ast.Try, ast.ExceptHandler, ast.Raise, ast.Starred,  # learners' Python (guarded in rewrite)
    ast.Global, ast.Nonlocal,  # bind names like any assignment (check_Global)
    # expressions
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Lambda, ast.IfExp, ast.Dict, ast.Set, ast.ListComp,
    ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Compare, ast.Call, ast.FormattedValue,
    ast.Yield, ast.YieldFrom,  # the snippet's own generators (a batch loader); `yield from` ticks per element
    ast.JoinedStr, ast.Constant, ast.Attribute, ast.Subscript, ast.Name, ast.List, ast.Tuple, ast.Slice,
    # pieces
    ast.Load, ast.Store, ast.Del, ast.comprehension, ast.arguments, ast.arg, ast.keyword, ast.alias,
    ast.withitem,
    ast.And, ast.Or, ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.Mod, ast.Pow, ast.LShift,
    ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd, ast.FloorDiv, ast.Invert, ast.Not, ast.UAdd,
    ast.USub, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
}

_REASONS = {  # catalogue keys (engine.explain.messages)
    "TryStar": "try_star_not_supported",
    "Await": "async_not_supported",
    "AsyncFunctionDef": "async_not_supported",
    "AsyncFor": "async_not_supported",
    "AsyncWith": "async_not_supported",
    "NamedExpr": "walrus_not_supported",
    "Match": "match_not_supported",
}

_MAX_DEPTH = 100
_LITERAL_TYPES = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))
FORBIDDEN_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_")) - set(SAFE_BUILTINS) - {
    "True", "False", "None", "Ellipsis", "NotImplemented",
}


def parse_checked(
    source: str, *, mode: str = "exec", limits: Limits | None = None,
    bound: frozenset[str] = frozenset(), filename: str = "<snippet>",
) -> tuple[ast.AST | None, list[SnippetError]]:
    """Parse and check `source`; return the tree (None if unparsable) and every refusal found."""
    limits = limits or Limits()
    if len(source) > limits.max_source:
        return None, [SnippetError.of("SnippetRejected", reason("source_too_long", length=len(source),
                                                                limit=limits.max_source), 1, 1)]
    try:
        tree = ast.parse(source, filename=filename, mode=mode)
    except SyntaxError as exc:
        return None, [SnippetError("SyntaxError", exc.msg, exc.lineno, exc.offset)]
    except ValueError as exc:  # e.g. a NUL byte
        return None, [SnippetError.of("SyntaxError", reason("cannot_be_read", error=exc))]
    except (RecursionError, MemoryError):
        return None, [SnippetError.of("SnippetRejected", reason("nested_too_deep_to_read"))]
    checker = _Checker(limits, bound | _bound_names(tree))
    checker.visit(tree)
    return tree, sorted(checker.errors, key=lambda e: (e.line or 0, e.column or 0))


def check_source(source: str, *, limits: Limits | None = None) -> list[SnippetError]:
    """The static allow-list check alone (used by `autograd-tutor check` on lesson code)."""
    return parse_checked(source, limits=limits)[1]


def _bound_names(tree: ast.AST) -> set[str]:
    """Every name the snippet binds somewhere, so `input = torch.ones(2)` may shadow a builtin."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


class _Checker(ast.NodeVisitor):
    def __init__(self, limits: Limits, bound: set[str] | frozenset[str]) -> None:
        self.limits = limits
        self.bound = bound
        self.errors: list[SnippetError] = []
        self.depth = 0
        self.top_level: set[int] = set()  # ids of the module's own statements (where a class may stand)
        self.approved: set[int] = set()  # ids of nodes a class statement allows: `__init__`, `super()`, `@staticmethod`

    def refuse(self, node: ast.AST, reason: str) -> None:
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        self.errors.append(SnippetError.of("SnippetRejected", for_safety(reason), line, None if col is None else col + 1))

    def visit(self, node: ast.AST) -> None:
        if type(node) not in _ALLOWED:
            name = type(node).__name__
            self.refuse(node, reason(_REASONS[name]) if name in _REASONS else reason("syntax_not_supported", name=name))
            return
        self.depth += 1
        try:
            if self.depth > _MAX_DEPTH:
                self.refuse(node, reason("nested_levels", limit=_MAX_DEPTH))
                return
            check = getattr(self, "check_" + type(node).__name__, None)
            if check is not None:
                check(node)
            self.generic_visit(node)
        finally:
            self.depth -= 1

    # --- names and attributes --------------------------------------------------------------------

    def check_Module(self, node: ast.Module) -> None:
        self.top_level = {id(statement) for statement in node.body}

    def check_Name(self, node: ast.Name) -> None:
        if id(node) in self.approved:  # `super` of `super().name` in a method, `staticmethod` decorating one
            return
        if node.id == "super":
            self.refuse(node, reason("super_forms"))
        elif node.id.startswith("__") and not (node.id in READABLE_DUNDERS and isinstance(node.ctx, ast.Load)):
            self.refuse(node, reason("dunder_internal", name=node.id))
        elif isinstance(node.ctx, ast.Load) and node.id in FORBIDDEN_BUILTINS and node.id not in self.bound:
            self.refuse(node, reason("builtin_unavailable", name=node.id))

    def check_Attribute(self, node: ast.Attribute) -> None:
        if _calls_super(node.value) and id(node) not in self.approved:
            return  # `super(C, self).__init__`, `super().__class__`: the refusal of `super` says what is supported
        if node.attr.startswith("_") and id(node) not in self.approved and not (
                node.attr in READABLE_DUNDERS | READABLE_PRIVATE and isinstance(node.ctx, ast.Load)) and not (
                node.attr.startswith("_saved_") and isinstance(node.ctx, ast.Load)):  # graph nodes only (surface)
            self.refuse(node, reason("private_internal", name=f".{node.attr}"))

    def check_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, _LITERAL_TYPES):
            self.refuse(node, reason("literal_not_supported"))
        elif isinstance(node.value, (str, bytes)) and len(node.value) > self.limits.max_literal:
            self.refuse(node, reason("literal_too_long", length=len(node.value), limit=self.limits.max_literal))

    # --- imports: only torch (the engine) --------------------------------------------------------

    def check_alias(self, node: ast.alias) -> None:
        # `import torch as __builtins__` / `from torch import ones as __sg_tick` bind a name like any
        # assignment does, so they obey the same rule (the guards and `__builtins__` are `__` names)
        self.check_bound_name(node, node.asname or node.name.split(".")[0], ("what_import_alias", {}))

    def check_ExceptHandler(self, node: ast.AST) -> None:  # reached only if try/except is allowed
        if getattr(node, "name", None):
            self.check_bound_name(node, node.name, ("what_except_as", {}))

    def check_bound_name(self, node: ast.AST, name: str, what: Phrase) -> None:
        """The one rule for every name a snippet binds (assignment, for, with, def, parameter,
        comprehension, import alias, except-as, del): no `__` names, which are the runner's own."""
        if name.startswith("__"):
            self.refuse(node, reason("dunder_binding", name=name, what=what))

    def check_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name in ("torch", "math"):
                continue
            if engine_submodule_exists(alias.name):  # `import torch.nn` binds torch, `... as nn` binds nn
                continue
            self.refuse(node, reason("import_only_torch", name=alias.name))

    def check_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module == "math" and not node.level:
            for alias in node.names:
                if alias.name not in MATH_NAMES:
                    self.refuse(node, reason("math_name_unavailable", name=alias.name))
            return
        if node.level or not (module == "torch" or engine_submodule_exists(module)):
            self.refuse(node, reason("import_from_only_torch", name=f"{'.' * node.level}{module}"))
            return
        available = public_names(import_engine_module(module))
        for alias in node.names:
            if alias.name not in available:
                self.refuse(node, reason("not_in_tutor_torch", name=alias.name))

    # --- functions -------------------------------------------------------------------------------

    def check_FunctionDef(self, node: ast.FunctionDef) -> None:
        # decorators are applied through the call guard and annotations are guarded expressions (rewrite)
        if node.name.startswith("__") and id(node) not in self.approved:
            self.refuse(node, reason("dunder_unavailable", name=node.name))

    def check_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self.check_bound_name(node, name, ("what_name_of", {"kind": type(node).__name__.lower()}))

    check_Nonlocal = check_Global

    def check_arg(self, node: ast.arg) -> None:
        if node.arg.startswith("__"):
            self.refuse(node, reason("dunder_unavailable", name=node.arg))

    # --- classes: torch.autograd.Function and torch.nn.Module subclasses ---------------------------

    def check_ClassDef(self, node: ast.ClassDef) -> None:
        """`class Name(Base):` at the top level, one plainly named base (which the class guard checks is
        Function, Module or the snippet's own class), no keywords or decorators, and a body of methods,
        a docstring and literal constants: nothing else can run while the class is built."""
        self.check_bound_name(node, node.name, ("what_name_of", {"kind": "class"}))
        if id(node) not in self.top_level:
            self.refuse(node, reason("class_top_level_only"))
        if node.decorator_list:
            self.refuse(node.decorator_list[0], reason("class_decorators_unsupported"))
        if node.keywords:
            self.refuse(node.keywords[0], reason("class_keywords_unsupported"))
        if len(node.bases) > 1 or node.bases and not _is_dotted_name(node.bases[0]):
            self.refuse(node.bases[1] if len(node.bases) > 1 else node.bases[0], reason("class_bases_rule"))
        elif node.bases and isinstance(node.bases[0], ast.Name) and node.bases[0].id == "object":
            self.approved.add(id(node.bases[0]))  # `class Config(object):`, a plain class like `class Config:`
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef):
                self._check_method(statement)
            elif isinstance(statement, (ast.Assign, ast.AnnAssign)):  # `lr = 0.1`, `name: str = "tiny"`
                for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
                    if not isinstance(target, ast.Name):
                        self.refuse(target, reason("class_attribute_form"))
                    elif target.id.startswith("_"):
                        self.refuse(statement, reason("class_attribute_private", name=target.id))
            elif not (isinstance(statement, ast.Pass) or isinstance(statement, ast.Expr) and isinstance(
                    statement.value, ast.Constant) and isinstance(statement.value.value, str)):
                self.refuse(statement, reason("class_body_rule"))

    def _check_method(self, method: ast.FunctionDef) -> None:
        if method.name == "__init__":
            self.approved.add(id(method))
        elif method.name.startswith("_"):
            self.refuse(method, reason("class_method_name", name=method.name))
        for decorator in method.decorator_list:  # `@staticmethod` is the runner's; others apply through the call guard
            if isinstance(decorator, ast.Name) and decorator.id == "staticmethod":
                self.approved.add(id(decorator))
        parameters = [*method.args.posonlyargs, *method.args.args]
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list)
        explicit_only = not parameters  # zero-argument super() needs the instance
        for node in _own_nodes(method.body):
            if is_super_attribute(node) and (node.attr == "__init__" or not node.attr.startswith("_")) and (
                    node.value.args or not explicit_only):
                self.approved.update({id(node), id(node.value.func)})
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and parameters and not static
                  and node.value.id == parameters[0].arg and node.attr.startswith("_")
                  and not node.attr.startswith("__")):
                self.approved.add(id(node))  # `self._lr`: the guards allow the instance's own private names only

    # --- shapes of targets and calls -------------------------------------------------------------

    def check_comprehension(self, node: ast.comprehension) -> None:
        self._simple_target(node.target, ("what_comprehension", {}))

    def check_For(self, node: ast.For) -> None:
        self._simple_target(node.target, ("what_for_loop", {}))

    def check_With(self, node: ast.With) -> None:
        for item in node.items:
            if item.optional_vars is not None and not isinstance(item.optional_vars, ast.Name):
                self.refuse(item.optional_vars, reason("with_as_single"))

    def check_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if not isinstance(target, (ast.Name, ast.Subscript, ast.Attribute)):
                self.refuse(target, reason("del_forms"))

    def _simple_target(self, target: ast.AST, where: Phrase) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._simple_target(element.value if isinstance(element, ast.Starred) else element, where)
        elif not isinstance(target, ast.Name):
            self.refuse(target, reason("plain_target", where=where))


# the dunder names a snippet may read: a module's, class's or function's `__name__` (`if __name__ == "__main__":`,
# `type(y.grad_fn).__name__`); never bound, and as an attribute answered by the attribute guard
READABLE_DUNDERS = frozenset({"__name__"})
# a tensor's version counter, read as PyTorch's lessons on in-place operations do (the surface allows it on tensors only)
READABLE_PRIVATE = frozenset({"_version"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def is_super_attribute(node: ast.AST) -> bool:
    """`super().name` or `super(Class, obj).name` read, both names plain (the uses of super a method may make;
    `rewrite` gives the first the method's class and self)."""
    return (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _calls_super(node.value)
            and len(node.value.args) in (0, 2) and all(isinstance(a, ast.Name) for a in node.value.args)
            and not node.value.keywords)


def _calls_super(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _own_nodes(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a function body that run in its own frame (not inside a nested def, lambda or comprehension)."""
    pending: list[ast.AST] = list(statements)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, _SCOPES):
            pending.extend(ast.iter_child_nodes(node))


def _is_dotted_name(node: ast.AST) -> bool:
    """`Module`, `nn.Module`, `torch.autograd.Function`: names and attributes only (no call, no subscript)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def engine_submodule_exists(dotted: str) -> bool:
    """`torch.a.b` is importable when each part is a module the engine lists in its `__all__`."""
    return dotted.startswith("torch.") and import_engine_module(dotted) is not None


def import_engine_module(dotted: str) -> types.ModuleType | types.SimpleNamespace | None:
    """The engine module a `torch...` import name stands for, reached through public names only (a namespace
    such as `torch.autograd.functional` stands for a module of PyTorch's and is imported like one)."""
    module = engine_module()
    for part in dotted.split(".")[1:]:
        if part not in public_names(module):
            return None
        module = getattr(module, part, None)
        if not isinstance(module, (types.ModuleType, types.SimpleNamespace)):
            return None
    return module
