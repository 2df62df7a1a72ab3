"""Random programs: every chain-rule formula the explanation shows is the gradient backward produced.

The formulas are checked here independently of the explanation's own check: the displayed text is
evaluated with PyTorch itself (float64), at the values the program's tensors had at the backward call.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.explain import explain_program, explain_symbolic

torch = pytest.importorskip("torch")  # the formulas are evaluated by PyTorch itself, independently of the engine

ELEMENTWISE = ["{a}.exp()", "{a}.sin()", "{a}.tanh()", "{a}.sigmoid()", "({a} * {a})", "({a} + 1.5)",
               "({a} * c)", "{a}.pow(2)", "({a} / 4)", "(2 - {a})", "({a} * w)", "{a}.relu()", "{a}.abs()",
               "{a}.clamp(-0.5, 0.5)", "({a} ** 3)"]
REDUCE = ["{a}.sum()", "{a}.mean()", "{a}.sum(dim=0)", "{a}.mean(dim=-1)", "{a}.softmax(dim=-1)",
          "({a} @ m)", "({a} + b)", "({a} * x.sum(dim=0))", "{a}.log_softmax(dim=-1)", "{a}.max()", "{a}[1]",
          "torch.nn.functional.mse_loss({a}, w)", "torch.nn.functional.linear({a}, m.T, bb)"]
AFTER = ["{a}.exp()", "({a} ** 2)", "({a} * 3)", "{a}.tanh()", "({a} + x.sum())", "{a}.abs()"]
SHAPES = [(3,), (2, 3)]


@st.composite
def programs(draw):
    shape = draw(st.sampled_from(SHAPES))
    n = int(np.prod(shape))
    values = draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
    x = np.array(values, dtype=float).reshape(shape) / 4
    expr = "x"
    for op in draw(st.lists(st.sampled_from(ELEMENTWISE), min_size=0, max_size=2)):
        expr = op.format(a=expr)
    reduce = draw(st.sampled_from(REDUCE + [None]))
    if reduce is not None:
        expr = reduce.format(a=expr)
        for op in draw(st.lists(st.sampled_from(AFTER), min_size=0, max_size=2)):
            expr = op.format(a=expr)
    if draw(st.booleans()):  # a second path to the leaf
        expr = draw(st.sampled_from(["({a} * x.sum())", "({a} + x.mean())", "({a}.sum() * x)"])).format(a=expr)
    weighted = draw(st.booleans())
    seed = draw(st.integers(0, 5))
    source = (f"import torch\nx = torch.tensor({x.tolist()}, requires_grad=True)\n"
              f"c = torch.tensor(0.5)\nw = torch.tensor({(x * 0 + 1.5).tolist()})\n"
              f"m = torch.tensor([[1., -1.], [0.5, 2.], [0., 1.]])\nb = torch.tensor([0.5, -1., 2.])\n"
              f"bb = torch.tensor([0.25, -2.])\n"
              f"y = {expr}\n")
    if weighted:
        source += (f"v = (torch.arange(y.numel()).reshape(y.shape).float() * {seed % 3 - 1} + 1) "
                   "if y.dim() else torch.tensor(2.)\ny.backward(v)\n")
    else:
        source += "y.sum().backward()\n" if draw(st.booleans()) else "y.backward(torch.ones_like(y))\n"
    return source


# A displayed formula is PyTorch code read with these names imported from torch (`from torch import exp`);
# nothing else is added: a list written where a tensor is meant, or a dim the tensor lacks, fails here.
FUNCTIONS = ("exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sign", "abs", "sqrt", "softmax")


def torch_value(formula: str, namespace: dict, constants=(), dtype=torch.float64):
    """The displayed formula run by PyTorch as it is written; only c₁ …, which are no Python names, are bound
    to the values the explanation shows beside them. `dtype`: the namespace's floats (torch.ones(3) in a formula
    is made in it, as the program's own tensors were)."""
    env = dict(namespace)
    env.update({name: getattr(torch, name) for name in FUNCTIONS}, torch=torch)
    for k, (name, value) in enumerate(constants):
        formula = formula.replace(name, f"_c{k}")
        value = torch.tensor(np.asarray(value))
        env[f"_c{k}"] = value.to(dtype) if value.is_floating_point() else value   # a condition stays booleans
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.no_grad():
            return torch.as_tensor(eval(formula, {}, env)).to(torch.float64)  # noqa: S307
    finally:
        torch.set_default_dtype(default)


