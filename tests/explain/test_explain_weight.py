"""backward(v) with a weight of several entries: every text says vᵀ·∂y/∂x, never ∂y/∂x (the Jacobian itself),
and says what · is: an element-wise product only where the Jacobian is diagonal."""
import io

import pytest
from rich.console import Console

from engine.explain import explain_program, explain_symbolic
from engine.explain.render import render_chain, render_jacobian, render_trace_step

torch = pytest.importorskip("torch")

MATMUL = ("import torch\nx = torch.tensor([[1., 2., 3.], [4., 5., 6.]])\n"
          "W = torch.tensor([[1., 0.], [2., 1.], [0., 3.]], requires_grad=True)\ny = x @ W\n{end}\n")
SQUARE = "import torch\ninp = torch.tensor([1., 2.], requires_grad=True)\nout = inp**2\nout.backward(torch.tensor([0.5, 3.]))\n"


def _text(renderable, width: int = 100) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_a_literal_ones_weight_is_v_in_the_formula():
    """060 w-grad-ones: `x.T @ torch.ones(2, 2)` was headed ∂y/∂W, which is the 4x6 Jacobian."""
    exp = explain_program(MATMUL.format(end="y.backward(torch.ones(2, 2))"))
    chain = explain_symbolic(exp, 0).chains[0]
    assert chain.weight == "v" and chain.text() == "vᵀ·∂y/∂W = x.T @ v"
    namespace = {"x": torch.tensor([[1., 2., 3.], [4., 5., 6.]]), "v": torch.ones(2, 2)}
    torch.testing.assert_close(eval(chain.total, {}, namespace),   # noqa: S307 - the shown formula, run by PyTorch
                               torch.tensor(exp.calls[0].leaves[0].contribution), check_dtype=False)


def test_the_implicit_one_of_a_scalar_output_is_not_written():
    chain = explain_symbolic(explain_program(MATMUL.format(end="y.sum().backward()")), 0).chains[0]
    assert chain.weight == "" and chain.text().startswith("∂(y.sum())/∂W = ")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_weight_note_says_what_the_product_is(lang):
    """· is element by element only where ∂y/∂x is diagonal; for a matmul it is a sum over the outputs."""
    exp = explain_program(MATMUL.format(end="y.backward(torch.ones(2, 2))"))
    matmul = _text(render_chain(exp.calls[0], explain_symbolic(exp, 0), lang=lang))
    exp = explain_program(SQUARE)
    square = _text(render_chain(exp.calls[0], explain_symbolic(exp, 0), lang=lang))
    elementwise, summed, diagonal, arrives = {"en": ("element by element", "Σᵢ vᵢ·∂yᵢ/∂Wⱼ", "diagonal", "(vᵀ·∂y/∂ "),
                                              "ja": ("要素ごとの積", "Σᵢ vᵢ·∂yᵢ/∂Wⱼ", "対角", "（vᵀ·∂y/∂ ")}[lang]
    assert summed in matmul and elementwise not in matmul
    assert arrives in matmul   # the steps: what arrives at each node is vᵀ·∂y/∂(its result)
    assert diagonal in square and elementwise in square


@pytest.mark.parametrize("lang, weighted, plain", [("en", "vᵀ · ∂ output", "(∂ output"),
                                                   ("ja", "vᵀ · ∂ 出力", "（∂ 出力")])
def test_the_backprop_tab_says_what_arrives_when_backward_got_a_weight(lang, weighted, plain):
    """out.backward(torch.tensor([0.5, 3.])) hands [0.5, 3] to PowBackward0: that is vᵀ·∂out/∂out, not ∂out/∂out."""
    call = explain_program(SQUARE).calls[0]
    assert weighted in _text(render_trace_step(call, 0, lang=lang))
    call = explain_program(SQUARE.replace("out.backward(torch.tensor([0.5, 3.]))", "out.sum().backward()")).calls[0]
    assert plain in _text(render_trace_step(call, 0, lang=lang))


@pytest.mark.parametrize("lang, said", [("en", "sums it over the broadcast dimensions to self's shape (length 3)"),
                                        ("ja", "self の形状（長さ 3）にします")])
def test_the_backprop_tab_shows_the_sum_that_broadcasting_needs(lang, said):
    """Lesson 040: add's rule for self is `grad` (2x3); what reaches x (3,) is that summed over dim 0, done by
    the engine after the rule, as in PyTorch: the tab says so between the rule and the numbers."""
    program = ("import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\nm = torch.ones(2, 3)\n"
               "y = x + m\ny.sum().backward()\n")
    call = explain_program(program).calls[0]
    step = next(k for k, s in enumerate(call.trace) if s.name == "AddBackward0")
    flows = {flow.input: flow.rule_shape for flow in call.trace[step].flows}
    assert flows == {"self": (2, 3)}
    assert said in _text(render_trace_step(call, step, lang=lang, width=200), width=200)
    same = explain_program(program.replace("m = torch.ones(2, 3)", "m = torch.ones(3)")).calls[0]
    assert all(flow.rule_shape is None for s in same.trace for flow in s.flows)


def _jacobian_text(program: str, lang: str) -> str:
    return " ".join(_text(render_jacobian(explain_program(program).calls[0], lang=lang), width=200).split())


@pytest.mark.parametrize("lang, said, not_said", [("en", "no diagonal or block structure in this order (6 of 18", "dense"),
                                                  ("ja", "対角やブロックの構造がありません（18 成分中 6 個", "密")])
def test_a_mostly_zero_jacobian_is_not_called_dense(lang, said, not_said):
    """050 column-means: J of x.mean(0) for a 2x3 x has 6 non-zeros of 18 (each 0.5): not dense."""
    text = _jacobian_text("import torch\nx = torch.ones(2, 3, requires_grad=True)\nm = x.mean(0)\n"
                          "m.backward(torch.ones(3))\n", lang)
    assert said in text and not_said not in text
    full = _jacobian_text("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                          "y = torch.stack([x[0] * x[1], x[0] + x[1]])\ny.backward(torch.ones(2))\n", lang)
    assert {"en": "dense (4 of 4", "ja": "密（4 成分中 4 個"}[lang] in full


@pytest.mark.parametrize("lang, said", [("en", "does not move loss to first order"),
                                        ("ja", "loss は 1 次の近似では変わりません")])
def test_a_zero_gradient_is_a_zero_slope_not_no_change(lang, said):
    """090 bias-grad: the bias sits at the minimum of a parabola; loss changes to second order (± 0.1 → + 0.01)."""
    text = _jacobian_text("import torch\nb = torch.tensor([2.], requires_grad=True)\nloss = ((b - 2.)**2).sum()\n"
                          "loss.backward()\n", lang)
    assert said in text


@pytest.mark.parametrize("lang, said", [("en", "(vec: flattened row by row, as .flatten())"),
                                        ("ja", "（vec は行ごとに平坦化、.flatten() と同じ）")])
def test_the_jacobian_head_says_vec_reads_a_matrix_row_by_row(lang, said):
    """J's columns for a 3x2 W are W₁₁, W₁₂, W₂₁, … (PyTorch's flatten), not matrix calculus' column-stacking vec;
    for vectors the order is the same either way and the head stays short."""
    matrix = _jacobian_text(MATMUL.format(end="y.backward(torch.ones(2, 2))"), lang)
    assert said in matrix
    vector = _jacobian_text(SQUARE, lang)
    assert "vec" in vector and said not in vector
