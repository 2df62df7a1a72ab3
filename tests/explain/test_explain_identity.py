"""Names by identity, formulas checked at more than one point, no raw internals (issue #25).

A program name is used only for the tensor bound to that very object; anything else is a constant,
written by its value (or c₁ defined beside the formula). Every formula must give the engine's gradient at
the call's values and with the leaves moved, so a formula true at one point by coincidence is never shown.
"""
import numpy as np
import pytest
import sympy
from rich.console import Console

from engine.explain import explain_program, explain_symbolic
from engine.explain.chain import Where, nearby
from engine.explain.render import render_chain, render_graph, render_jacobian
from engine.ops import OPS
from lessons.course import load_course
from lessons.programs import ProgramBuilder

torch = pytest.importorskip("torch")


def text_of(renderable, width: int = 100) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def chain_of(program: str, index: int = 0):
    exp = explain_program(program)
    assert exp.ok, exp.error
    sym = explain_symbolic(exp, index, timeout=10)
    return exp.calls[index], sym, sym.chains[0]


X = "import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\n"


def test_an_unnamed_constant_equal_to_the_leaf_is_not_called_by_the_leafs_name():
    call, _, chain = chain_of(X + "y = (x * torch.tensor([1., 2., 3.])).sum()\ny.backward()\n")
    assert chain.verified and chain.total == "torch.tensor([1., 2., 3.])"   # the constant's value, never "x"


def test_a_literal_weight_equal_to_the_leaf_is_v_not_x():
    call, _, chain = chain_of(X + "y = x**2\ny.backward(torch.tensor([1., 2., 3.]))\n")
    assert chain.weight == "v" and chain.total == "2*v*x"
    assert "weight x" not in text_of(render_chain(call, explain_symbolic(call)))


def test_a_weight_is_called_what_the_program_passed():
    call, _, chain = chain_of(X + "w = torch.tensor([1., 2., 3.])\nv = torch.tensor([5., 6., 7.])\n"
                              "y = x**2\ny.backward(w)\n")
    assert call.weight == "w" and chain.weight == "w" and chain.total == "2*w*x"
    keyword = explain_program(X + "g = torch.tensor([1., 0., 2.])\ntorch.autograd.backward(x * 3, grad_tensors=[g])\n")
    assert keyword.calls[0].weight == "g"


def test_lesson_070_weighted_vjp_names_v_in_english_and_japanese():
    lesson = next(lesson for lesson in load_course(user_dir=None).lessons if lesson.id == "softmax-jacobian")
    index = next(k for k, step in enumerate(lesson.steps) if step.id == "weighted-vjp")
    exp = explain_program(ProgramBuilder(lesson).program(index).source)
    call = exp.calls[-1]
    sym = explain_symbolic(call)
    assert sym.chains[0].weight == "v"
    english, japanese = (text_of(render_chain(call, sym, lang=lang)) for lang in ("en", "ja"))
    assert "backward was given the weight v," in english and "backward に重み v を渡した" in japanese
    assert "weight z" not in english and "重み z" not in japanese


def test_a_named_mask_with_equal_values_is_not_the_relu_mask():
    _, _, chain = chain_of("import torch\nx = torch.tensor([1., -2., 3.], requires_grad=True)\n"
                           "r = (x > 0).float()\ny = x.relu().sum()\ny.backward()\n")
    assert chain.total == "(x > 0)"


def test_constants_are_named_only_by_the_very_tensor():
    _, _, bound = chain_of(X + "c = x.detach()\ny = (x * c).sum()\ny.backward()\n")
    assert bound.total == "c"                                   # c is that very storage
    _, _, inline = chain_of(X + "y = (x * x.detach()).sum()\ny.backward()\n")
    assert inline.total == "torch.tensor([1., 2., 3.])"                   # x's values, held constant: not x
    _, _, mask = chain_of("import torch\nx = torch.tensor([1., -2., 3.], requires_grad=True)\nm = x > 0\n"
                          "y = (x * m).sum()\ny.backward()\n")
    assert mask.total == "m"


def test_a_long_constant_is_defined_beside_the_formula():
    call, sym, chain = chain_of("import torch\nx = torch.tensor([[1., 2.], [3., 5.]], requires_grad=True)\n"
                                "loss = (x * torch.tensor([[1., 2.], [3., 4.]])).sum()\nloss.backward()\n")
    assert chain.total == "c₁" and [name for name, _ in chain.constants] == ["c₁"]
    np.testing.assert_array_equal(chain.constants[0][1], [[1, 2], [3, 4]])
    for lang in ("en", "ja"):
        text = text_of(render_chain(call, sym, lang=lang))
        assert "c₁" in text and "│ 3 │ 4 │" in text