def as_gradient(got: torch.Tensor, formula: str, shape) -> torch.Tensor:
    """What a formula shown as a gradient gives, which must have the gradient's own shape: only a plain number
    stands for every entry (∂(2x)/∂x = 2). Broadcasting it first would pass `r.sum(-1, keepdim=True)` (shape
    (1,)) as c.grad of shape (2, 1), and a formula that raises for the shape it is given would go unseen."""
    try:
        Fraction(formula)   # 2, -0.5, 8/3
    except ValueError:
        assert tuple(got.shape) == tuple(shape), f"{formula!r} has shape {tuple(got.shape)}, the gradient {tuple(shape)}"
        return got
    return got.expand(tuple(shape))


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_every_chain_formula_is_the_gradient(source):
    exp = explain_program(source)
    assert exp.ok, (exp.error, source)
    call = exp.calls[0]
    sym = explain_symbolic(exp, 0, timeout=20)
    # in the program's own float32: y (a formula may use the program's output) equals exp(exp(x)) only there
    ns = {name: torch.tensor(exp.run.namespace[name].detach().numpy(), dtype=torch.float32)
          for name in ("c", "w", "m", "b", "bb", "y")}
    ns.update(x=torch.tensor(call.leaves[0].value, dtype=torch.float32),
              v=torch.tensor(call.seed, dtype=torch.float32))
    for chain, leaf in zip(sym.chains, call.leaves):
        assert chain.ok and chain.verified, (source, chain.note)
        assert chain.total, (source, "no tensor formula")  # element-wise, reductions, matmul, softmax
        expected = torch.tensor(leaf.contribution, dtype=torch.float64)
        got = as_gradient(torch_value(chain.total, ns, chain.constants, torch.float32), chain.total, expected.shape)
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-5, equal_nan=True, msg=lambda m: f"{source}\n{chain.total}\n{m}")
        if chain.paths:
            summed = sum(as_gradient(torch_value(p.total, ns, chain.constants, torch.float32), p.total, expected.shape)
                         for p in chain.paths)
            torch.testing.assert_close(summed, expected, rtol=1e-4, atol=1e-5, equal_nan=True)
        for step in chain.steps:
            trace = next(s for s in call.trace if s.node == step.node)
            value = torch_value(step.formula, ns, chain.constants, torch.float32)
            torch.testing.assert_close(as_gradient(value, step.formula, trace.incoming.shape),
                                       torch.tensor(trace.incoming, dtype=torch.float64), rtol=1e-4, atol=1e-5,
                                       equal_nan=True)


@pytest.mark.parametrize("source, total", [
    ("y = x.sum()**2", "(2*x.sum()).expand(3)"),   # x.grad has x's shape (3,), as the formula
    ("y = torch.exp(x.mean())", "(exp(x.mean())/3).expand(3)"),
    ("y = torch.log(torch.exp(x).sum())", "softmax(x, dim=0)"),
    ("y = x.relu().sum()", "(x > 0)"),
    ("y = x.abs().sum()", "sign(x)"),
])
def test_the_issue_examples(source, total):
    program = f"import torch\nx = torch.tensor([1., -2., 3.], requires_grad=True)\n{source}\ny.backward()\n"
    chain = explain_symbolic(explain_program(program), 0).chains[0]
    assert chain.verified and chain.total == total


def test_weighted_backward_includes_v():
    program = ("import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x**2\n"
               "y.backward(torch.tensor([1., 0.5, 2.]))\n")
    chain = explain_symbolic(explain_program(program), 0).chains[0]
    assert chain.weight == "v" and chain.total == "2*v*x"
    assert chain.text() == "vᵀ·∂y/∂x = v · ∂y/∂x = v · 2*x = 2*v*x"


def test_matmul_in_tensor_notation():
    program = ("import torch\nx = torch.tensor([[1., 2.]], requires_grad=True)\n"
               "W = torch.tensor([[1., 2., 3.], [4., 5., 6.]])\ny = x @ W\ny.backward(torch.tensor([[1., 0., 2.]]))\n")
    chain = explain_symbolic(explain_program(program), 0).chains[0]
    assert chain.total == "v @ W.T" and chain.steps


