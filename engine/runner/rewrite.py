"""Rewrite a checked tree so that every risky operation goes through a runtime guard.

The static check cannot know what `x` is in `x.y`, `f(a)` or `a * b`; after this rewrite the
attribute access, the call, the arithmetic, the comparison, the subscript, the f-string format and
the import each become a call of a `__sg_*` guard (see `guards.Guards`), and every loop iteration
and comprehension element ticks the step/time budget.  Snippets cannot name the guards: names
starting with `__` are refused by `policy`.
"""
from __future__ import annotations

import ast
import itertools

from .policy import is_super_attribute

G = "__sg_"  # prefix of the guard names in the snippet's globals


def guard_name(name: str) -> str:
    """`__sg_call__`: the trailing `__` keeps Python from mangling the name inside a class (`_Net__sg_call`)."""
    return f"{G}{name}__"


def rewrite(tree: ast.AST) -> ast.AST:
    """A guarded copy of a tree that passed `policy`."""
    return ast.fix_missing_locations(_Rewriter().visit(tree))


def _guard(name: str, *args: ast.expr, node: ast.AST, keywords: list[ast.keyword] | None = None) -> ast.Call:
    call = ast.Call(func=ast.Name(guard_name(name), ast.Load()), args=list(args), keywords=keywords or [])
    return ast.copy_location(call, node)


def _const(value: object, node: ast.AST) -> ast.Constant:
    return ast.copy_location(ast.Constant(value), node)


def _tick(node: ast.AST) -> ast.Expr:
    return ast.copy_location(ast.Expr(_guard("tick", node=node)), node)


def _has_starred(elements: list[ast.expr]) -> bool:
    return any(isinstance(e, ast.Starred) for e in elements)


def _unpack_parts(elements: list[ast.expr], node: ast.AST) -> list[ast.expr]:
    """The pieces of a display or an argument list: `*xs` gives xs, a plain `a` gives the tuple `(a,)`."""
    return [
        e.value if isinstance(e, ast.Starred) else ast.copy_location(ast.Tuple([e], ast.Load()), e)
        for e in elements
    ]


def _caught(node: ast.AST) -> ast.Expr:
    return ast.copy_location(ast.Expr(_guard("caught", node=node)), node)