def test_a_formula_true_only_at_the_calls_values_does_not_pass():
    """At the call, x equals the constant c; with x moved and c held, only the true formula holds."""
    exp = explain_program(X + "c = torch.tensor([1., 2., 3.])\ny = (x * c).sum()\ny.backward()\n")
    call = exp.calls[0]
    edge = next(iter(call.leaf_values))
    x, c = sympy.Symbol("x", real=True), sympy.Symbol("c", real=True)
    points = nearby(call)
    where = Where(points, {edge: x})
    env = {x: np.array([1., 2., 3.]), c: np.array([1., 2., 3.])}
    grads = [p.grad(edge) for p in points]
    assert len(points) == 3 and where.agrees(c, env, grads)
    assert not where.agrees(x, env, grads)
    assert all(np.allclose(g, [1, 2, 3]) for g in grads)  # the constant is held at every point


def test_a_symbolic_form_decided_at_a_kink_is_not_shown():
    call, sym, chain = chain_of("import torch\nx = torch.tensor([0., 1.], requires_grad=True)\n"
                                "y = x.relu().sum()\ny.backward()\n")
    leaf = sym.leaves[0]
    assert leaf.point_only and not leaf.verified
    assert chain.verified and chain.total == "(x > 0)"           # the formula keeps the branch: it holds
    for lang in ("en", "ja"):
        assert "relu" in text_of(render_jacobian(call, sym, lang=lang))


def _unwritable_sin(monkeypatch):
    """The replay of sin made to fail on symbols as an op sympy cannot run would (every op of the table has
    a symbolic form now; the refusal's wording is what is tested)."""
    from engine.explain import replay

    original = replay._forward

    def forward(node, arrays):
        if node.op is OPS["sin"] and any(np.asarray(a).dtype == object for a in arrays):
            raise TypeError("no symbols here")
        return original(node, arrays)

    monkeypatch.setattr(replay, "_forward", forward)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_raw_exception_text_and_no_repeated_words(lang, monkeypatch):
    _unwritable_sin(monkeypatch)
    call, sym, _ = chain_of(X + "loss = x.sin().sum()\nloss.backward()\n")
    assert not sym.ok and sym.note_key == "limit_unsupported" and sym.note_params["op"] == "sin"
    text = text_of(render_jacobian(call, sym, lang=lang)) + text_of(render_chain(call, sym, lang=lang))
    assert "Error" not in text and "Symbol" not in text and "no symbols here" not in text and "sin" in text
    assert "記号形式: 記号形式" not in text and "symbolic form: no symbolic form" not in text


@pytest.mark.parametrize("loss", ["torch.nn.functional.nll_loss(x, torch.tensor([2, -100]))",
                                  "torch.nn.functional.nll_loss(x, torch.tensor([2, 1]), reduction='sum')",
                                  "torch.nn.functional.nll_loss(x, torch.tensor([2, 1]), reduction='none')",
                                  "torch.nn.functional.nll_loss(x[0], torch.tensor(1))",
                                  "torch.nn.functional.nll_loss(x, torch.tensor([0, 1]), ignore_index=0)",
                                  "torch.nn.CrossEntropyLoss()(x, torch.tensor([0, 1]))"])
def test_an_nll_loss_program_has_its_symbolic_form(loss):
    """nll_loss is -x[target] (/ the kept count): the replay writes it with ignored targets masked out (a
    numpy bool times a symbol was the failure), and the verified form is PyTorch's gradient."""
    program = ("import torch\nx = torch.tensor([[1., 2., 3.], [0., 1., 0.]], requires_grad=True)\n"
               f"loss = {loss}\nloss.sum().backward()\n")
    call, sym, _ = chain_of(program)
    assert sym.ok and sym.leaves[0].verified, sym.note
    namespace: dict = {}
    exec(program, {"torch": torch}, namespace)  # noqa: S102 - the program above, run by PyTorch
    expected = namespace["x"].grad.numpy().reshape(-1)
    np.testing.assert_allclose(np.asarray(sym.leaves[0].substituted, dtype=float).sum(0), expected, atol=1e-6)
    for lang, words in (("en", "class indices"), ("ja", "クラス番号")):
        assert words not in text_of(render_jacobian(call, sym, lang=lang))


@pytest.mark.parametrize("program", [
    "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
    "y = x.gather(1, torch.tensor([[2, 0], [1, 1]])).prod()\ny.backward()\n",
    "x = torch.tensor([1., 2., 3.], requires_grad=True)\ni = torch.tensor([0, 2, 2])\n"
    "y = (x[i] ** 2).sum()\ny.backward()\n",
])
def test_a_gather_or_index_program_is_not_told_about_class_indices(program):
    call, sym, _ = chain_of("import torch\n" + program)
    assert sym.ok
    for lang, words in (("en", "class indices"), ("ja", "クラス番号")):
        assert words not in text_of(render_jacobian(call, sym, lang=lang)) + text_of(render_chain(call, sym, lang=lang))


def test_a_missing_symbolic_form_is_said_as_the_tutors_limit_not_the_ops(monkeypatch):
    _unwritable_sin(monkeypatch)
    call, sym, _ = chain_of(X + "loss = x.sin().sum()\nloss.backward()\n")
    en, ja = (text_of(render_jacobian(call, sym, lang=lang), width=200) for lang in ("en", "ja"))
    assert "the tutor cannot write sin with symbols" in en and "has no symbolic form" not in en
    assert "このチューターは sin を記号の式で書けません" in ja and "記号の式がありません" not in ja