@pytest.mark.parametrize("source, total", [
    ("y = x.max()", "(x == x.max())/(x == x.max()).sum()"),  # ties share the gradient evenly
    ("y = x.softmax(dim=0)[0]", "(torch.eye(3)[0] - softmax(x, dim=0)[0])*softmax(x, dim=0)"),
    ("y = -torch.log_softmax(x, dim=0)[2]", "-torch.eye(3)[2] + softmax(x, dim=0)"),  # cross-entropy, class 2
    ("t = torch.tensor([1., 1., 1.])\ny = torch.nn.functional.mse_loss(x, t)", "2*(-t + x)/3"),
    ("y = torch.where(x > 0, x.exp(), 0.).sum()", "exp(x)*torch.tensor([1., 0., 1.])"),
])
def test_course_ops_in_tensor_notation(source, total):
    """The ops of the course's later lessons (losses, max at ties, indexing, where) get a tensor formula."""
    program = f"import torch\nx = torch.tensor([3., -2., 3.], requires_grad=True)\n{source}\ny.backward()\n"
    exp = explain_program(program)
    chain = explain_symbolic(exp, 0).chains[0]
    assert chain.verified and chain.total == total, chain.total
    namespace = {"x": torch.tensor([3., -2., 3.], dtype=torch.float64), "t": torch.ones(3, dtype=torch.float64)}
    torch.testing.assert_close(as_gradient(torch_value(total, namespace), total, (3,)),
                               torch.tensor(exp.calls[0].leaves[0].contribution, dtype=torch.float64))


def test_linear_layers_are_named_by_their_parameters():
    program = ("import torch\nimport torch.nn as nn\nlayer = nn.Linear(2, 1)\nwith torch.no_grad():\n"
               "    layer.weight.copy_(torch.tensor([[1., -1.]]))\n    layer.bias.fill_(0.5)\n"
               "x = torch.tensor([[2., 1.], [0., 3.]])\nt = torch.tensor([[1.], [0.]])\n"
               "loss = torch.nn.functional.mse_loss(layer(x), t)\nloss.backward()\n")
    chains = {c.leaf: c for c in explain_symbolic(explain_program(program), 0).chains}
    assert chains["layer.weight"].verified and chains["layer.bias"].verified
    assert chains["layer.weight"].total == "(x.T @ (layer.bias - t + (x @ layer.weight.T))).T"


# --- coincidences: constants equal to the leaf, masks, repeated values ------------------------------------
LOOKALIKES = ["({a} * k)", "({a} * torch.tensor(X0))", "({a} * mk)", "torch.where(bm, {a}, 2 * {a})", "({a} + k)",
              "({a} * {a})", "{a}.relu()", "{a}.exp()", "({a} * 3)", "({a} - torch.tensor(X0))", "{a}.abs()"]
LOOKALIKE_REDUCE = ["{a}.sum()", "{a}.mean()", "({a} * k).sum()", "{a}.max()", "{a}.softmax(dim=-1)",
                    "({a} * mk).sum()", None]


@st.composite
def lookalike_programs(draw):
    """A program whose constants deliberately equal the leaf (k, an inline tensor, the weight v), with masks
    (mk as 0/1 floats, bm as bools, both equal to x > 0) and repeated values in x: every name-by-value
    shortcut and every check made at one point only would show a wrong formula here."""
    shape = draw(st.sampled_from(SHAPES))
    n = int(np.prod(shape))
    x0 = np.array(draw(st.lists(st.sampled_from([-1.0, -0.5, 0.5, 1.0, 2.0]), min_size=n, max_size=n))).reshape(shape)
    expr = "x"
    for op in draw(st.lists(st.sampled_from(LOOKALIKES), min_size=1, max_size=3)):
        expr = op.format(a=expr)
    reduce = draw(st.sampled_from(LOOKALIKE_REDUCE))
    if reduce is not None:
        expr = reduce.format(a=expr)
    weight = draw(st.sampled_from(["named", "literal", "sum"]))
    lines = ["import torch", "x = torch.tensor(XV, requires_grad=True)", f"k = torch.tensor({x0.tolist()})",
             f"mk = torch.tensor({(x0 > 0).astype(float).tolist()})", f"bm = torch.tensor({(x0 > 0).tolist()})",
             f"y = {expr.replace('X0', str(x0.tolist()))}"]
    if reduce is not None or weight == "sum":
        lines.append("y.backward()" if reduce is not None and "softmax" not in reduce else "y.sum().backward()")
    elif weight == "named":
        lines += [f"v = torch.tensor({x0.tolist()})", "y.backward(v)"]
    else:
        lines.append(f"y.backward(torch.tensor({x0.tolist()}))")
    return "\n".join(lines) + "\n", x0


