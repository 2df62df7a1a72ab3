"""The built-in quiz templates: random compositions of the engine's operations.

Each template draws a fresh program from a seeded numpy Generator. Values come
from a grid of halves in [-2, 2] without 0, and every operation is applied
only where it is well-conditioned on the values it actually gets (no relu or
abs at a kink, no log/sqrt of a non-positive number, no division by a value
near 0, no saturated tanh or overflowing exp), so the answers are finite,
non-trivial and agree with finite differences. The numpy values here are used
for those checks only; the answers themselves come from running the snippet
on the engine (`tutor.quiz.generator`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lessons.model import LocalText
from tutor.quiz.program import Backward, Program

Rng = np.random.Generator


@dataclass(frozen=True)
class Expr:
    """A piece of forward code and its float64 value (for conditioning checks)."""

    code: str
    value: np.ndarray
    atom: bool = True  # usable without parentheses

    @property
    def wrapped(self) -> str:
        return self.code if self.atom else f"({self.code})"


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


# name -> (code format, forward, is the op well-conditioned on these values?, is the result an atom?)
UNARY: dict[str, tuple[str, Callable, Callable[[np.ndarray], bool], bool]] = {
    "exp": ("torch.exp({})", np.exp, lambda v: v.max() < 2.2, True),
    "sin": ("torch.sin({})", np.sin, lambda v: np.abs(v).max() < 6, True),
    "cos": ("torch.cos({})", np.cos, lambda v: np.abs(v).max() < 6, True),
    "tanh": ("torch.tanh({})", np.tanh, lambda v: np.abs(v).max() < 2.5, True),
    "sigmoid": ("torch.sigmoid({})", _sigmoid, lambda v: np.abs(v).max() < 4, True),
    "square": ("{} ** 2", np.square, lambda v: np.abs(v).max() < 4, False),
    "cube": ("{} ** 3", lambda v: v**3, lambda v: np.abs(v).max() < 2.2, False),
    "relu": ("torch.relu({})", lambda v: np.maximum(v, 0), lambda v: np.abs(v).min() > 0.2 and v.max() > 0, True),
    "abs": ("torch.abs({})", np.abs, lambda v: np.abs(v).min() > 0.2, True),
    "log": ("torch.log({})", np.log, lambda v: v.min() > 0.2, True),
    "sqrt": ("torch.sqrt({})", np.sqrt, lambda v: v.min() > 0.2, True),
    "reciprocal": ("1 / {}", lambda v: 1 / v, lambda v: np.abs(v).min() > 0.4 and np.abs(v).max() < 5, False),
}
# ops whose backward needs a saved tensor (so a second backward through a freed graph fails)
SAVING = ("exp", "sin", "tanh", "sigmoid", "square")

SHAPES: tuple[tuple[int, ...], ...] = ((2,), (3,), (4,), (2, 2), (2, 3), (3, 2))


def grid(rng: Rng, shape: tuple[int, ...], low: float = -2.0, high: float = 2.0) -> np.ndarray:
    """Multiples of 0.5 in [low, high], never 0."""
    steps = np.arange(low, high + 0.25, 0.5)
    return rng.choice(steps[steps != 0], size=shape)


def small_int(rng: Rng) -> float:
    return float(rng.choice([-3, -2, 2, 3, 4]))


def unary(rng: Rng, e: Expr, allowed: tuple[str, ...] = tuple(UNARY)) -> Expr:
    """Apply a random elementwise function that is well-conditioned on `e`'s values."""
    names = [n for n in allowed if UNARY[n][2](e.value) and np.all(np.isfinite(UNARY[n][1](e.value)))]
    name = names[rng.integers(len(names))] if names else "sin"
    code, forward, _, atom = UNARY[name]
    # a call's own parentheses hold its argument (`torch.log(x * 2)`); an operator needs them (`(x * 2) ** 2`)
    return Expr(code.format(e.code if atom else e.wrapped), forward(e.value), atom)


def scaled(rng: Rng, e: Expr) -> Expr:
    """`e`, `e * c` or `e + c` for a small constant c: new values, same structure."""
    choice = rng.integers(3)
    if choice == 0:
        return e
    c = float(rng.choice([-1.5, -0.5, 0.5, 1.5, 2.0]))
    if choice == 1:
        return Expr(f"{e.wrapped} * {c}", e.value * c, False)
    return Expr(f"{e.wrapped} + {c}", e.value + c, False)


def leaf(rng: Rng, shape: tuple[int, ...] | None = None, name: str = "x") -> tuple[np.ndarray, Expr]:
    value = grid(rng, shape or SHAPES[rng.integers(len(SHAPES))])
    return value, Expr(name, value)


def reduce_scalar(rng: Rng, e: Expr) -> Expr:
    if rng.integers(2):
        return Expr(f"{e.wrapped}.sum()", e.value.sum())
    return Expr(f"{e.wrapped}.mean()", e.value.mean())


def scalar_program(rng: Rng, x: np.ndarray, body: Expr, constants=()) -> Program:
    """`y = <reduction of body>; y.backward()`."""
    return Program((("x", x),), tuple(constants), (f"y = {reduce_scalar(rng, body).code}", Backward("y")), "x")