def test_a_hook_is_named_as_the_reason_not_a_mismatch():
    program = (X + "h = x * 2\nh.register_hook(lambda g: g * 2)\nz = (h ** 2).sum()\nz.backward()\n")
    call, sym, chain = chain_of(program)
    assert sym.leaves[0].verified and chain.verified and chain.hook_changed
    for lang in ("en", "ja"):
        text = text_of(render_jacobian(call, sym, lang=lang)) + text_of(render_chain(call, sym, lang=lang))
        assert "did not match" not in text and "一致しませんでした" not in text
        assert "register_hook" in text


def test_the_per_element_intro_comes_before_its_lines():
    call, sym, chain = chain_of(X + "y = x.prod()\ny.backward()\n")  # prod has no tensor formula here
    assert chain.elements and not chain.total
    for lang in ("en", "ja"):
        text = text_of(render_chain(call, sym, lang=lang))
        intro = "element by element" if lang == "en" else "要素ごとに"
        assert text.index(intro) < text.index(chain.elements[0][0])


def test_a_constants_shape_is_written_once_in_the_graph():
    call, _, _ = chain_of("import torch\nx = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\n"
                          "y = (x * torch.tensor([[1., 2.], [3., 4.]])).sum()\ny.backward()\n")
    text = text_of(render_graph(call))
    assert "(2x2, no grad)" in text and "no grad) (2x2)" not in text


def test_backward_graph_constants_are_numbers_not_vectors():
    """The gradient of a mean, differentiated again: its 1/2 is a number, not [0.5, 0.5]."""
    program = ("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
               "g, = torch.autograd.grad((x**3).mean(), x, create_graph=True)\npenalty = (g**2).sum()\n"
               "penalty.backward()\n")
    exp = explain_program(program)
    call = exp.calls[-1]
    chain = explain_symbolic(call).chains[0]
    assert chain.verified and "[" not in chain.text(), chain.text()


def test_a_constant_that_needs_grad_later_keeps_its_name():
    """Lesson 010: tensor2 is a constant at the first backward and gets requires_grad_() after it (the same
    object): the first call's explanation still calls it tensor2, not "a constant with no name of its own"."""
    exp = explain_program("import torch\ntensor1 = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\n"
                          "tensor2 = torch.tensor([[5., 6.], [7., 8.]])\n"
                          "out = (tensor1 * tensor2).mean()\nout.backward()\ntensor2.requires_grad_()\n"
                          "out = (tensor1 * tensor2).mean()\nout.backward()\n")
    chain = explain_symbolic(exp, 0).chains[0]
    assert chain.text() == "∂out/∂tensor1 = tensor2/4" and not chain.constants
    assert "other = tensor2 (2x2, no grad)" in text_of(render_graph(exp.calls[0]))


@pytest.mark.parametrize("size", [1, 2])
def test_a_frozen_linear_weight_is_named_in_the_graph(size):
    """Lesson 100: nn.Linear saves a frozen weight as `weight.t()` (the same memory): the Graph tab names it
    l2.weight.T as the chain rule does, not "constant 3" (1x1) or "constant (2x1, no grad)"."""
    exp = explain_program("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
                          f"l1 = nn.Linear(2, {size})\nl2 = nn.Linear({size}, 1)\nl2.weight.requires_grad_(False)\n"
                          "x = torch.tensor([[1., 2.]])\ny = l2(l1(x))\ny.sum().backward()\n")
    text = text_of(render_graph(exp.calls[0]))
    assert f"mat2 = l2.weight.T ({size}x1, no grad)" in text and "constant" not in text


def test_a_detached_view_of_a_leaf_is_not_named_as_the_leaf():
    """x.detach() holds x's very storage: a constant of the call, never called x (the leaf being differentiated),
    even now that leaves needing grad name their storage for calls before their requires_grad_()."""
    _, _, chain = chain_of(X + "y = (x * x.detach()).sum()\ny.backward()\n")
    assert chain.total == "torch.tensor([1., 2., 3.])"
    exp = explain_program(X + "y = (x * x.detach()).sum()\ny.backward()\n")
    assert "other = x " not in text_of(render_graph(exp.calls[0]))


def test_a_saved_unnamed_result_is_named_by_its_edge_not_an_index():
    """020 stack-vjp-not-jv: "saved: other = #4 SelectBackward0" used an index the Graph tab never shows; the
    saved input is the edge of that name drawn right below the node (`other: SelectBackward0`)."""
    exp = explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                          "y = torch.stack([x[0] * x[1], x[0] ** 2])\ny.backward(torch.tensor([1., 10.]))\n")
    for lang in ("en", "ja"):
        text = text_of(render_graph(exp.calls[0], lang=lang))
        assert "#" not in text and "SelectBackward0" in text
    mul = next(node for node in exp.calls[0].graph if node.name == "MulBackward0")
    assert {item[:2] for item in mul.saved_items} == {("self", None), ("other", None)}