class _Rewriter(ast.NodeTransformer):
    def __init__(self) -> None:
        self._temps = itertools.count()
        self._methods: set[int] = set()  # ids of the defs that are methods of a class statement
        self._self: str | None = None  # the first parameter of the method being rewritten (for super())

    def _temp(self) -> str:
        return guard_name(f"t{next(self._temps)}")

    # --- expressions -----------------------------------------------------------------------------

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if is_super_attribute(node) and (node.value.args or self._self is not None):
            # `super().name` (policy allows it directly in a method only) becomes the `super_` guard called with
            # `__class__`, which gives the method Python's own class cell, the method's first parameter and "name";
            # `super(Net, self).name`, with the two names it was given
            if node.value.args:
                cell, instance = node.value.args
            else:
                cell, instance = ast.Name("__class__", ast.Load()), ast.Name(self._self, ast.Load())
            return _guard("super_", ast.copy_location(cell, node), ast.copy_location(instance, node),
                          _const(node.attr, node), node=node)
        value = self.visit(node.value)
        if isinstance(node.ctx, ast.Load):
            return _guard("attr", value, _const(node.attr, node), node=node)
        node.value = _guard("settarget", value, _const(node.attr, node), node=node)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        value, index = self.visit(node.value), self.visit(node.slice)
        if isinstance(node.ctx, ast.Load):
            return _guard("item", value, index, node=node)
        if isinstance(node.ctx, ast.Store):
            value = _guard("store", value, node=node)
        if not isinstance(node.ctx, ast.Load):
            index = _guard("key", index, node=node)  # `d[t] = v` and `del d[t]` hash t
        node.value, node.slice = value, index
        return node

    def visit_Slice(self, node: ast.Slice) -> ast.AST:
        parts = [self.visit(p) if p is not None else _const(None, node) for p in (node.lower, node.upper, node.step)]
        return _guard("slice", *parts, node=node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if _has_starred(node.args):  # f(a, *xs, *ys): the arguments are sized before Python unpacks them
            parts = _unpack_parts(node.args, node)
            return _guard("call_unpacked", node.func, *parts, node=node, keywords=node.keywords)
        return _guard("call", node.func, *node.args, node=node, keywords=node.keywords)

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        return _guard("binop", _const(type(node.op).__name__, node), node.left, node.right, node=node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        ops = [type(op).__name__ for op in node.ops]
        if len(ops) == 1:
            return _guard("cmp", _const(ops[0], node), node.left, node.comparators[0], node=node)
        # a < b < c evaluates b once and stops early: pass the later operands as thunks
        thunks = [
            ast.copy_location(ast.Lambda(args=_no_args(), body=c), c) for c in node.comparators
        ]
        return _guard("chain", _const(tuple(ops), node), node.left, *thunks, node=node)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        self.generic_visit(node)
        spec = node.format_spec if node.format_spec is not None else _const("", node)
        node.value = _guard("fmt", node.value, _const(node.conversion, node), spec, node=node)
        node.conversion, node.format_spec = -1, None
        return node

    def visit_List(self, node: ast.List) -> ast.AST:
        return self._unpacked("list", node)

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        return self._unpacked("tuple", node)

    # set elements and dict keys are hashed where no guard runs (hashing a nested tuple visits all of it)
    def visit_Set(self, node: ast.Set) -> ast.AST:
        self.generic_visit(node)
        node.elts = [e if isinstance(e, ast.Starred) else _guard("key", e, node=e) for e in node.elts]
        return self._unpacked("set", node, visited=True)

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        self.generic_visit(node)
        node.keys = [k if k is None else _guard("key", k, node=k) for k in node.keys]
        return node

    def visit_SetComp(self, node: ast.SetComp) -> ast.AST:
        self.generic_visit(node)
        node.elt = _guard("key", node.elt, node=node.elt)
        return node

    def visit_DictComp(self, node: ast.DictComp) -> ast.AST:
        self.generic_visit(node)
        node.key = _guard("key", node.key, node=node.key)
        return node

    def _unpacked(self, kind: str, node: ast.List | ast.Tuple | ast.Set, visited: bool = False) -> ast.AST:
        """`[a, *xs, *ys]` becomes `__sg_unpack("list", (a,), xs, ys)`: the total is sized before it is built."""
        if not visited:
            self.generic_visit(node)
        if isinstance(getattr(node, "ctx", ast.Load()), ast.Load) and _has_starred(node.elts):
            return _guard("unpack", _const(kind, node), *_unpack_parts(node.elts, node), node=node)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        node.ifs = [_guard("tick", node=node), *node.ifs]  # every element ticks, kept or not
        return node

    # --- statements ------------------------------------------------------------------------------

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        node.body = [_tick(node), *node.body]
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        self.generic_visit(node)
        node.body = [_tick(node), *node.body]
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        method = id(node) in self._methods
        outer, parameters = self._self, [*node.args.posonlyargs, *node.args.args]
        self._self = parameters[0].arg if method and parameters else None
        self.generic_visit(node)
        self._self = outer
        if method:  # a method's only decorator is @staticmethod (policy): the runner's, for the snippet's function
            node.decorator_list = [ast.copy_location(ast.Name(guard_name("static"), ast.Load()), d)
                                   for d in node.decorator_list]
        else:  # `@d` becomes `@__sg_decorator(d)`: d is still evaluated first, and applied through the call guard
            node.decorator_list = [_guard("decorator", d, node=d) for d in node.decorator_list]
        # every call of a snippet function ticks, also when the engine or C makes it (a hook, a module's forward,
        # gradcheck's function): the body starts with a tick (after a docstring)
        at = 1 if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
            and isinstance(node.body[0].value.value, str) else 0
        node.body.insert(at, _tick(node))
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.generic_visit(node)
        node.body = ast.copy_location(ast.BoolOp(ast.And(), [_guard("tick", node=node), node.body]), node.body)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        # the statement itself calls `__build_class__`, which is the runner's class guard (`Guards.build_class`)
        self._methods.update(id(statement) for statement in node.body if isinstance(statement, ast.FunctionDef))
        self.generic_visit(node)
        return node

    def visit_Try(self, node: ast.Try) -> ast.AST:
        self.generic_visit(node)
        # no handler and no finally block runs for a runner stop (limit, refusal): they re-raise it first
        for handler in node.handlers:
            if handler.type is not None:  # before `except T` evaluates T (a NameError there would replace the stop)
                check = _guard("caught", node=handler.type)
                handler.type = ast.copy_location(ast.BoolOp(ast.And(), [check, handler.type]), handler.type)
            handler.body = [_caught(handler), *handler.body]
        if node.finalbody:
            node.finalbody = [_caught(node.finalbody[0]), *node.finalbody]
        return node

    def visit_Raise(self, node: ast.Raise) -> ast.AST:
        self.generic_visit(node)
        if node.exc is not None:
            node.exc = _guard("raise_", node.exc, node=node.exc)
        return node

    def visit_With(self, node: ast.With) -> ast.AST:
        self.generic_visit(node)
        for item in node.items:
            item.context_expr = _guard("ctx", item.context_expr, node=item.context_expr)
        return node

    def visit_Import(self, node: ast.Import) -> list[ast.stmt]:
        out = []
        for alias in node.names:
            # `import torch.nn.functional as F` binds F; `import torch.nn` imports torch.nn and binds torch, as Python
            module = _guard("import_", _const(alias.name, node), node=node)
            if alias.asname is None and "." in alias.name:
                out.append(ast.copy_location(ast.Expr(module), node))
                top = alias.name.split(".")[0]
                module = _guard("import_", _const(top, node), node=node)
            out.append(_assign(alias.asname or alias.name.split(".")[0], module, node))
        return out

    def visit_YieldFrom(self, node: ast.YieldFrom) -> ast.AST:
        # `yield from xs` hands on each element without a loop of the snippet's: every element ticks
        self.generic_visit(node)
        node.value = _guard("ticking", node.value, node=node.value)
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> list[ast.stmt]:
        module = _guard("import_", _const(node.module, node), node=node)
        return [
            _assign(alias.asname or alias.name, _guard("attr", module, _const(alias.name, node), node=node), node)
            for alias in node.names
        ]

    def visit_AugAssign(self, node: ast.AugAssign) -> list[ast.stmt]:
        op = _const(type(node.op).__name__, node)
        value = self.visit(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            current = ast.copy_location(ast.Name(target.id, ast.Load()), target)
            return [_assign(target.id, _guard("iop", op, current, value, node=node), node)]
        # obj.a += v / c[i] += v: evaluate obj (and i) once, as Python does
        holder = self._temp()
        load_holder = ast.copy_location(ast.Name(holder, ast.Load()), target)
        if isinstance(target, ast.Attribute):
            setup = [_assign(holder, _guard("settarget", self.visit(target.value), _const(target.attr, node), node=node), node)]
            current = _guard("attr", load_holder, _const(target.attr, node), node=node)
            store = ast.Attribute(value=load_holder, attr=target.attr, ctx=ast.Store())
        else:
            index = self._temp()
            load_index = ast.copy_location(ast.Name(index, ast.Load()), target)
            setup = [
                _assign(holder, self.visit(target.value), node),
                _assign(index, self.visit(target.slice), node),
            ]
            current = _guard("item", load_holder, load_index, node=node)
            store = ast.Subscript(value=_guard("store", load_holder, node=node), slice=load_index, ctx=ast.Store())
        ast.copy_location(store, target)
        update = ast.copy_location(ast.Assign(targets=[store], value=_guard("iop", op, current, value, node=node)), node)
        return [*setup, update]


def _assign(name: str, value: ast.expr, node: ast.AST) -> ast.Assign:
    target = ast.copy_location(ast.Name(name, ast.Store()), node)
    return ast.copy_location(ast.Assign(targets=[target], value=value), node)


def _no_args() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