# ---------------------------------------------------------------- predict templates

def elementwise(rng: Rng) -> Program:
    x, e = leaf(rng)
    return scalar_program(rng, x, unary(rng, scaled(rng, e)))


def composition(rng: Rng) -> Program:
    x, e = leaf(rng)
    return scalar_program(rng, x, unary(rng, scaled(rng, unary(rng, e))))


def product_rule(rng: Rng) -> Program:
    x, e = leaf(rng)
    left = unary(rng, e, tuple(name for name in UNARY if name != "reciprocal"))  # (1/x)·x is constant
    right = e if rng.integers(2) else unary(rng, scaled(rng, e))
    return scalar_program(rng, x, Expr(f"{left.wrapped} * {right.wrapped}", left.value * right.value, False))


def broadcasting(rng: Rng) -> Program:
    pairs = [((3,), (2, 3)), ((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 1), (2, 3)), ((1, 3), (2, 3)), ((2, 2), (2,))]
    x_shape, c_shape = pairs[rng.integers(len(pairs))]
    x, e = leaf(rng, x_shape)
    c = grid(rng, c_shape, -3, 3)
    op = rng.integers(3)
    if op == 0:
        body = Expr("x * c", x * c, False)
    elif op == 1:
        body = unary(rng, Expr("x + c", x + c, False))
    else:
        u = unary(rng, e)
        body = Expr(f"{u.wrapped} * c", u.value * c, False)
    return scalar_program(rng, x, body, constants=(("c", c),))


def reduction_dim(rng: Rng) -> Program:
    shape = ((2, 3), (3, 2), (2, 2), (2, 4))[rng.integers(4)]
    x, e = leaf(rng, shape)
    inner = unary(rng, e) if rng.integers(2) else scaled(rng, e)
    dim, keepdim = int(rng.integers(-1, 2)), bool(rng.integers(2))
    how = ("sum", "mean")[rng.integers(2)]
    reduced_shape = np.sum(inner.value, axis=dim, keepdims=keepdim).shape
    options = f"dim={dim}, keepdim=True" if keepdim else f"dim={dim}"
    steps: tuple[str | Backward, ...] = (f"r = {inner.wrapped}.{how}({options})",)
    gradient = grid(rng, reduced_shape, -2, 3)
    return Program((("x", x),), (), (*steps, Backward("r", gradient)), "x")


def matmul(rng: Rng) -> Program:
    m, k, n = (int(d) for d in rng.integers(1, 4, size=3))
    k = max(k, 2)
    a_shape = (k,) if rng.integers(4) == 0 else (m, k)
    a, b = grid(rng, a_shape), grid(rng, (k, n))
    target = ("a", "b")[rng.integers(2)]
    other = "b" if target == "a" else "a"
    product = Expr("a @ b" if rng.integers(2) else "torch.matmul(a, b)", a @ b, False)
    out = product if rng.integers(2) else unary(rng, product, ("tanh", "sigmoid", "sin"))
    leaves = ((target, a if target == "a" else b),)
    constants = ((other, b if target == "a" else a),)
    if rng.integers(2):
        steps = (f"y = {out.wrapped}.sum()", Backward("y"))
    else:
        steps = (f"y = {out.code}", Backward("y", grid(rng, out.value.shape, -2, 3)))
    return Program(leaves, constants, steps, target)


def softmax(rng: Rng) -> Program:
    shape = ((3,), (4,), (2, 3), (3, 2))[rng.integers(4)]
    x = grid(rng, shape, -1.5, 1.5)
    dim = -1 if len(shape) == 1 else int(rng.integers(-1, 1))
    weights = rng.permutation(np.arange(1, shape[-1] + 1, dtype=float) * rng.choice([-1, 1]))
    w = np.broadcast_to(weights, shape).copy() if len(shape) == 1 else grid(rng, shape, -3, 3)
    steps = (f"p = torch.softmax(x, dim={dim})", "y = (p * w).sum()", Backward("y"))
    return Program((("x", x),), (("w", w),), steps, "x")


def vjp(rng: Rng) -> Program:
    x, e = leaf(rng)
    y = unary(rng, scaled(rng, e))
    gradient = grid(rng, x.shape, -2, 3)
    return Program((("x", x),), (), (f"y = {y.code}", Backward("y", gradient)), "x")


def accumulation(rng: Rng) -> Program:
    x, e = leaf(rng)
    first = unary(rng, scaled(rng, e))
    if rng.integers(2):
        steps = (f"y = {first.wrapped}.sum()", Backward("y", retain_graph=True), Backward("y"))
    else:
        second = unary(rng, scaled(rng, e))
        steps = (f"y = {first.wrapped}.sum()", Backward("y"), f"z = {second.wrapped}.sum()", Backward("z"))
    return Program((("x", x),), (), steps, "x")


# ---------------------------------------------------------------- the error question

