"""Every misconception applied to every bundled predict step with a numeric answer, BY HAND WITH REAL PyTorch.

The narrow corpus (`misconception_corpus.py`) works 25 answers out one by one. This one applies each belief of
the issue's list, in each variant it names, to the program of every bundled step, the way a learner holding it
would compute the answer — but with `torch` itself, never with the engine's buggy rules (`engine.explain.beliefs`)
that it checks: the step's program is run in real PyTorch with the one piece the learner gets wrong replaced by
a few lines of PyTorch (a `torch.autograd.Function` whose backward is the learner's, a method swapped for the
learner's idea of it, a reading of the run's own values). An answer equal to PyTorch's is no wrong answer and is
left out; a belief that cannot hold on a program (shapes, no such op) gives none.

`learner_answers(source, expression)` → [(misconception id, variant, value)];
`typings(value)` → the ways a learner types it (4 decimals as torch prints, 2 decimals, exact fractions/ints, the
full printout); `random_answers(correct)` → wrong answers no misconception explains (random, ×1.1, one cell off).
"""
from __future__ import annotations

import ast
import contextlib
import io
import math
import sys
from fractions import Fraction
from unittest import mock

import numpy as np


class NotApplicable(Exception):
    """The belief cannot hold on this program."""


def _torch():
    import torch

    return torch


# --- running a step's program in real PyTorch, with a learner's patches ----------------------------------
def _run(source: str, expression: str, patches=()):
    namespace: dict = {"__name__": "__step__"}
    with contextlib.ExitStack() as stack:
        for owner, name, replacement in patches:
            stack.enter_context(mock.patch.object(owner, name, replacement))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(source, "<step>", "exec"), namespace)  # noqa: S102 - a bundled lesson's own program
        value = eval(expression, namespace)  # noqa: S307
    return namespace, value


def _plain(value):
    torch = _torch()
    if value is None:
        return None
    if isinstance(value, torch.Tensor):
        return np.array(torch.Tensor.detach(value).to(torch.float64).numpy(), dtype=np.float64)
    if isinstance(value, bool):
        raise NotApplicable("a bool")
    if isinstance(value, (int, float)):
        return np.float64(value)
    raise NotApplicable(type(value).__name__)


def _straight(value, grad_source):
    """A tensor with `value`'s value and `grad_source`'s gradient (PyTorch's straight-through idiom)."""
    return value.detach() + (grad_source - grad_source.detach())


def _leaves(root) -> list:
    """The leaf tensors a backward from `root` reaches (their AccumulateGrad nodes)."""
    found, seen, todo = [], set(), [root.grad_fn] if root.grad_fn is not None else []
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable)
        todo.extend(next_node for next_node, _ in node.next_functions)
    return found


# --- the beliefs, each a few lines of PyTorch ---------------------------------------------------------------
def _mean_without_n():
    torch = _torch()
    mean, total = torch.Tensor.mean, torch.Tensor.sum

    def believed(self, *args, **kwargs):
        kwargs.pop("dtype", None)
        return _straight(mean(self, *args, **kwargs), total(self, *args, **kwargs))

    functional = torch.nn.functional
    mse = functional.mse_loss

    def mse_loss(x, target, reduction="mean", **kwargs):  # the loss's own mean, its 1/n forgotten too
        if reduction != "mean":
            return mse(x, target, reduction=reduction, **kwargs)
        return _straight(mse(x, target, **kwargs), mse(x, target, reduction="sum", **kwargs))
    return [(torch.Tensor, "mean", believed), (torch, "mean", believed), (functional, "mse_loss", mse_loss)]


def _wrong_dim():
    torch = _torch()
    mean, total = torch.Tensor.mean, torch.Tensor.sum

    def other(reduce, self, *args, **kwargs):
        dim = args[0] if args else kwargs.get("dim")
        keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
        real = reduce(self, *args, **kwargs)
        if dim is None or self.ndim != 2 or not isinstance(dim, int) and len(dim) != 1:
            return real
        d = dim if isinstance(dim, int) else dim[0]
        o = 1 - d % 2
        if reduce is mean:   # divided by the other dim's size
            return _straight(real, total(self, dim=d, keepdim=keepdim) / self.shape[o])
        if self.shape[0] != self.shape[1]:
            raise NotApplicable("a square matrix")
        return _straight(real, total(self, dim=o, keepdim=keepdim))  # the cotangent laid along the other axis
    return [(torch.Tensor, "mean", lambda self, *a, **k: other(mean, self, *a, **k)),
            (torch.Tensor, "sum", lambda self, *a, **k: other(total, self, *a, **k))]