def torch_run(template: str, values: np.ndarray) -> dict:
    """The program run by real PyTorch with x at `values` (its constants are literals: held): its tensors in
    float64, detached (a named intermediate such as y takes its value at that x), and x.grad as "x.grad"."""
    namespace = {}
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # intermediates exact, as the formula compares them (x + k == y)
    try:
        exec(template.replace("XV", repr(values.tolist())), {"torch": torch}, namespace)  # noqa: S102 - ours
    finally:
        torch.set_default_dtype(default)
    found = {k: v.detach().to(torch.float64) if v.is_floating_point() else v.detach()   # bm stays booleans
             for k, v in namespace.items() if isinstance(v, torch.Tensor)}
    found["x.grad"] = namespace["x"].grad.to(torch.float64)
    return found


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(lookalike_programs())
def test_lookalike_constants_are_never_named_by_value(program):
    """Each displayed formula (total, each path's share) is evaluated by PyTorch at the call's values and with x
    moved (constants held), and must give PyTorch's own x.grad at every one of those points."""
    template, x0 = program
    source = template.replace("XV", repr(x0.tolist()))
    exp = explain_program(source)
    assert exp.ok, (exp.error, source)
    call = exp.calls[0]
    chain = explain_symbolic(exp, 0, timeout=20).chains[0]
    assert chain.ok and chain.verified and (chain.total or chain.elements), (source, chain)
    if not chain.total:
        return  # the per-element form comes from the symbolic vᵀJ, checked in the explanation itself
    rng = np.random.default_rng(7)
    for step in (0.0, 0.013, -0.009):
        moved = x0 + step * rng.uniform(0.5, 1.0, x0.shape) * np.maximum(np.abs(x0), 1)
        here = torch_run(template, moved)
        expected = here.pop("x.grad")
        if chain.weight and chain.weight not in here:  # an unnamed weight: the formula calls it v, shown as v =
            here[chain.weight] = torch.tensor(np.asarray(call.seed, dtype=np.float64))
        got = torch_value(chain.total, here, chain.constants)
        torch.testing.assert_close(as_gradient(got, chain.total, expected.shape), expected, rtol=1e-4, atol=1e-5,
                                   msg=lambda m: f"{source}\n{chain.total} at x = {moved}\n{m}")


# --- every formula shown is PyTorch code: broadcasting, expand, conditions, unnamed constants ---------------
BROADCAST_OPS = ["{a}.expand(2, 3)", "({a} * c)", "({a} * torch.tensor([1., 2., -3.]))",
                 "({a} * torch.tensor([[1.], [-2.]]))", "({a} / torch.tensor([0.5, -2., 4.]))",
                 "({a} / torch.tensor([3., 7., 0.1]))", "torch.where(bm, {a}, 2 * {a})",
                 "torch.where({a} > 0, {a}, 0.)", "torch.where(torch.tensor([True, False, True]), {a}.exp(), {a})",
                 "{a}.unsqueeze(0)", "({a} + b)", "{a}.sum(dim=-1, keepdim=True)", "{a}.sum(dim=0)",
                 "({a} * {a})", "{a}.exp()"]


@st.composite
def broadcast_programs(draw):
    """x of a shape that broadcasts against (2, 3), then ops that broadcast it, expand it or pick with a
    condition, against named and unnamed constants of other shapes (the sweep must undo each broadcast)."""
    shape = draw(st.sampled_from([(3,), (2, 1), (1, 3), (2, 3)]))
    n = int(np.prod(shape))
    x = (np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)), dtype=float) / 4 + 0.125).reshape(shape)
    c_shape = draw(st.sampled_from([(3,), (2, 1), (2, 3)]))
    expr = "x"
    for op in draw(st.lists(st.sampled_from(BROADCAST_OPS), min_size=1, max_size=3)):
        expr = op.format(a=expr)
    end = draw(st.sampled_from(["y.sum().backward()", "y.backward(torch.ones_like(y))",
                                "v = torch.arange(float(y.numel())).reshape(y.shape) - 1\ny.backward(v)"]))
    return (f"import torch\nx = torch.tensor({x.tolist()}, requires_grad=True)\n"
            f"c = torch.arange(1., {int(np.prod(c_shape)) + 1}.).reshape{c_shape}\n"
            f"b = torch.tensor([0.5, -1., 2.])\nbm = torch.tensor([True, False, True])\n"
            f"y = {expr}\n{end}\n")


