"""Honest checks: values as they were at each backward call, calls that raised, the program's own names."""
import json
import re

import numpy as np
from click.testing import CliRunner
from rich.console import Console

from engine.explain import explain_program, explain_symbolic
from engine.explain.render import render_chain, render_fd_check, render_jacobian, render_summary
from tutor.cli import main

SGD = """import torch
w = torch.tensor([1., -2.], requires_grad=True)
loss = (w ** 2).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
"""


def test_finite_differences_use_the_values_at_the_call():
    exp = explain_program(SGD)
    leaf = exp.calls[0].leaves[0]
    np.testing.assert_allclose(leaf.value, [1, -2])          # not the updated [0.8, -1.6]
    assert leaf.fd_agrees and leaf.vjp_matches
    chain = explain_symbolic(exp, 0).chains[0]
    assert chain.verified and chain.total == "2*w"


def test_a_backward_that_raised_shows_the_error_and_no_trace():
    exp = explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n"
                          "y.backward()\ny.backward()\n")
    first, second = exp.calls
    assert first.error is None and first.leaves and first.trace
    assert second.error is not None and not second.leaves and not second.trace
    assert second.line == 5
    text = str(render_fd_check(second).renderables[1])
    assert "RuntimeError" in text and "second time" in text
    assert not explain_symbolic(exp, 1).ok


def test_outputs_are_named_by_the_programs_expression():
    exp = explain_program("import torch\nt1 = torch.tensor([1., 2.], requires_grad=True)\n"
                          "t2 = torch.tensor([3., 4.])\ny = t1 * 5\n(t1 * t2).mean().backward()\n")
    assert exp.calls[0].output_name == "(t1 * t2).mean()"
    chain = explain_symbolic(exp, 0).chains[0]
    assert chain.text().startswith("∂((t1 * t2).mean())/∂t1") and chain.total == "t2/2"
    rebound = explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\nz = (x**2).sum()\n"
                              "z.backward()\nz = 5\n")
    assert rebound.calls[0].output_name == "z"



def test_module_parameters_are_named_as_the_program_reaches_them():
    exp = explain_program("import torch\nimport torch.nn as nn\nlayer = nn.Linear(2, 1)\n"
                          "layer(torch.ones(1, 2)).sum().backward()\n")
    assert sorted(leaf.name for leaf in exp.calls[0].leaves) == ["layer.bias", "layer.weight"]

def test_zero_and_nan_are_described_consistently():
    exp = explain_program("import torch\nx = torch.tensor([0., 4.], requires_grad=True)\ny = x.sqrt().sum()\n"
                          "y.backward()\n")
    leaf = exp.calls[0].leaves[0]
    assert leaf.structure["kind"] == "undefined"  # d sqrt(x)/dx is inf at 0: never called "does not depend"
    zero = explain_program("import torch\nx = torch.tensor([-1., -2.], requires_grad=True)\ny = x.relu().sum()\n"
                           "y.backward()\n")
    assert zero.calls[0].leaves[0].structure["kind"] == "zero"
    assert "1" in str(render_summary(zero.calls[0], lang="ja").title)


def test_a_jacobians_look_is_told_as_true_at_these_values_only():
    """The structure is read off J at the call's values alone: x * x at 0.5 has the identity for J there, and
    the tutorial's z.mean() at ones an equal entry per input; neither holds nearby, and the caption says so."""
    for source, kind in (("x = torch.full((3,), 0.5, requires_grad=True)\n(x * x).backward(torch.ones(3))\n",
                          "identity"),
                         ("x = torch.ones(2, 2, requires_grad=True)\nz = (x + 2) * (x + 2) * 3\nz.mean().backward()\n",
                          "constant")):
        call = explain_program("import torch\n" + source).calls[0]
        assert call.leaves[0].structure["kind"] == kind
        for lang, words in (("en", "at these values"), ("ja", "この値では")):
            head = render_jacobian(call, lang=lang).renderables[0].plain
            assert words in head, head