def _function(forward_fn, backward_fn):
    """A torch.autograd.Function from a forward and the learner's backward (grad, *saved inputs, out)."""
    torch = _torch()

    class Believed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            out = forward_fn(*inputs)
            ctx.save_for_backward(*inputs, out)
            return out

        @staticmethod
        def backward(ctx, grad):
            return backward_fn(grad, *ctx.saved_tensors)
    return Believed.apply


def _softmax_diagonal():
    torch = _torch()
    softmax, log_softmax = torch.softmax, torch.log_softmax

    def soft(x, dim=None, **_):
        return _function(lambda a: softmax(a, dim), lambda g, a, out: g * out * (1 - out))(x)

    def log_soft(x, dim=None, **_):
        return _function(lambda a: log_softmax(a, dim), lambda g, a, out: g * (1 - out.exp()))(x)
    functional = torch.nn.functional
    return [(torch, "softmax", soft), (torch.Tensor, "softmax", soft), (functional, "softmax", soft),
            (torch, "log_softmax", log_soft), (torch.Tensor, "log_softmax", log_soft),
            (functional, "log_softmax", log_soft)]


def _matmul(variant):
    torch = _torch()
    matmul = torch.matmul

    def backward(g, a, b, out):
        column = b.ndim == 1
        b2, g2 = (b[:, None], g[..., None]) if column else (b, g)
        if variant == "plain":
            ga, gb = g2 @ b2, a @ g2
        else:
            ga, gb = b2.mT @ g2, g2 @ a.mT
        if column:
            ga, gb = ga.reshape(a.shape) if ga.numel() == a.numel() else ga, gb.reshape(b.shape) \
                if gb.numel() == b.numel() else gb
        if ga.shape != a.shape or gb.shape != b.shape:
            raise NotApplicable("shapes")
        return ga, gb

    def believed(a, b, **_):
        if a.ndim != 2 or b.ndim not in (1, 2):
            raise NotApplicable("a matrix times a matrix or vector")
        return _function(matmul, backward)(a, b)
    return [(torch, "matmul", believed), (torch.Tensor, "__matmul__", believed), (torch.Tensor, "matmul", believed),
            (torch, "mm", believed), (torch.Tensor, "mm", believed), (torch, "mv", believed),
            (torch.Tensor, "mv", believed)]


def _kink(side):
    """The input moved one float step to `side` where relu/abs/clamp/maximum/minimum read it (gradient
    passing straight through): the one-sided derivative from the other side."""
    torch = _torch()
    inf = math.inf * side

    def moved(x):
        return _straight(torch.nextafter(x.detach(), torch.full_like(x.detach(), inf)), x)

    def one(fn):
        return lambda x, *args, **kwargs: fn(moved(x), *args, **kwargs)
    functional = torch.nn.functional
    return [(torch, "relu", one(torch.relu)), (torch.Tensor, "relu", one(torch.Tensor.relu)),
            (functional, "relu", one(functional.relu)), (torch, "abs", one(torch.abs)),
            (torch.Tensor, "abs", one(torch.Tensor.abs)), (torch, "clamp", one(torch.clamp)),
            (torch.Tensor, "clamp", one(torch.Tensor.clamp)), (torch, "maximum", one(torch.maximum)),
            (torch, "minimum", one(torch.minimum))]