def run_torch(source: str) -> dict | None:
    """The program run by real PyTorch: its tensors as they are (dtype too), or None when PyTorch refuses it."""
    namespace: dict = {}
    try:
        exec(source, {"torch": torch}, namespace)  # noqa: S102 - generated above
    except RuntimeError:
        return None
    return {k: v.detach() for k, v in namespace.items() if isinstance(v, torch.Tensor)}


def shown_formulas(chain, call):
    """Every formula the chain panel shows as code, with the numbers the engine had for it: the total, each
    path's share (which add up to it), each step (what arrived at that node), each segment (∂y/∂d = …, its
    gradient symbols taking the engine's arriving gradients)."""
    leaf = next(le for le in call.leaves if le.name == chain.leaf)
    if chain.total:
        yield chain.total, leaf.contribution, {}
    if len(chain.paths) > 1:
        yield " + ".join(f"({p.total})" for p in chain.paths), leaf.contribution, {}
    for step in chain.steps:
        yield step.formula, next(s.incoming for s in call.trace if s.node == step.node), {}
    output = call.output_name if call.output_name.isidentifier() else f"({call.output_name})"   # as the panel
    arrived = {f"∂{output}/∂{node.tensor}": next(s.incoming for s in call.trace if s.node == node.index)
               for node in call.graph if node.tensor}
    for lhs, formula in chain.segments:
        expected = leaf.contribution if lhs.endswith(f"/∂{chain.leaf}") else arrived[lhs]
        yield formula, expected, arrived


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(broadcast_programs(), programs()))
def test_every_shown_formula_runs_in_pytorch(source):
    """Each formula the chain rule shows, run by real PyTorch on the program's own tensors (their real dtypes:
    a condition stays booleans), gives the engine's numbers; a formula PyTorch cannot run fails here."""
    here = run_torch(source)
    assume(here is not None)
    exp = explain_program(source)
    assert exp.ok, (exp.error, source)
    call = exp.calls[0]
    sym = explain_symbolic(exp, 0, timeout=20)
    for chain in sym.chains:
        if not (chain.ok and chain.verified):
            continue
        names = dict(here)
        if chain.weight and chain.weight not in names and chain.weight.isidentifier():
            names[chain.weight] = torch.tensor(np.asarray(call.seed))
        for formula, expected, grads in shown_formulas(chain, call):
            text = formula
            env = dict(names)
            for k, (name, value) in enumerate(grads.items()):
                text = text.replace(name, f"_g{k}")
                env[f"_g{k}"] = torch.tensor(np.asarray(value))
            expected = torch.tensor(np.asarray(expected, dtype=np.float64))
            try:
                got = torch_value(text, env, chain.constants, dtype=torch.float32)   # the program's own dtype
            except Exception as error:  # noqa: BLE001 - the point: PyTorch must run what is shown
                raise AssertionError(f"{source}\nPyTorch cannot run the shown formula {formula!r}: {error!r}")
            torch.testing.assert_close(as_gradient(got, formula, expected.shape), expected, rtol=1e-4, atol=1e-5,
                                       equal_nan=True,
                                       msg=lambda m, f=formula: f"{source}\n{f}\n{m}")


def test_a_broadcast_leaf_gets_a_formula_of_its_own_shape():
    """Lesson 040's column times row: each total is a tensor of the leaf's shape that PyTorch runs
    (`r.sum(1, keepdim=True)` raised for the 1-D r; `c.sum(0)` had shape (1,) for r.grad of shape (3,))."""
    program = ("import torch\nc = torch.tensor([[1.], [2.]], requires_grad=True)\n"
               "r = torch.tensor([1., 2., 3.], requires_grad=True)\ntable = c * r\ntable.sum().backward()\n")
    exp = explain_program(program)
    here = run_torch(program)
    chains = {chain.leaf: chain for chain in explain_symbolic(exp, 0).chains}
    for leaf, grad in (("c", [[6.], [6.]]), ("r", [3., 3., 3.])):
        got = torch_value(chains[leaf].total, here)
        assert tuple(got.shape) == tuple(np.shape(grad)), chains[leaf].total
        torch.testing.assert_close(got, torch.tensor(grad, dtype=torch.float64))
