"""Higher-order gradients, hooks, anomaly detection, the functional API and custom Functions against
real PyTorch: values, gradients of gradients, grad_fn names of backward-of-backward nodes, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine

torch = pytest.importorskip("torch")

# (expression of x (and w), input kind)
SECOND_ORDER = [
    "x ** 3", "x.pow(2.5)", "x.exp()", "x.log()", "x.sqrt()", "x.sin()", "x.cos()", "x.tanh()", "x.sigmoid()",
    "x.relu() * x", "x.abs() * x", "x.reciprocal()", "x * w", "x / w", "w / x", "x.log1p()",
    "(x * w).sum(0)", "x.mean(1)", "x.sum(1, keepdim=True) * x", "x.softmax(1)", "x.log_softmax(1)",
    "x.logsumexp(1)", "x.var(1)", "x.std(0)", "x.norm()", "x.norm(dim=1)", "x.prod(1)", "x.max() * x",
    "x.max(1).values * x.sum()", "x[0] * x[1]", "x[:, 1:] ** 2", "x[[0, 1, 1]] ** 2", "x.t() @ w",
    "x @ w.t()", "(x.reshape(-1) @ w.reshape(-1)) * x", "x.transpose(0, 1).exp()", "x.permute(1, 0) ** 2",
    "x.unsqueeze(0).expand(2, 2, 3) ** 2", "x.flip(0) * x", "torch.cat([x, w]) ** 2", "torch.stack([x, w]) ** 3",
    "torch.where(x > 0, x ** 2, w ** 3)", "x.clamp(-0.5, 0.5) * x", "torch.maximum(x, w) ** 2",
    "torch.nn.functional.mse_loss(x, w) * x", "torch.nn.functional.mse_loss(x ** 2, w, reduction='none')",
    "torch.nn.functional.binary_cross_entropy_with_logits(x, w.sigmoid())",
    "torch.nn.functional.binary_cross_entropy(x.sigmoid(), w.sigmoid())",
    "torch.nn.functional.cross_entropy(x, torch.tensor([1, 2]))",
    "torch.nn.functional.nll_loss(x.log_softmax(1), torch.tensor([1, 0]), reduction='sum') * x",
    "x.masked_fill(x > 0, 2.0) ** 2", "list(x)[0] ** 3", "x.squeeze().unsqueeze(1) ** 3",
]


def _run(lib, code, arrays, cot1, cot2):
    x = lib.tensor(arrays[0], requires_grad=True)
    w = lib.tensor(arrays[1], requires_grad=True)
    y = eval(code, {"torch": lib, "x": x, "w": w})
    gx, gw = lib.autograd.grad(y, (x, w), lib.tensor(cot1.reshape(tuple(y.shape)).astype(np.float64)),
                               create_graph=True, allow_unused=True)
    grads = [g for g in (gx, gw) if g is not None]
    names = [None if g.grad_fn is None else g.grad_fn.name() for g in grads]
    total = sum((g * lib.tensor(cot2[: g.numel()].reshape(tuple(g.shape)))).sum() for g in grads)
    if not total.requires_grad:
        return [g.detach().numpy() for g in grads], names, None
    second = lib.autograd.grad(total, (x, w), allow_unused=True, materialize_grads=True)
    return [g.detach().numpy() for g in grads], names, [s.numpy() for s in second]


@pytest.mark.parametrize("code", SECOND_ORDER)
def test_grad_of_grad_matches_torch(code):
    rng = np.random.default_rng(abs(hash(code)) % 2**32)
    arrays = [rng.uniform(0.3, 1.5, (2, 3)) * rng.choice([-1, 1], (2, 3)), rng.uniform(0.3, 1.5, (2, 3))]
    if "log" in code or "sqrt" in code or "pow(2.5)" in code:
        arrays[0] = np.abs(arrays[0])
    if "x.t() @ w" in code:
        arrays[1] = arrays[1][:, :2].copy()
    cot1 = rng.standard_normal(64)
    cot2 = rng.standard_normal(64)
    with torch.no_grad():
        shape = eval(code, {"torch": torch, "x": torch.tensor(arrays[0]), "w": torch.tensor(arrays[1])}).shape
    cot1 = cot1[: int(np.prod(shape))]
    expected = _run(torch, code, arrays, cot1, cot2)
    actual = _run(engine, code, arrays, cot1, cot2)
    for e, a in zip(expected[0], actual[0]):
        np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-12)
    if expected[2] is None:
        assert actual[2] is None
    else:
        for e, a in zip(expected[2], actual[2]):
            np.testing.assert_allclose(a, e, rtol=1e-8, atol=1e-10)


# grad_fn names PyTorch shows on a first derivative taken with create_graph=True
NAMES = {"x ** 3": "MulBackward0", "x.sin()": "MulBackward0", "x.tanh()": "TanhBackwardBackward0",
         "x.sigmoid()": "SigmoidBackwardBackward0", "x.relu()": "ThresholdBackwardBackward0",
         "x.exp()": "MulBackward0", "x * x": "AddBackward0", "x.softmax(0)": "SoftmaxBackwardDataBackward0",
         "x.log_softmax(0)": "LogSoftmaxBackwardDataBackward0",
         "torch.nn.functional.mse_loss(x, torch.zeros(2))": "MseLossBackwardBackward0",
         "x.log()": "DivBackward0", "x / (x + 1)": "AddBackward0"}


@pytest.mark.parametrize("code", sorted(NAMES))
def test_first_derivative_grad_fn_names(code):
    for lib in (torch, engine):
        x = lib.tensor([1., 2.], requires_grad=True)
        (g,) = lib.autograd.grad(eval(code, {"torch": lib, "x": x}).sum(), x, create_graph=True)
        assert g.grad_fn.name() == NAMES[code], (lib.__name__, code)
    assert repr(g).endswith(f"grad_fn=<{NAMES[code]}>)")


def test_pytorch_docs_double_backward_examples():
    for lib in (torch, engine):
        x = lib.tensor(2.0, requires_grad=True)
        y = x ** 3
        (dy,) = lib.autograd.grad(y, x, create_graph=True)
        (d2y,) = lib.autograd.grad(dy, x)
        assert (dy.item(), d2y.item()) == (12.0, 12.0)
        assert repr(dy) == "tensor(12., grad_fn=<MulBackward0>)"
        # backward(create_graph=True), then backward through x.grad (a gradient penalty)
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x ** 2).sum().backward(create_graph=True)
        assert x.grad.grad_fn.name().endswith("CopyBackwards")
        penalty = (x.grad ** 2).sum()
        x.grad = None
        penalty.backward()
        np.testing.assert_allclose(x.grad.numpy(), [8., 16., 24.])


def test_backward_create_graph_warns_as_pytorch():
    for lib in (torch, engine):
        x = lib.tensor([1., 2.], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (x * x).sum().backward(create_graph=True)
        messages = [str(w.message) for w in caught]
        if lib is engine or messages:  # PyTorch warns once per process
            assert messages[0].startswith("Using backward() with create_graph=True will create a reference cycle")


def _both(fn):
    return fn(torch), fn(engine)


def _ran(source: str, *names: str) -> tuple:
    """`source` run as a snippet on real PyTorch and on the engine: the values of `names` after each run."""
    def run(lib):
        env = {"torch": lib}
        exec(source, env)  # noqa: S102 - the tests' own snippets
        return tuple(env[name] for name in names) if len(names) > 1 else env[names[0]]
    return _both(run)


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif a is None:
        assert b is None
    else:
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-6, atol=1e-7)
        assert tuple(a.shape) == tuple(b.shape)
        assert (a.grad_fn is None) == (b.grad_fn is None)


FUNCTIONAL = [
    "F.hessian(lambda t: (t ** 3).sum(), torch.tensor([1., 2.]))",
    "F.hessian(lambda t: (t.sin() * t.exp()).sum(), torch.tensor([[1., 2.], [0.5, -1.]]))",
    "F.hessian(lambda a, b: (a ** 2 * b).sum(), (torch.tensor([1., 2.]), torch.tensor([3., 4.])))",
    "F.hessian(lambda t: (t ** 3).sum(), torch.tensor([1., 2.]), create_graph=True)",
    "F.hessian(lambda t: t.sum() * 0 + 1, torch.tensor([1., 2.]))",
    "F.hvp(lambda t: (t ** 3).sum(), torch.tensor([1., 2.]), torch.tensor([1., 0.5]))",
    "F.vhp(lambda t: (t ** 3).sum(), torch.tensor([1., 2.]), torch.tensor([1., 0.5]))",
    "F.hvp(lambda a, b: (a * b.exp()).sum(), (torch.tensor([1., 2.]), torch.tensor([0.1, 0.2])), "
    "(torch.ones(2), torch.ones(2)))",
    "F.jvp(lambda t: t ** 3, torch.tensor([1., 2.]), torch.tensor([1., 0.5]))",
    "F.jvp(lambda t: (t.tanh() @ torch.ones(2, 3)), torch.tensor([1., 2.]), torch.tensor([1., 0.5]))",
    "F.jvp(lambda t: (t ** 3).sum(), torch.tensor(2.))",
    "F.jvp(lambda a, b: a * b, (torch.tensor([1., 2.]), torch.tensor([3., 4.])), (torch.ones(2), torch.zeros(2)))",
    "F.vjp(lambda a, b: a * b, (torch.tensor([1., 2.]), torch.tensor([3., 4.])), torch.ones(2))",
    "F.jacobian(lambda a, b: (a * b, a.exp()), (torch.tensor([1., 2.]), torch.tensor([3., 4.])))",
    "F.jacobian(lambda t: t ** 2, torch.tensor([1., 2.]), create_graph=True)",
    "F.hvp(lambda t: t ** 3, torch.tensor([1., 2.]), torch.ones(2))",
    "F.jvp(lambda t: t ** 3, torch.tensor([1., 2.]))",
    "F.hessian(lambda t: t ** 3, torch.tensor([1., 2.]))",
]


@pytest.mark.parametrize("code", FUNCTIONAL)
def test_functional_api_matches_torch(code):
    def run(lib):
        try:
            return eval(code, {"torch": lib, "F": lib.autograd.functional})
        except RuntimeError as err:
            return ("error", str(err))
    expected, actual = _both(run)
    if isinstance(expected, tuple) and expected and expected[0] == "error":
        assert actual == expected
    else:
        _same(expected, actual)


def test_hooks_match_torch():
    def run(lib):
        log = []
        x = lib.tensor([1., 2.], requires_grad=True)
        h = x.register_hook(lambda g: g * 10)
        y = x * 2
        y.register_hook(lambda g: log.append(g.tolist()))
        y.retain_grad()
        y.register_hook(lambda g: g + 1)
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.tolist())))
        y.sum().backward()
        log.append((x.grad.tolist(), y.grad.tolist()))
        h.remove()
        x.grad = None
        (x * 2).sum().backward()
        log.append(x.grad.tolist())
        (g,) = lib.autograd.grad((x * 3).sum(), x)
        log.append(g.tolist())
        for bad in (lambda: lib.ones(2).register_hook(print),
                    lambda: (x * 2).register_post_accumulate_grad_hook(print)):
            try:
                bad()
            except RuntimeError as err:
                log.append(str(err))
        return log
    expected, actual = _both(run)
    assert actual == expected


def test_backward_inputs_and_grad_options_match_torch():
    def run(lib):
        out = []
        x = lib.tensor([1., 2.], requires_grad=True)
        z = lib.tensor([1., 2.], requires_grad=True)
        (x * z).sum().backward(inputs=[x])
        out.append((x.grad.tolist(), z.grad))
        w = x * 3
        w.sum().backward(inputs=[w])
        out.append(w.grad.tolist())
        out.append([t.tolist() for t in lib.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)])
        out.append([t.tolist() for t in lib.autograd.grad([x.sum(), (x * 2).sum()], [x])])
        y = x * 2
        out.append([t.tolist() for t in lib.autograd.grad(y.sum(), [y, x])])
        for bad in (lambda: (x * 3).sum().backward(inputs=[]),
                    lambda: lib.autograd.grad(x.sum(), lib.ones(2)),
                    lambda: lib.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True),
                    lambda: lib.autograd.grad([x.sum(), x.sum()], [x], grad_outputs=[lib.tensor(1.)])):
            try:
                bad()
            except (RuntimeError, ValueError) as err:
                out.append((type(err).__name__, str(err)))
        return out
    expected, actual = _both(run)
    assert actual == expected


def test_detect_anomaly_names_the_op():
    def run(lib):
        x = lib.tensor([0., 1.], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                y = x.sqrt() * 0
                z = y / y.sum()
                try:
                    z.sum().backward()
                except RuntimeError as err:
                    message = str(err)
        texts = [str(w.message) for w in caught if w.category is UserWarning]
        return message, texts[0], texts[1].split("\n")[0], "y / y.sum()" in texts[1]
    expected, actual = _both(run)
    assert actual[:3] == expected[:3]
    assert actual[3]


DOCS_FUNCTION = '''
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
y = Exp.apply(x)
out = [repr(y), y.grad_fn.name()]
y.sum().backward()
out.append(x.grad.tolist())
try:
    y.sum().backward()
except RuntimeError as err:
    out.append(str(err))
a = torch.tensor([[1., 2.]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[0.5, -1.], [2., 1.]], dtype=torch.float64, requires_grad=True)
b = torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=False)
z = LinearFunction.apply(a, w, b)
z.sum().backward()
out += [repr(z.detach()), a.grad.tolist(), w.grad.tolist(), b.grad]
out.append(torch.autograd.gradcheck(LinearFunction.apply, (a, w, b), eps=1e-6, atol=1e-4))
m = MulConstant.apply(x, 3.0)
out.append(torch.autograd.grad(m.sum(), x)[0].tolist())
out.append(torch.autograd.gradcheck(Exp.apply, (x,)))
out.append(torch.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,)))
'''


def test_custom_function_docs_examples_match_torch():
    expected, actual = _ran(DOCS_FUNCTION, "out")
    assert actual == expected


def test_gradcheck_failure_message_matches_torch():
    code = '''
class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3

x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
try:
    torch.autograd.gradcheck(Wrong.apply, (x,))
except RuntimeError as err:
    message = str(err)
quiet = torch.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)
'''

    expected, actual = _ran(code, "message", "quiet")
    assert actual == expected


SEVERAL_OUTPUTS = '''
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2, x ** 2, (x > 0).long()

    @staticmethod
    def backward(ctx, ga, gb, gc):
        x, = ctx.saved_tensors
        return ga * 2 + gb * 2 * x


x = torch.tensor([1., -2., 3.], dtype=torch.float64, requires_grad=True)
a, b, c = Split.apply(x)
s = a * b + b
def shown(edge):
    return None if edge[0] is None else (type(edge[0]).__name__, edge[1])
out = [a.grad_fn is b.grad_fn, type(a.grad_fn).__name__, c.grad_fn, c.requires_grad,
       [shown(e) for e in s.grad_fn.next_functions[0][0].next_functions],
       [shown(e) for e in a.grad_fn.next_functions],
       s.grad_fn.next_functions[1][0] is b.grad_fn, s.grad_fn.next_functions[0][0].next_functions[0][0] is a.grad_fn]
s.sum().backward(retain_graph=True)
out.append(x.grad.tolist())
g, = torch.autograd.grad((a * b).sum(), x, create_graph=True)
out.append(torch.autograd.grad(g.sum(), x)[0].tolist())
'''


def test_a_function_with_several_outputs_has_one_node_for_them():
    """PyTorch gives a custom Function one node: each output's grad_fn is that node, reached by an edge numbered
    as the output (`next_functions` shows (node, 1) for the second); gradients are unchanged."""
    expected, actual = _ran(SEVERAL_OUTPUTS, "out")
    assert actual == expected
    assert expected[0] is True


HOOKED_SPLIT = '''
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2, x ** 2

    @staticmethod
    def backward(ctx, ga, gb):
        x, = ctx.saved_tensors
        return ga * 2 + gb * 2 * x


x = torch.tensor([1., -2., 3.], dtype=torch.float64, requires_grad=True)
a, b = Split.apply(x)
seen = []
def pre(grad_outputs):
    seen.append(("pre", [g.tolist() for g in grad_outputs]))
    return grad_outputs[0], grad_outputs[1] * 10
def post(grad_inputs, grad_outputs):
    seen.append(("post", [g.tolist() for g in grad_inputs], [g.tolist() for g in grad_outputs]))
a.grad_fn.register_prehook(pre)
b.grad_fn.register_hook(post)
(a * 3 + b * 5).sum().backward()
seen.append(x.grad.tolist())
'''


def test_hooks_on_a_shared_function_node_get_one_gradient_per_output():
    """A custom Function with several outputs has one grad_fn: its pre-hook and hook see grad_outputs as one
    tensor per output (not the engine's packed array), and a pre-hook's replacement of one of them is used."""
    def run(mod):
        env = {"torch": mod}
        exec(HOOKED_SPLIT, env)  # noqa: S102 - the program above
        return env["seen"]
    expected, actual = _both(run)
    assert actual == expected
