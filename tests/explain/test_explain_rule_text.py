"""The Japanese panels show the op table's rule formulas as code with their prose notes in Japanese
(`(/ N for 'mean')` → 「'mean' なら N で割る」); English shows them exactly as the op table writes them."""
import re

import pytest

from engine.explain import explain_program
from engine.explain.messages import rule_text
from engine.explain.render import render_trace_step
from engine.ops import OPS

# English prose words (torch.where's `where(` and ATen's `at::` are code, not prose)
PROSE = re.compile(r"\b(where(?!\()|for|with|at(?!::)|of|the|each|else|and|over|along|placed|added|reduced|halved|"
                   r"none|rows|zeros|written|viewed|summed|copies|pieces|concatenated|infinite|product)\b")


@pytest.mark.parametrize("key", sorted(OPS))
def test_no_english_prose_in_a_japanese_rule(key):
    for formula in OPS[key].formula:
        assert rule_text(formula, "en") == formula
        assert not PROSE.search(rule_text(formula, "ja")), (key, formula, rule_text(formula, "ja"))


def test_the_backprop_tab_of_pow_in_japanese():
    """020/030/080/100: every pow's rule said 「… , 0 where exponent == 0」 in the Japanese report."""
    call = explain_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\ny = (x ** 2).sum()\n"
                           "y.backward()\n").calls[0]
    step = next(k for k, s in enumerate(call.trace) if s.name == "PowBackward0")
    from io import StringIO

    from rich.console import Console
    console = Console(width=200, record=True, file=StringIO())
    console.print(render_trace_step(call, step, lang="ja", width=200))
    text = console.export_text()
    assert "（exponent == 0 のところは 0）" in text and "where" not in text
