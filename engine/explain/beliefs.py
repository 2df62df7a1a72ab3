"""Buggy rules: the answers a learner holding a misconception would give, computed by the engine itself.

A `Belief` is one misconception's buggy rule (the catalogue of their names and explanations is
`lessons/misconceptions.toml`, keyed by the same ids). It is selected for one run of a step's program
through `engine.state.Modes.belief`, which the engine reads at three places only: where the sweep calls a
node's rule (`Belief.vjp`, keyed by the op record `ops.OPS[...]`, never by formula text), where
`run_backward` sweeps and accumulates (`Belief.sweep`, `Belief.accumulate`), and in `detach()`
(`Belief.keeps_graph`). Everything else — the forward, the graph, the rules of other ops — is the
program's real run. A few beliefs are not a rule but a reading of the run's own values (the value instead
of the gradient, all ones, zeros after `zero_grad()`): `ValueBelief`s, computed from the correct run.

`believed_answers(source, expression)` runs in the sandbox child, as every snippet does: the program once
as PyTorch runs it (recording its backward calls) and once per belief and variant, each time evaluating
`expression` in what the program leaves.
"""
from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from engine import state, xp
from engine.graph import AccumulateGrad, Node, record_backward, sweep
from engine.ops import OPS


class NotApplicable(Exception):
    """The belief says nothing about this program (shapes that cannot hold it): no buggy answer."""


class Belief:
    """PyTorch's own behaviour; each misconception overrides the one piece it gets wrong."""

    id = ""
    variants: tuple = (None,)  # a belief held in several ways (either kink side): one run each
    keeps_graph = False        # detach() keeps the graph and no_grad() records (read by `Tensor.detach`, `no_grad`)
    in_no_grad = 0             # with keeps_graph: how deep in the learner's no_grad blocks (`engine.grad_mode`)

    def __init__(self, variant=None) -> None:
        self.variant = variant
        self.by_backward: set = set()  # nodes a create_graph backward recorded: the learner's formula, not a program

    def vjp(self, node: Node, i: int, rule: Callable) -> Callable:
        """The rule the learner believes for input `i` of `node` (PyTorch's is `rule`)."""
        return rule

    def sweep(self, root, cotangent, **options) -> dict:
        """PyTorch's sweep; under create_graph, the nodes it records are noted (`by_backward`): a belief about the
        program's own ops differentiates what the learner's first derivative became, correctly, a second time."""
        if not options.get("create_graph"):
            return sweep(root, cotangent, **options)
        before = _nodes(root)
        reached = sweep(root, cotangent, **options)
        made = [node for node in (getattr(g, "_grad_fn", None) for g in reached.values()) if node is not None]
        self.by_backward |= _reachable(made, before)
        return reached

    def accumulate(self, x, g) -> None:
        x._accumulate(g)


def _nodes(root) -> set:
    """The nodes reachable from a sweep's root (one edge, or a list of them)."""
    return _reachable(root if isinstance(root, list) else [root])


def _reachable(starts, known=frozenset()) -> set:
    """The nodes reachable from `starts` that are not in `known` (a set holding every node reachable from its
    own: the walk stops there), in one walk however many starts there are, unordered (never sorted)."""
    found = {node for node in starts if node not in known}
    stack = list(found)
    while stack:
        for parent in stack.pop().parents:
            if parent is not None and parent not in found and parent not in known:
                found.add(parent)
                stack.append(parent)
    return found


def _op(*keys: str) -> frozenset:
    return frozenset(OPS[key] for key in keys)