def _ties(rule):
    """max/min reductions at a tie, the gradient given as the learner believes: all to the first tied element,
    all to the last, or shared."""
    torch = _torch()
    reducers = {"max": torch.Tensor.max, "min": torch.Tensor.min}

    def weights(x, picked, dim):
        tied = (x.detach() == picked.detach()).to(x.dtype)
        if rule == "split":
            return tied / tied.sum(dim=dim, keepdim=True)
        order = torch.arange(x.shape[dim]).reshape([-1 if i == dim % x.ndim else 1 for i in range(x.ndim)])
        order = order.to(x.dtype) if rule == "last" else (x.shape[dim] - order).to(x.dtype)
        ranked = tied * (order + 1)
        return (ranked == torch.amax(ranked, dim=dim, keepdim=True)).to(x.dtype)

    def believed(name):
        real = reducers[name]

        def reduce(self, *args, **kwargs):
            result = real(self, *args, **kwargs)
            if not args and "dim" not in kwargs:  # the whole tensor
                flat = self.reshape(-1)
                return _straight(result, (flat * weights(flat, result.reshape(1), 0)).sum())
            dim = args[0] if args else kwargs["dim"]
            keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
            kept = result.values if keepdim else result.values.unsqueeze(dim)
            values = _straight(result.values, (self * weights(self, kept, dim)).sum(dim=dim, keepdim=keepdim))
            return torch.return_types.max((values, result.indices)) if name == "max" \
                else torch.return_types.min((values, result.indices))
        return reduce
    return [(torch.Tensor, "max", believed("max")), (torch.Tensor, "min", believed("min"))]


_ARITHMETIC = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__")


def _broadcast(variant, expanded: dict):
    """Each tensor operand that arithmetic broadcasts is expanded explicitly first: its gradient averaged over
    the copies ("averaged"), or (variant "copies") read off the expanded copy itself, never summed back."""
    torch = _torch()
    originals = {name: getattr(torch.Tensor, name) for name in _ARITHMETIC}

    def spread(x, shape):
        if variant == "averaged":
            share = x.numel() / max(1, math.prod(shape))
            return _function(lambda a: a.expand(shape).clone(), lambda g, a, out: g.sum_to_size(a.shape) * share)(x)
        copy = x.expand(shape)
        if x.requires_grad:
            copy.retain_grad()
            expanded.setdefault(id(x), []).append((x, copy))
        return copy

    def arithmetic(name):
        real = originals[name]

        def op(self, other):
            if not isinstance(other, torch.Tensor):
                return real(self, other)
            shape = torch.broadcast_shapes(self.shape, other.shape)
            a = self if self.shape == shape else spread(self, shape)
            b = other if other.shape == shape else spread(other, shape)
            return real(a, b)
        return op
    return [(torch.Tensor, name, arithmetic(name)) for name in _ARITHMETIC] + [
        (torch.nn.functional, "linear", lambda x, w, b=None: x.matmul(w.t()) if b is None else x.matmul(w.t()) + b)]


_INPLACE = ("add_", "sub_", "mul_", "div_", "copy_", "fill_", "zero_", "__iadd__", "__isub__", "__imul__",
            "__itruediv__")


def _flows_through_detach():
    """detach() keeps the graph; a no_grad block records what it computes (a write into a leaf inside it, as
    in initialising weights, is still not recorded: the learner knows no_grad is for that)."""
    torch = _torch()
    real_no_grad, inside = torch.no_grad, []

    class NoGrad:  # the learner's no_grad: records all the same
        def __new__(cls, *args):
            if sys._getframe(1).f_code.co_filename != "<step>":  # torch's own (nn.init…): the real one
                return real_no_grad(*args)
            return super().__new__(cls)

        def __enter__(self):
            inside.append(True)
            return self

        def __exit__(self, *exc):
            inside.pop()
            return False

        def __call__(self, fn):
            return fn

    def unrecorded(name):
        real = getattr(torch.Tensor, name)

        def write(self, *args, **kwargs):
            if inside and self.is_leaf and self.requires_grad:
                with real_no_grad():
                    return real(self, *args, **kwargs)
            return real(self, *args, **kwargs)
        return write
    return [(torch.Tensor, "detach", lambda self: self), (torch, "no_grad", NoGrad)] + [
        (torch.Tensor, name, unrecorded(name)) for name in _INPLACE]


def _product_one_term(kept: int):
    """f·g where both factors depend on one leaf: only the term through factor `kept` (0: f'·g, 1: f·g')."""
    torch = _torch()
    reals = {name: getattr(torch.Tensor, name) for name in ("__mul__", "__rmul__")}

    def shared(a, b) -> bool:
        def leaves(t):
            return {id(t)} if t.grad_fn is None else {id(x) for x in _leaves(t)}
        return bool(leaves(a) & leaves(b))

    def product(name):
        real = reals[name]

        def mul(self, other):
            if isinstance(other, torch.Tensor) and self.requires_grad and other.requires_grad and shared(self, other):
                first, second = (self, other) if name == "__mul__" else (other, self)
                first, second = (first, second.detach()) if kept == 0 else (first.detach(), second)
                return real(first, second) if name == "__mul__" else real(second, first)
            return real(self, other)
        return mul
    return [(torch.Tensor, name, product(name)) for name in reals] + [
        (torch, "mul", lambda a, b: a * b)]