def backward_errors(rng: Rng) -> Program:
    """One of: non-scalar backward, second backward through a freed graph, retained graph, no grad, fine."""
    x, e = leaf(rng, ((2,), (3,), (2, 2))[rng.integers(3)])
    y = unary(rng, scaled(rng, e), SAVING)
    case = int(rng.integers(5))
    if case == 0:  # implicit gradient for a non-scalar output
        return Program((("x", x),), (), (f"y = {y.code}", Backward("y")), "x")
    if case == 4:  # x never asked for gradients
        return Program((), (("x", x),), (f"y = {y.wrapped}.sum()", Backward("y")), "x")
    retain = case == 2
    calls = (Backward("y", retain_graph=retain), Backward("y")) if case in (1, 2) else (Backward("y"),)
    return Program((("x", x),), (), (f"y = {y.wrapped}.sum()", *calls), "x")


@dataclass(frozen=True)
class BuiltinTemplate:
    id: str
    kind: str  # "predict" or "error"
    concepts: tuple[str, ...]
    text: LocalText
    hints: tuple[LocalText, ...]
    build: Callable[[Rng], Program]


def _predict(id: str, concepts: tuple[str, ...], build, text: LocalText, *hints: LocalText) -> BuiltinTemplate:
    return BuiltinTemplate(id, "predict", concepts, text, hints, build)


PREDICT_GRAD = LocalText("Predict `{target}.grad`.", "`{target}.grad` を予想してください。")
CHAIN_HINT = LocalText(
    "Differentiate from the output back to `{target}`: multiply the local derivatives (chain rule).",
    "出力から `{target}` へ向かって局所的な微分を掛け合わせます（連鎖律）。",
)

TEMPLATES: tuple[BuiltinTemplate, ...] = (
    _predict("elementwise", ("elementwise-derivative", "chain-rule"), elementwise, PREDICT_GRAD, CHAIN_HINT,
             LocalText("The last step sends 1 to every cell for `.sum()`, and 1/N (N = number of elements) "
                       "for `.mean()`.",
                       "最後の集約は、`.sum()` なら各要素に 1 を、`.mean()` なら 1/N（N は要素数）を送ります。")),
    _predict("composition", ("chain-rule",), composition, PREDICT_GRAD, CHAIN_HINT),
    _predict("product-rule", ("product-rule", "chain-rule"), product_rule, PREDICT_GRAD,
             LocalText("(f·g)' = f'·g + f·g', cell by cell.", "要素ごとに (f·g)' = f'·g + f·g' です。")),
    _predict("broadcasting", ("broadcasting",), broadcasting, PREDICT_GRAD,
             LocalText("Where `{target}` was broadcast (repeated), its gradient is summed over the repeats.",
                       "`{target}` がブロードキャスト（複製）された方向では、勾配はその複製ぶん足し合わされます。")),
    _predict("reduction-dim", ("reduction-dim", "vjp"), reduction_dim, PREDICT_GRAD,
             LocalText("Each gradient cell flows back to every element that was reduced into it (divided by "
                       "their count for a mean).",
                       "勾配の各要素は、その値に集約された全要素へ戻ります（mean なら、集約した要素数で割ります）。")),
    _predict("matmul", ("matmul", "vjp"), matmul, PREDICT_GRAD,
             LocalText("For y = a @ b: a.grad = g @ bᵀ and b.grad = aᵀ @ g, with g the gradient of y (for a 1-D a, "
                       "b.grad is the outer product of a and g).",
                       "y = a @ b なら a.grad = g @ bᵀ、b.grad = aᵀ @ g です（g は y の勾配。a が 1 次元なら、"
                       "b.grad は a と g の外積です）。")),
    _predict("softmax", ("softmax", "jacobian"), softmax, PREDICT_GRAD,
             LocalText("The softmax Jacobian is diag(p) − p pᵀ along the softmax dimension.",
                       "softmax のヤコビ行列は（softmax の次元に沿って）diag(p) − p pᵀ です。")),
    _predict("vjp", ("vjp", "backward-gradient-argument"), vjp, PREDICT_GRAD,
             LocalText("`y.backward(v)` gives vᵀJ: each cell's derivative times the matching cell of v.",
                       "`y.backward(v)` は vᵀJ：各要素の微分に v の対応する要素を掛けたものです。")),
    _predict("accumulation", ("grad-accumulation", "retain-graph"), accumulation,
             LocalText("`backward` is called twice. Predict `{target}.grad`.",
                       "`backward` を 2 回呼びます。`{target}.grad` を予想してください。"),
             LocalText("`.grad` is not replaced by a second backward: the two gradients are added.",
                       "2 回目の backward は `.grad` を置き換えず、勾配を足し合わせます。")),
    BuiltinTemplate(
        "backward-errors", "error", ("scalar-backward", "retain-graph", "requires-grad"),
        LocalText("What happens when this runs?", "これを実行するとどうなるでしょうか？"),
        (LocalText("Can backward() choose a gradient for this output by itself? Is the graph still there?",
                   "backward() はこの出力に対する勾配を自分で決められるでしょうか？ グラフはまだ残っているでしょうか？"),),
        backward_errors,
    ),
)