class MeanWithoutN(Belief):
    """A mean's gradient without its 1/n: `mean`, and a loss reduced by its mean (mse_loss, binary
    cross-entropy: their default reduction)."""

    id = "mean-without-n"
    MEANS = _op("mean", "mean_dim")
    MEAN_LOSSES = _op("mse_loss", "bce", "bce_with_logits")

    def vjp(self, node, i, rule):
        if node.op in self.MEAN_LOSSES and node.attrs.get("reduction") == "mean":
            def summed(g, out, *inputs, **attrs):
                n = int(np.prod(np.broadcast_shapes(*(np.shape(x) for x in inputs if x is not None)), dtype=np.int64))
                return rule(g, out, *inputs, **attrs) * n
            return summed
        if node.op not in self.MEANS:
            return rule
        return lambda g, out, a, *rest, **attrs: rule(g, out, a, *rest, **attrs) * (xp.size(a) // max(1, xp.size(out)))


class BroadcastNotSummed(Belief):
    """A broadcast operand's gradient averaged over the copies instead of summed (variant "averaged": the copies
    each "share" it), or not reduced at all (variant "copies": a leaf's .grad left with the broadcast shape)."""

    id = "broadcast-not-summed"
    variants = ("averaged", "copies")
    EXPANDS = _op("expand")

    def __init__(self, variant=None) -> None:
        super().__init__(variant)
        self.copies: dict = {}  # a leaf's edge -> the gradients that reached it, as they were before summing

    def sweep(self, root, cotangent, **options):
        if self.variant == "copies" and (options.get("nbatch") or options.get("create_graph")):
            raise NotApplicable("one plain backward")
        return sweep(root, cotangent, **options)

    def vjp(self, node, i, rule):
        if self.variant == "copies":
            parent = node.parents[i]
            if type(parent) is not AccumulateGrad:
                return rule

            def kept(g, out, *inputs, **attrs):
                gi = g if node.op in self.EXPANDS else rule(g, out, *inputs, **attrs)
                if gi is not None:
                    self.copies.setdefault(parent, []).append(np.asarray(gi))
                return rule(g, out, *inputs, **attrs) if node.op in self.EXPANDS else gi
            return kept

        def averaged(g, out, *inputs, **attrs):
            gi = rule(g, out, *inputs, **attrs)
            shape = np.shape(inputs[i])
            if node.op in self.EXPANDS:   # expand's own rule already sums the copies
                return gi * (np.size(inputs[i]) / max(1, np.size(out)))
            if np.shape(gi) == shape:
                return gi
            return xp.sum_to(gi, shape, 0) * (np.prod(shape, dtype=np.int64) / max(1, np.size(gi)))
        return averaged

    def accumulate(self, x, g):
        found = self.copies.pop(x._grad_edge(), [])
        if self.variant != "copies" or len(found) != 1 or found[0].shape == x._data.shape or x._grad is not None:
            x._accumulate(g)  # (used once, broadcast: the learner's answer; anything else, as PyTorch)
            return
        x._grad = type(x)._make(found[0].astype(x._data.dtype))


def _mT(a):  # noqa: N802 - as engine.ops.linalg.mT
    return np.swapaxes(a, -1, -2)


class MatmulNoTranspose(Belief):
    """The product's gradient without the transpose (variant "plain"), or with the operands in the other order."""

    id = "matmul-no-transpose"
    variants = ("plain", "swapped")
    PRODUCTS = _op("mm", "bmm3")  # every matrix product records one of these (engine.ops.linalg; Tensor.matmul)

    def vjp(self, node, i, rule):
        if node.op is OPS["mv"] and i == 1:
            return lambda g, out, a, v: a @ g
        if node.op not in self.PRODUCTS:
            return rule
        if self.variant == "plain":
            return (lambda g, out, a, b: g @ b) if i == 0 else (lambda g, out, a, b: a @ g)
        return (lambda g, out, a, b: _mT(b) @ g) if i == 0 else (lambda g, out, a, b: g @ _mT(a))


class JacobianTimesV(Belief):
    """`backward(v)` taken as J·v (the Jacobian applied to v) instead of vᵀJ: needs a square Jacobian."""

    id = "jacobian-times-v"

    def sweep(self, root, cotangent, **options):
        if isinstance(root, list) or options.get("nbatch") or options.get("create_graph"):
            raise NotApplicable("one output, one cotangent")
        v = np.asarray(cotangent)
        m = v.size
        if m == 1:  # an implicit 1 (or a one-element v): nothing for J·v to get wrong
            return sweep(root, cotangent, **options)
        rows = np.eye(m, dtype=v.dtype).reshape((m,) + v.shape)
        reached = sweep(root, rows, **{**options, "nbatch": 1})
        result = {}
        for edge, r in reached.items():
            shape = edge.variable._data.shape if type(edge) is AccumulateGrad else np.shape(r)[1:]
            if int(np.prod(shape, dtype=np.int64)) != m:
                raise NotApplicable("J·v needs as many inputs as outputs")
            jac = np.broadcast_to(r, (m,) + tuple(shape)).reshape(m, m)
            result[edge] = (jac @ v.reshape(m)).reshape(shape)
        return result


class GradReplaced(Belief):
    id = "grad-replaced"

    def accumulate(self, x, g):
        x._grad = None
        x._accumulate(g)


# elementwise functions of one tensor: the "outer" and "inner" functions a learner chains
_ELEMENTWISE = _op("pow", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "log1p", "reciprocal", "neg")
_SCALINGS = _op("mul", "div")


def _elementwise(node) -> bool:
    if node.op in _ELEMENTWISE:
        return True
    return node.op in _SCALINGS and sum(p is not None for p in node.parents) == 1


class ChainMissingInner(Belief):
    """The chain rule without the inner derivatives. Variant "outer": only the outermost elementwise function's
    derivative, every function inside it passing the gradient on unchanged (sin(x²) gives cos(x²), not
    cos(x²)·2x). Variant "link": in each chain of elementwise functions, only its last one's derivative
    (2·x³ summed, then / 12: the sum breaks the chain, so 2/12, not 6x²/12)."""

    id = "chain-missing-inner"
    variants = ("outer", "link")

    def __init__(self, variant=None) -> None:
        super().__init__(variant)
        self.outer = None
        self.inner: set = set()

    def sweep(self, root, cotangent, **options):
        self.outer = None
        if self.variant == "link":  # the elementwise nodes whose result another elementwise one takes
            self.inner = {p for n in _nodes(root) if isinstance(n, Node) and _elementwise(n)
                          for p in n.parents if isinstance(p, Node) and _elementwise(p)}
        return super().sweep(root, cotangent, **options)

    def vjp(self, node, i, rule):
        if not _elementwise(node) or node in self.by_backward:
            return rule
        if self.variant == "link":
            return (lambda g, out, *inputs, **attrs: g) if node in self.inner else rule
        if self.outer is None or self.outer is node:
            self.outer = node
            return rule
        return lambda g, out, *inputs, **attrs: g


def _leaves(node) -> set:
    if node is None:
        return set()
    return {n for n in _reachable([node]) if type(n) is AccumulateGrad}


class ProductRuleOneTerm(Belief):
    """d(f·g) taken as f'·g only (variant 0 drops the term through the second factor) or f·g' only."""

    id = "product-rule-one-term"
    variants = (0, 1)
    PRODUCTS = _op("mul")

    def vjp(self, node, i, rule):
        if node.op not in self.PRODUCTS or None in node.parents or node in self.by_backward:
            return rule
        if not _leaves(node.parents[0]) & _leaves(node.parents[1]):
            return rule  # independent factors: there is no product rule to forget
        if i != self.variant:
            return lambda g, out, *inputs, **attrs: None

        def kept(g, out, *inputs, **attrs):
            # under create_graph the forgotten factor is a constant to the kept term (the learner's f·g.detach()):
            # a second derivative does not bring the forgotten term back
            other = 1 - i
            inputs = tuple(x.detach() if k == other and xp.is_tensor(x) else x for k, x in enumerate(inputs))
            return rule(g, out, *inputs, **attrs)
        return kept


class SoftmaxDiagonalOnly(Belief):
    id = "softmax-diagonal-only"

    def vjp(self, node, i, rule):
        if node.op is OPS["softmax"]:
            return lambda g, out, a, dim: g * out * (1 - out)
        if node.op is OPS["log_softmax"]:
            return lambda g, out, a, dim: g * (1 - xp.exp(out))
        return rule


class FlowsThroughDetach(Belief):
    """Gradient through `detach()` and `no_grad()`: detach keeps the graph, a no_grad block records what it
    computes — but a write into a leaf inside it (initialising weights, an SGD step) is still not recorded
    (`engine.methods.inplace`): the learner knows that is what no_grad is for."""

    id = "flows-through-detach"
    keeps_graph = True


class KinkOtherSide(Belief):
    """relu, abs, clamp, maximum and minimum differentiated as if the input were a hair above (variant +1)
    or below (-1) where it is: at a kink or a tie, the one-sided derivative PyTorch does not take. A max/min
    reduction at a tie gives its gradient to the first tied element (+1), the last (-1) or shares it (0)."""

    id = "kink-other-side"
    variants = (1, -1, 0)
    KINKS = _op("relu", "abs", "clamp", "clamp_min", "clamp_max", "maximum", "minimum")
    TIES = _op("max", "min", "max_dim", "min_dim")
    WHOLE = _op("max", "min")  # a whole tensor's max or min (the others reduce along a dim)

    def vjp(self, node, i, rule):
        if node.op in self.TIES:
            return self._tie(node, rule)
        if node.op not in self.KINKS or self.variant == 0:
            return rule
        op, direction = node.op, np.inf * self.variant

        def one_sided(g, out, a, *rest, **attrs):
            moved = np.nextafter(a, np.asarray(direction, dtype=np.asarray(a).dtype))
            return rule(g, op.forward(moved, *rest, **attrs), moved, *rest, **attrs)
        return one_sided

    def _tie(self, node, rule):
        whole = node.op in self.WHOLE

        def tied(g, out, a, dim=None, keepdim=False, indices=None):
            if xp.is_tensor(g) or np.ndim(a) == 0:
                return rule(g, out, a) if whole else rule(g, out, a, dim, keepdim, indices)
            axis = None if whole else dim % np.ndim(a)
            kept = out if whole or keepdim else np.expand_dims(out, axis)
            ties = (a == kept).astype(np.float64)
            g = g if whole or keepdim else np.expand_dims(g, axis)
            flat = ties.reshape(-1) if whole else np.moveaxis(ties, axis, -1)
            if self.variant == 0:
                weights = flat / flat.sum(axis=-1, keepdims=True)
            else:
                n = flat.shape[-1]
                rank = flat * ((np.arange(n) + 1) if self.variant == -1 else (n - np.arange(n)))
                weights = (rank == rank.max(axis=-1, keepdims=True)).astype(np.float64)
            weights = weights.reshape(a.shape) if whole else np.moveaxis(weights, -1, axis)
            return (g * weights).astype(np.asarray(a).dtype)
        return tied


class WrongDim(Belief):
    """A reduction along `dim` differentiated as if along the other dim of a matrix (mean divides by the
    other size; a sum's cotangent laid along the other axis)."""

    id = "wrong-dim"
    REDUCTIONS = _op("sum_dim", "mean_dim")

    def vjp(self, node, i, rule):
        if node.op not in self.REDUCTIONS:
            return rule

        def other_dim(g, out, a, dims, keepdim):
            if np.ndim(a) != 2 or dims is None or len(dims) != 1:
                raise NotApplicable("a matrix reduced along one dim")
            other = (1 - dims[0] % 2,)
            if node.op is OPS["mean_dim"]:
                return rule(g, out, a, dims, keepdim) * (a.shape[dims[0]] / a.shape[other[0]])
            if a.shape[0] != a.shape[1]:
                raise NotApplicable("a square matrix")
            return rule(g, np.sum(a, axis=other, keepdims=keepdim), a, other, keepdim)
        return other_dim


RULES = {belief.id: belief for belief in (MeanWithoutN, BroadcastNotSummed, MatmulNoTranspose, JacobianTimesV,
                                          GradReplaced, ChainMissingInner, ProductRuleOneTerm, SoftmaxDiagonalOnly,
                                          FlowsThroughDetach, KinkOtherSide, WrongDim)}


# --- beliefs about values, not rules ---------------------------------------------------------------------
def _asks_gradient(expression: str, value, calls) -> bool:
    """Whether the step asks for a gradient: `….grad`, or what a gradient-returning call gave (autograd.grad,
    torch.func…; those results are copies, so they are recognised by their numbers)."""
    tree = ast.parse(expression, mode="eval").body
    while isinstance(tree, ast.Subscript):
        tree = tree.value
    if isinstance(tree, ast.Attribute) and tree.attr == "grad":
        return True
    return any(result is not None and np.shape(result) == value.shape and np.array_equal(result, value)
               for call in calls for result in call.results)


_FULL_REDUCTIONS = _op("sum", "mean")


def _value_not_gradient(source, run, calls, expression, value) -> list:
    """The value instead of the gradient: the differentiated tensor's own value (`x` for `x.grad`, the inputs
    of autograd.grad), or the function's — each differentiated output's value, or, for an output that is a
    full sum or mean, the values it reduced. Only those shaped like the answer."""
    if not calls or not _is_array(value) or not _asks_gradient(expression, value, calls):
        return []
    tree = ast.parse(expression, mode="eval").body
    if isinstance(tree, ast.Attribute) and tree.attr == "grad":
        tensors = [run.evaluate(ast.unparse(tree.value))]
    else:
        tensors = [x for call in calls for x in call.inputs or ()]
    arrays = [t.detach().numpy() for t in tensors if hasattr(t, "detach")]
    for call in calls:
        for root in call.roots:
            node = root._grad_fn
            if node is None:
                continue
            arrays.append(node.out)
            if node.op in _FULL_REDUCTIONS and isinstance(node.parents[0], Node):
                arrays.append(node.parents[0].out)
    found = []
    for array in arrays:
        if _is_array(array) and array.shape == value.shape and not any(np.array_equal(array, f) for f in found):
            found.append(np.array(array, dtype=np.float64))
    return found


def _all_ones(source, run, calls, expression, value) -> list:
    return [np.ones(value.shape)] if calls and _is_array(value) and _asks_gradient(expression, value, calls) else []


def _zero_grad_zeros(source, run, calls, expression, value) -> list:
    """`p.grad` read as zeros where `zero_grad()` left None (the program calls zero_grad)."""
    if value is not None:
        return []
    tree = ast.parse(expression, mode="eval").body
    if not (isinstance(tree, ast.Attribute) and tree.attr == "grad") or not _calls_zero_grad(source):
        return []
    base = run.evaluate(ast.unparse(tree.value))
    return [np.zeros(tuple(base.shape))] if hasattr(base, "shape") else []


def _calls_zero_grad(source: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "zero_grad"
               for n in ast.walk(ast.parse(source)))


def _is_array(value) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


VALUES = {"value-not-gradient": _value_not_gradient, "all-ones": _all_ones, "zero-grad-zeros": _zero_grad_zeros}
IDS = tuple(RULES) + tuple(VALUES)


# --- running them ---------------------------------------------------------------------------------------
def believed_answers(source: str, expression: str, ids=IDS, run_snippet=None, extra=()) -> dict[str, list]:
    """{belief id: the values `expression` takes when the program runs as a learner holding it believes}
    (one per variant that runs; empty where the belief does not apply). Also "" : [PyTorch's value].
    `extra`: (id, expression) pairs, a lesson author's buggy answers, evaluated after the correct run."""
    if run_snippet is None:
        from engine.runner import run_snippet
    from engine.runner.errors import SnippetFailure

    def evaluated(result):
        if not result.ok:
            return None
        try:
            value = result.evaluate(expression)
        except SnippetFailure:
            return None
        if hasattr(value, "detach"):
            previous = state.update(belief=None)  # a flows-through-detach belief keeps detach() in the graph
            try:
                value = np.array(value.detach().numpy(), dtype=np.float64)
            finally:
                state.restore(previous, "belief")
        return value

    with record_backward() as calls:
        correct = run_snippet(source)
    value = evaluated(correct)
    answers: dict[str, list] = {"": [value]}
    for key, believed in extra:
        try:
            found = correct.evaluate(believed) if correct.ok else None
        except SnippetFailure:
            found = None
        if found is not None:
            answers.setdefault(key, []).append(found.detach().numpy() if hasattr(found, "detach") else found)
    for key in ids:
        if key in VALUES:
            try:
                found = VALUES[key](source, correct, calls, expression, value) if correct.ok else []
            except (SnippetFailure, SyntaxError, ValueError):
                found = []
            answers[key] = answers.get(key, []) + found
            continue
        found = answers.get(key, [])
        for variant in RULES[key].variants:
            previous = state.update(belief=RULES[key](variant))
            try:
                result = run_snippet(source)
                believed = evaluated(result)
            except Exception:  # noqa: BLE001 - NotApplicable, or a rule that cannot hold here: no buggy answer
                believed = None
            finally:
                state.restore(previous, "belief")
            if believed is not None and result.ok:
                found.append(believed)
        answers[key] = found
    return answers