_UNARY = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "log1p", "reciprocal", "neg")


def _chain_missing_inner():
    """f(g(x)) differentiated as f'(g(x)) only: an elementwise function (exp, log, pow, sin…, a product or
    quotient with a number) applied to another one's result passes its gradient straight to what the inner
    chain started from (the inner derivatives forgotten)."""
    torch = _torch()
    started: dict = {}   # id(result of an elementwise fn) -> (result, the tensor its chain started from)

    def chained(real):
        def fn(self, *args, **kwargs):
            if not isinstance(self, torch.Tensor):
                return real(self, *args, **kwargs)
            if any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
                return real(self, *args, **kwargs)   # a function of two tensors: not a chain link
            start = started.get(id(self))
            if start is not None and (start[0] is not self or self._backward_hooks or self.retains_grad):
                start = None   # (a hooked or retained result: its gradient is seen, the chain is broken there)
            x = self if start is None else _straight(self, start[1])
            out = real(x, *args, **kwargs)
            if isinstance(out, torch.Tensor) and out.requires_grad:
                started[id(out)] = (out, self if start is None else start[1])
            return out
        return fn
    names = _UNARY + ("__pow__", "pow", "__mul__", "__rmul__", "__truediv__", "mul", "div")
    patches = [(torch.Tensor, name, chained(getattr(torch.Tensor, name))) for name in names]
    return patches + [(torch, name, chained(getattr(torch, name))) for name in _UNARY + ("pow", "sigmoid")]