def test_cli_in_japanese_with_the_step_and_its_answer():
    lesson = "lessons/bundled/030-chain-rule.toml"
    result = CliRunner().invoke(main, ["explain", lesson, "--step", "x-grad", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["step"]["id"] == "x-grad" and data["step"]["expression"] == "x.grad"
    assert data["step"]["answer"]["kind"] == "tensor" and data["step"]["answer"]["shape"] == [3, 3]
    report = CliRunner().invoke(main, ["explain", lesson, "--step", "x-grad", "--lang", "ja", "--no-symbolic"])
    assert report.exit_code == 0 and "ヤコビ行列" in report.output and "葉テンソル" in report.output


def test_cli_explains_a_quiz_template():
    result = CliRunner().invoke(main, ["explain", "--step", "quiz:matmul", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["step"]["quiz"] == "matmul" and data["step"]["seed"] == 3 and data["calls"]
    assert CliRunner().invoke(main, ["explain", "--step", "quiz:nope"]).exit_code == 2


def test_nan_where_backward_has_nan_is_agreement_not_a_mismatch():
    """torch.where's untaken sqrt branch gives backward nan at x < 0: vᵀJ has nan at the same places, and the
    panel must not claim they differ; the finite differences (0 there) are shown as unable to confirm."""
    exp = explain_program("import torch\nx = torch.tensor([-1., 0., 4.], requires_grad=True)\n"
                          "y = torch.where(x > 0, x.sqrt(), torch.zeros(3))\ny.sum().backward()\n")
    leaf = exp.calls[0].leaves[0]
    assert np.isnan(leaf.contribution[:2]).all() and leaf.contribution[2] == 0.25
    assert leaf.vjp_matches
    np.testing.assert_allclose(leaf.finite_differences, [0, 0, 0.25], atol=1e-6)
    assert not leaf.fd_agrees


HOOKED = """import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
h = x * 2
h.register_hook(lambda g: g * 2)
z = (h ** 2).sum()
z.backward()
"""


def test_a_nan_or_inf_constant_keeps_the_symbolic_form(tmp_path):
    """A constant holding nan or inf is still a constant: where's condition was said, falsely, to be why a nan
    constant left no formula, and an inf factor failed the whole explanation."""
    head = "import torch\nx = torch.tensor([1., -2.], requires_grad=True)\n"
    where = explain_program(head + "y = torch.where(x > 0, x, torch.tensor(float('nan'))).sum()\ny.backward()\n")
    sym = explain_symbolic(where, 0)
    assert sym.ok and sym.chains[0].verified and sym.chains[0].total == "torch.tensor([1., 0.])"   # torch: x.grad = [1., 0.]
    scaled = explain_program(head + "y = (x * torch.tensor([float('inf'), 1.])).sum()\ny.backward()\n")
    assert scaled.ok
    sym = explain_symbolic(scaled, 0)
    chain = sym.chains[0]                # inf is no Python literal: the constant is c₁, its values shown beside
    assert sym.ok and chain.total == "c₁" and np.array_equal(chain.constants[0][1], [np.inf, 1])
    for k, program in enumerate((where, scaled)):
        path = tmp_path / f"p{k}.py"
        path.write_text(program.source)
        for lang in ("en", "ja"):
            result = CliRunner().invoke(main, ["explain", str(path), "--lang", lang])
            assert result.exit_code == 0
            assert "could not" not in result.output and "できませんでした" not in result.output
            assert "cannot write" not in result.output and "記号の式で書けません" not in result.output


def test_an_infinite_entry_keeps_the_symbolic_jacobian():
    """sqrt at 0: J's entry 1/(2*sqrt(x₁)) is inf there (torch: x.grad = [inf, 0.25]); the Jacobian panel said no
    operation had a symbolic form while the chain rule panel showed sqrt's."""
    exp = explain_program("import torch\nx = torch.tensor([0., 4.], requires_grad=True)\ny = x.sqrt().sum()\n"
                          "y.backward()\n")
    sym = explain_symbolic(exp, 0)
    assert sym.ok
    np.testing.assert_array_equal(sym.leaves[0].substituted, [[np.inf, 0.25]])


def _text(renderable) -> str:
    console = Console(width=100, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def test_infinite_and_nan_entries_are_written_as_pytorch_prints_them():
    """A symbolic entry that is infinite reads inf (or -inf, nan) as in PyTorch's x.grad, never sympy's oo; in the
    chain rule such a constant is c₁ (inf is no Python literal), its values beside it."""
    exp = explain_program("import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\n"
                          "y = (x * torch.tensor([float('inf'), 1., float('nan')])).sum()\ny.backward()\n")
    sym = explain_symbolic(exp, 0)
    assert sym.ok and sym.leaves[0].verified
    shown = _text(render_jacobian(exp.calls[0], sym))
    assert not re.search(r"\boo\b", shown) and "│ inf │ 1 │ nan │" in shown
    chain = _text(render_chain(exp.calls[0], sym))
    assert "∂y/∂x = c₁\n" in chain and "│ inf │ 1 │ nan │" in chain
    exp = explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                          "y = (x * torch.tensor([-float('inf'), 1.]) * x).sum()\ny.backward()\n")
    sym = explain_symbolic(exp, 0)
    shown = _text(render_jacobian(exp.calls[0], sym))
    assert sym.leaves[0].verified and "-inf·x₁" in shown and not re.search(r"\boo\b", shown)


def test_a_negative_zero_constant_is_shown_as_minus_zero():
    """x / [0., -0., 2.]: PyTorch's x.grad is [inf, -inf, 0.5]; the formula 1/c₁ gives it only with c₁'s -0 shown
    as -0 (PyTorch prints -0.), never as a 0 that would give inf."""
    program = ("import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\n"
               "y = (x / torch.tensor([0., -0., 2.])).sum()\ny.backward()\n")
    exp = explain_program(program)
    np.testing.assert_array_equal(exp.calls[0].leaves[0].contribution, [np.inf, -np.inf, 0.5])
    chain = _text(render_chain(exp.calls[0], explain_symbolic(exp, 0)))
    assert "∂y/∂x = 1/c₁" in chain and "│ 0 │ -0 │ 2 │" in chain


def test_the_chain_rule_names_the_output_as_the_program_wrote_it():
    """`(x * 2 * x).sum().backward()`: the left-hand side is the learner's code, `*` and all; only the formulas
    on the right are written as the articles write them (4x)."""
    exp = explain_program("import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\n"
                          "(x * 2 * x).sum().backward()\n")
    shown = _text(render_chain(exp.calls[0], explain_symbolic(exp, 0)))
    assert "∂((x * 2 * x).sum())/∂x = ① + ② = 4x" in shown and "·" not in shown.split("=")[0]


def test_std_and_norm_of_a_whole_tensor_have_a_symbolic_form():
    """Their sqrt met var's (or the sum of squares') one expression, not an array, and the Jacobian panel said
    'std has no symbolic form' / 'norm has no symbolic form' while the chain rule panel showed x/x.norm()."""
    for program, total in (("y = x.norm()", "x/x.norm()"), ("y = x.std()", "")):
        exp = explain_program("import torch\nx = torch.tensor([3., 4., 12.], requires_grad=True)\n"
                              f"{program}\ny.backward()\n")
        sym = explain_symbolic(exp, 0)
        assert sym.ok and sym.leaves[0].verified, sym.note
        assert sym.chains[0].verified and sym.chains[0].total == total


def test_the_trace_follows_only_what_the_call_computes_and_writes():
    """autograd.grad(y, x) changes no .grad and computes nothing toward w; backward(inputs=[w]) leaves x.grad
    None (torch: after both calls x.grad is None and w.grad == x). The trace said '.grad was empty: it
    becomes this gradient' for x and w after autograd.grad, and for x after inputs=[w]."""
    exp = explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                          "w = torch.tensor([3., 4.], requires_grad=True)\n"
                          "y = (x * w).sum() + (w.exp() * 2).sum()\ngx, = torch.autograd.grad(y, x)\n"
                          "y2 = (x * w).sum() + (x.exp() * 2).sum()\ny2.backward(inputs=[w])\n")
    grad, inputs = exp.calls
    labels = [[step.label for step in call.trace] + [flow.target_label for step in call.trace for flow in step.flows]
              for call in exp.calls]
    assert not any("AccumulateGrad" == step.name for step in grad.trace)
    assert not any("(w)" in label or "Exp" in label for label in labels[0])
    assert [step.label for step in inputs.trace if step.name == "AccumulateGrad"] == ["AccumulateGrad (w)"]
    assert not any("(x)" in label or "Exp" in label for label in labels[1])
    np.testing.assert_allclose(inputs.trace[-1].grad_after, [1, 2])


def test_a_per_element_line_brackets_an_output_expression():
    """(y * y).sum() differentiated element by element: ∂((y * y).sum())/∂x₁, as the total's line writes it,
    not ∂(y * y).sum()/∂x₁, which reads as the derivative of y * y, then summed."""
    exp = explain_program("import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * 1\ny[0] = 10.\n"
                          "(y * y).sum().backward()\n")
    chain = explain_symbolic(exp, 0).chains[0]
    assert chain.elements and chain.elements[0] == ("∂((y * y).sum())/∂x₁", "0")   # torch: x.grad[0] = 0


def test_hooks_run_in_the_backprop_trace_and_the_checks_say_why_they_differ():
    """A hook that doubles h's gradient: the trace shows what backward really sent (x.grad = 16, 32, 48),
    not what the rules alone give; vᵀJ and the finite differences (the function's 8, 16, 24) say why."""
    from engine.explain.messages import t

    call = explain_program(HOOKED).calls[0]
    assert call.hooked
    leaf_step = next(step for step in call.trace if step.name == "AccumulateGrad")
    np.testing.assert_allclose(leaf_step.incoming, [16, 32, 48])
    np.testing.assert_allclose(call.leaves[0].grad_after, leaf_step.incoming)
    assert [step.hooked for step in call.trace if step.name == "MulBackward0"] == [True]
    leaf = call.leaves[0]
    assert not leaf.vjp_matches and not leaf.fd_agrees
    np.testing.assert_allclose(leaf.vjp, [8, 16, 24])
    for lang in ("en", "ja"):
        assert "register_hook" in t("hooks_changed", lang, x="x") and "register_hook" in t("trace_hooked", lang)
        assert str(render_fd_check(call, lang=lang).renderables[-1]) == t("fd_hooked", lang, diff="2.40e+01")


MODULE_HOOKED = """import torch
lin = torch.nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -2.0]]))
    lin.bias.fill_(0.5)
def halve(module, grad_input, grad_output):
    return (grad_input[0] * 0.5,)
lin.register_full_backward_hook(halve)
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
y = lin(x).sum()
y.backward()
"""


def test_a_module_hook_is_said_as_a_hook_not_as_a_mismatch():
    """A full backward hook that halves x's gradient: x.grad is [0.5, -1], the function's own [1, -2]. Its
    BackwardHookFunctionBackward nodes are flagged as a tensor's register_hook is: the finite-difference panel
    says a hook changed the gradient, the trace marks the nodes where module hooks run, the VJP panel says its J
    went through the hook, and the symbolic note names the hook, not a "custom autograd.Function"."""
    from engine.explain.messages import t
    from engine.explain.render import render_vjp

    call = explain_program(MODULE_HOOKED).calls[0]
    assert call.hooked and call.module_hooks
    x = next(leaf for leaf in call.leaves if leaf.name == "x")
    np.testing.assert_allclose(x.grad_after, [[0.5, -1.0]])
    np.testing.assert_allclose(x.finite_differences, [[1.0, -2.0]], atol=1e-6)   # the function's own
    assert not x.fd_agrees
    marked = [step.name for step in call.trace if step.module_hook]
    assert marked == ["BackwardHookFunctionBackward"] * 2 and not any(step.hooked for step in call.trace)
    for lang in ("en", "ja"):
        verdicts = [str(r) for r in render_fd_check(call, lang=lang).renderables if "1.00e+00" in str(r)]
        assert verdicts == [t("fd_hooked", lang, diff="1.00e+00")]
        assert str(render_vjp(call, lang=lang).renderables[0]) == t("module_hooked", lang)
    assert explain_symbolic(call).note_key == "limit_module_hook"
    # a learner's own Function is still named as one (identity, not the node's name)
    plain = explain_program(MODULE_HOOKED.replace("lin.register_full_backward_hook(halve)\n", "")).calls[0]
    assert not plain.hooked and not plain.module_hooks and all(leaf.fd_agrees for leaf in plain.leaves)


def test_a_paths_share_through_a_named_tensor_is_not_labelled_as_its_derivative():
    """y = sigmoid(x) + tanh(x), then y.sum(): both paths pass the named y; ∂y/∂x is the sum of the two, so
    neither path's line nor its table may say ∂y/∂x = (its share)."""
    exp = explain_program("import torch\nx = torch.tensor([-1., 0., 1.], requires_grad=True)\n"
                          "y = torch.sigmoid(x) + torch.tanh(x)\ny.sum().backward()\n")
    sym = explain_symbolic(exp, 0)
    chain = sym.chains[0]
    assert chain.verified and len(chain.paths) == 2
    assert "∂y/∂x" not in chain.text()
    for lang in ("en", "ja"):
        console = Console(width=100, record=True, file=open("/dev/null", "w"))
        console.print(render_chain(exp.calls[0], sym, lang=lang))
        assert "∂y/∂x" not in console.export_text()


def test_a_paths_share_is_not_written_as_the_whole_derivative():
    """(x * x).sum(): x reaches y twice; a path's share (x) must not read ∂y/∂x = x."""
    chain = explain_symbolic(explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                                             "y = (x * x).sum()\ny.backward()\n"), 0).chains[0]
    assert chain.verified and chain.text().splitlines() == ["① = x", "② = x", "∂y/∂x = ① + ② = 2*x"]  # (the panel prints 2x)


def _plain(renderable) -> str:
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return " ".join(console.export_text().split())


def test_an_all_zero_jacobian_does_not_claim_y_ignores_x_at_a_kink():
    """torch: relu'(0) = 0, yet relu(0 + δ) = δ: a zero J at a kink is PyTorch's pick, not "x does not move y"."""
    call = explain_program("import torch\nx = torch.tensor([0., 0.], requires_grad=True)\n"
                           "torch.relu(x).sum().backward()\n").calls[0]
    assert call.leaves[0].structure["kind"] == "zero"
    for lang, words in (("en", "unless x sits at a kink"), ("ja", "折れ曲がる点")):
        assert words in _plain(render_jacobian(call, lang=lang))


def test_the_formula_is_not_said_to_equal_a_grad_that_holds_something_else():
    """After torch.autograd.grad x.grad is None, and after a second backward x.grad holds both calls' sums:
    in neither case does the verified formula equal x.grad, so the panel names the call's own gradient."""
    returned = explain_program("import torch\nx = torch.tensor(2., requires_grad=True)\n"
                               "(dx,) = torch.autograd.grad(x ** 3, x)\n")
    twice = explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                            "(x * x).sum().backward()\n(x * x).sum().backward()\n")
    for exp, index in ((returned, 0), (twice, 1)):
        for lang, words in (("en", "the gradient this call computed for x"), ("ja", "この呼び出しが x について計算した勾配")):
            text = _plain(render_chain(exp.calls[index], explain_symbolic(exp, index), lang=lang))
            assert words in text and "x.grad from backward" not in text, text
    first = _plain(render_chain(twice.calls[0], explain_symbolic(twice, 0)))
    assert "the formula equals x.grad from backward" in first
    summary = _plain(render_summary(returned.calls[0]))   # the program never called backward()
    assert "torch.autograd.grad starts its backward sweep from the implicit gradient v = 1" in summary, summary
    assert "backward() starts" in _plain(render_summary(twice.calls[0]))


def test_a_returned_jacobian_is_not_said_to_be_too_large_or_pushed_back_at_once():
    """torch.autograd.functional.jacobian of a length-2 softmax: the panel said "x: too many elements for a
    finite-difference check" (2 elements; batched calls are simply not replayed) and that every one-hot row went
    back "at once", while torch runs one autograd.grad per output element unless vectorize=True."""
    call = explain_program("import torch\nx = torch.tensor([1., 2.])\n"
                           "J = torch.autograd.functional.jacobian(lambda x: x.softmax(0), x)\n").calls[0]
    assert call.batched
    for lang, words in (("en", "returned a whole Jacobian"), ("ja", "ヤコビ行列全体を返したので")):
        fd = _plain(render_fd_check(call, lang=lang))
        assert words in fd and "too many" not in fd and "多すぎる" not in fd, fd
    summary = _plain(render_summary(call))
    assert "one vᵀJ per output element" in summary and "at once" not in summary, summary
    assert "returns the whole Jacobian" in summary and "returns the gradient" not in summary, summary
    assert "x: its Jacobian is returned" in summary and "ヤコビ行列全体を返します" in _plain(render_summary(call, lang="ja"))


def test_a_straight_through_backward_is_not_put_down_to_a_kink_or_a_bug():
    """Lesson 160's SignSTE passes the gradient through sign() on purpose: finite differences give 0, torch's x.grad
    is w, and the panel named only "a kink … or a bug" as the reason."""
    call = explain_program("import torch\n"
                           "class SignSTE(torch.autograd.Function):\n"
                           "    @staticmethod\n    def forward(ctx, input):\n        return input.sign()\n"
                           "    @staticmethod\n    def backward(ctx, grad_output):\n        return grad_output\n"
                           "x = torch.tensor([-2., 0.5, 3.], requires_grad=True)\n"
                           "(SignSTE.apply(x) * torch.tensor([4., 5., 6.])).sum().backward()\n").calls[0]
    assert not call.leaves[0].fd_agrees
    for lang, words in (("en", "straight-through estimator"), ("ja", "ストレート・スルー推定量")):
        assert words in _plain(render_fd_check(call, lang=lang))


GRADCHECK = """import torch
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input ** 3
    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 3 * input ** 2
x = torch.tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True)
ok = torch.autograd.gradcheck(Cube.apply, (x,))
"""


def test_gradchecks_sweeps_are_explained_as_what_they_are():
    """torch.autograd.gradcheck returns True or False, and builds the Jacobian by pushing back the whole output
    with one-hot grad_outputs (torch 2.13 `_compute_analytical_jacobian_rows`). The panel said "returns the
    gradient" and called the length-3 output a scalar (the engine swept one selected element at a time)."""
    calls = explain_program(GRADCHECK).calls
    assert len(calls) == 3
    for k, call in enumerate(calls):
        assert call.output_shape == (3,) and np.array_equal(np.asarray(call.seed), np.eye(3)[k])
        summary = _plain(render_summary(call))
        assert "returns True or False" in summary and "one-hot" in summary, summary
        assert "is a scalar" not in summary and "returns the gradient" not in summary, summary
    assert "True か False" in _plain(render_summary(calls[0], lang="ja"))


def test_an_operator_expression_keeps_its_parentheses_before_backward():
    """`(x * x).backward(v)` was shown as "x * x.backward(…)" and "vᵀ·∂x * x/∂x": x times x.backward()."""
    exp = explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                          "(x * x).backward(torch.tensor([1., 3.]))\n")
    summary = _plain(render_summary(exp.calls[0]))
    assert "(x * x).backward(…)" in summary and "x * x.backward" not in summary, summary
    chain = _plain(render_chain(exp.calls[0], explain_symbolic(exp, 0)))
    assert "∂(x * x)/∂x" in chain and "∂x * x/∂x" not in chain, chain
    jacobian = explain_program("import torch\nx = torch.tensor([1., 2.])\n"
                               "J = torch.autograd.functional.jacobian(lambda x: x.softmax(0), x)\n")
    assert jacobian.calls[0].output_name == "(lambda x: x.softmax(0))(x)"   # was "lambda x: x.softmax(0)(x)"


def test_a_one_element_output_that_is_not_0_dim_is_not_called_a_scalar():
    """torch lets backward() start from v = 1 for any output with numel() == 1 (run: a (1,)-shaped y works), so
    the summary, the JSON and the Jacobian's kind say "one element", and "scalar" stays for a 0-dim output."""
    source = "import torch\nx = torch.tensor([2., 3.], requires_grad=True)\ny = (x * x).sum({})\ny.backward()\n"
    one, scalar = (explain_program(source.format(args)).calls[0] for args in ("0, keepdim=True", ""))
    for lang, words, wrong in (("en", "y is a one-element tensor, so", "scalar"), ("ja", "要素 1 個のテンソル", "スカラー")):
        text = _plain(render_summary(one, lang=lang)) + _plain(render_jacobian(one, lang=lang))
        assert words in text and wrong not in text, text
    assert one.v_words.startswith("y is a one-element tensor")
    assert "y is a scalar, so backward() starts" in _plain(render_summary(scalar))
    assert scalar.v_words.startswith("y is a scalar")