def _grad_replaced():
    torch = _torch()
    backward = torch.Tensor.backward

    def replaced(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        leaves = list(inputs) if inputs is not None else _leaves(self)
        kept = [(leaf, leaf.grad) for leaf in leaves]
        for leaf in leaves:
            leaf.grad = None
        backward(self, gradient, retain_graph, create_graph, inputs)
        for leaf, grad in kept:
            if leaf.grad is None:
                leaf.grad = grad
    return [(torch.Tensor, "backward", replaced)]


def _jacobian_times_v():
    torch = _torch()
    backward = torch.Tensor.backward

    def jv(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if gradient is None or self.numel() == 1:
            return backward(self, gradient, retain_graph, create_graph, inputs)
        v = torch.as_tensor(gradient, dtype=self.dtype).reshape(-1)
        m = self.numel()
        for leaf in (list(inputs) if inputs is not None else _leaves(self)):
            if leaf.numel() != m:
                raise NotApplicable("a square Jacobian")
            rows = []
            for k in range(m):
                e = torch.zeros(m, dtype=self.dtype)
                e[k] = 1
                (row,) = torch.autograd.grad(self, leaf, e.reshape(self.shape), retain_graph=True, allow_unused=True)
                rows.append(torch.zeros(m) if row is None else row.reshape(-1))
            jac = torch.stack(rows)          # J[i, j] = d out_i / d leaf_j
            product = (jac @ v).reshape(leaf.shape)   # J·v, not vᵀJ
            leaf.grad = product if leaf.grad is None else leaf.grad + product
    return [(torch.Tensor, "backward", jv)]


def _zero_grad_zeros():
    torch = _torch()
    optimizer, module = torch.optim.Optimizer.zero_grad, torch.nn.Module.zero_grad
    return [(torch.optim.Optimizer, "zero_grad", lambda self, set_to_none=True: optimizer(self, False)),
            (torch.nn.Module, "zero_grad", lambda self, set_to_none=True: module(self, False))]


# --- readings of the run's own values -------------------------------------------------------------------------
def _recorder(record: dict):
    """Patches that note backward roots, autograd.grad calls and what each full sum/mean reduced."""
    torch = _torch()
    backward, grad, total, mean = torch.Tensor.backward, torch.autograd.grad, torch.Tensor.sum, torch.Tensor.mean

    def noted_backward(self, *args, **kwargs):
        record.setdefault("roots", []).append(self)
        return backward(self, *args, **kwargs)

    def noted_grad(outputs, inputs, *args, **kwargs):
        results = grad(outputs, inputs, *args, **kwargs)
        record.setdefault("grads", []).append((outputs, inputs, results))
        return results

    def reduction(real):
        def reduce(self, *args, **kwargs):
            out = real(self, *args, **kwargs)
            if not args and not kwargs:
                record.setdefault("reduced", {})[id(out)] = (out, self)
            return out
        return reduce
    return [(torch.Tensor, "backward", noted_backward), (torch.autograd, "grad", noted_grad),
            (torch.Tensor, "sum", reduction(total)), (torch.Tensor, "mean", reduction(mean))]


def _as_list(x):
    torch = _torch()
    return [x] if isinstance(x, torch.Tensor) else list(x)


def _value_readings(source, expression, correct) -> list[tuple[str, str, object]]:
    """value-not-gradient (the differentiated tensor's value; the function's value) and all-ones, for a step
    asking for a gradient (`….grad`, or what autograd.grad returned)."""
    record: dict = {}
    namespace, value = _run(source, expression, _recorder(record))
    torch = _torch()
    tree = ast.parse(expression, mode="eval").body
    differentiated, functions = [], []
    if isinstance(tree, ast.Attribute) and tree.attr == "grad":
        differentiated.append(eval(ast.unparse(tree.value), namespace))  # noqa: S307
        functions.extend(record.get("roots", []))
    else:
        for outputs, inputs, results in record.get("grads", []):
            for k, result in enumerate(results):
                if result is value:
                    differentiated.append(_as_list(inputs)[k])
                    functions.extend(_as_list(outputs))
    if not differentiated:
        return []
    found = [("value-not-gradient", "value", differentiated[0])]
    for f in functions:
        found.append(("value-not-gradient", "function", f))
        out, reduced = record.get("reduced", {}).get(id(f), (None, None))
        if reduced is not None:
            found.append(("value-not-gradient", "function", reduced))
    found.append(("all-ones", "", torch.ones_like(torch.as_tensor(value))))
    return found


def _chained_expression(expression):
    tree = ast.parse(expression, mode="eval").body
    return tree if isinstance(tree, ast.Attribute) and tree.attr == "grad" else None


BELIEFS = {  # id -> [(variant, patches factory)]
    "mean-without-n": [("", _mean_without_n)],
    "wrong-dim": [("", _wrong_dim)],
    "softmax-diagonal-only": [("", _softmax_diagonal)],
    "matmul-no-transpose": [("plain", lambda: _matmul("plain")), ("swapped", lambda: _matmul("swapped"))],
    "kink-other-side": [("above", lambda: _kink(1)), ("below", lambda: _kink(-1)),
                        ("tie-first", lambda: _ties("first")), ("tie-last", lambda: _ties("last")),
                        ("tie-shared", lambda: _ties("split"))],
    "flows-through-detach": [("", _flows_through_detach)],
    "grad-replaced": [("", _grad_replaced)],
    "chain-missing-inner": [("", _chain_missing_inner)],
    "product-rule-one-term": [("first", lambda: _product_one_term(0)), ("second", lambda: _product_one_term(1))],
    "jacobian-times-v": [("", _jacobian_times_v)],
    "zero-grad-zeros": [("", _zero_grad_zeros)],
}


def learner_answers(source: str, expression: str) -> list[tuple[str, str, np.ndarray | None]]:
    """[(misconception, variant, the learner's answer)] for one step, each differing from PyTorch's answer."""
    _, correct = _run(source, expression)
    correct = _plain(correct)
    found = []
    for key, variants in BELIEFS.items():
        for variant, patches in variants:
            try:
                _, value = _run(source, expression, patches())
                found.append((key, variant, _plain(value)))
            except Exception:  # noqa: BLE001, S112 - the belief cannot hold on this program
                continue
    for variant in ("averaged", "copies"):
        expanded: dict = {}
        try:
            namespace, value = _run(source, expression, _broadcast(variant, expanded))
            if variant == "copies":
                tree = _chained_expression(expression)
                if tree is None:
                    continue
                base = eval(ast.unparse(tree.value), namespace)  # noqa: S307
                copies = expanded.get(id(base), [])
                if len(copies) != 1 or copies[0][0] is not base or copies[0][1].grad is None:
                    continue
                value = copies[0][1].grad
            found.append(("broadcast-not-summed", variant, _plain(value)))
        except Exception:  # noqa: BLE001, S112
            continue
    try:
        found.extend((key, variant, _plain(value)) for key, variant, value in _value_readings(source, expression,
                                                                                              correct))
    except Exception:  # noqa: BLE001, S110
        pass
    kept = []
    for key, variant, value in found:
        if value is None or _same(value, correct) or not np.all(np.isfinite(value)):
            continue
        if np.shape(value) != np.shape(correct) and variant != "copies":
            continue  # (the function's value where the gradient has another shape: not what is asked)
        if any(k == key and _same(value, v) for k, _, v in kept):
            continue
        kept.append((key, variant, value))
    return kept


def _same(value, correct) -> bool:
    if correct is None:
        return value is None
    value, correct = np.asarray(value), np.asarray(correct)
    return value.shape == correct.shape and bool(np.allclose(value, correct, rtol=1e-4, atol=1e-5))


# --- how a learner types it -----------------------------------------------------------------------------------
def _exact(x: float) -> str | None:
    fraction = Fraction(float(x)).limit_denominator(64)
    if abs(float(fraction) - float(x)) > 1e-6 * max(1.0, abs(float(x))):
        return None
    return str(fraction.numerator) if fraction.denominator == 1 else f"{fraction.numerator}/{fraction.denominator}"


def _nested(array: np.ndarray, cell) -> str:
    if array.ndim == 0:
        return cell(float(array))
    return "[" + ", ".join(_nested(row, cell) for row in array) + "]"


def typings(value) -> dict[str, str]:
    """{"4dp": …, "2dp": …, "exact": … (where every cell is a small fraction), "repr": torch's printout}."""
    torch = _torch()
    array = np.asarray(value, dtype=np.float64) + 0.0
    typed = {"4dp": _nested(np.round(array, 4) + 0.0, lambda x: repr(float(x))),
             "2dp": _nested(np.round(array, 2) + 0.0, lambda x: repr(float(x)))}
    cells = [_exact(x) for x in array.reshape(-1)]
    if all(cell is not None for cell in cells):
        typed["exact"] = _nested(array, _exact)
    typed["repr"] = repr(torch.tensor(array, dtype=torch.float32))
    return typed


def random_answers(correct, seed: int) -> list[np.ndarray]:
    """Wrong answers that no belief explains: random numbers near the answer, the answer ×1.1, one cell off."""
    rng = np.random.default_rng(seed)
    correct = np.asarray(correct, dtype=np.float64)
    answers = []
    for _ in range(4):
        noise = rng.integers(1, 9, size=correct.shape) * rng.choice([-1, 1], size=correct.shape) * 0.37
        answers.append(np.round(correct + noise, 4))
    answers.append(np.round(correct * 1.1 + (correct == 0) * 0.1, 4))
    off = correct.copy().reshape(-1)
    off[rng.integers(0, off.size)] += 1.25
    answers.append(np.round(off.reshape(correct.shape), 4))
    return answers


# --- the corpus ------------------------------------------------------------------------------------------------
def numeric_steps():
    """[(lesson, step, answer)] for every bundled predict step whose answer is a number, a tensor or None."""
    from lessons.answers import AnswerError, compute_answer
    from lessons.course import load_course
    from lessons.model import PredictStep

    found = []
    for lesson in load_course((), user_dir=None).lessons:
        for step in lesson.steps:
            if not isinstance(step, PredictStep):
                continue
            try:
                answer = compute_answer(lesson, step)
            except AnswerError:
                continue
            if answer.kind in ("tensor", "number", "none") and np.asarray(answer.value).dtype != bool:
                found.append((lesson, step, answer))
    return found


def corpus(steps=None) -> list[tuple[str, str, str, str, str]]:
    """[(lesson:step, misconception, variant, typing, text)] over `steps` (default: every numeric step)."""
    entries = []
    for lesson, step, answer in steps or numeric_steps():
        target = f"{lesson.id}:{step.id}"
        for key, variant, value in learner_answers(answer.run.source, step.expression):
            for typing, text in typings(value).items():
                entries.append((target, key, variant, typing, text))
    return entries
