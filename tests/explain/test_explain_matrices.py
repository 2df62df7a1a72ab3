"""Values drawn at a width (`engine.explain.matrices`): each entry is formatted once however many places decide
whether its table fits, and a matrix taller than ROWS_SHOWN is never drawn as a table, even beside another."""
import io

import pytest
from rich.console import Console

from engine.explain import explain_program, matrices
from engine.explain.render import render_fd_check, render_jacobian, render_vjp

ACCUMULATED = """import torch
x = torch.tensor([[1., -2., 3.], [0.5, 4., -1.]], requires_grad=True)
(x * x).sum().backward()
(x * 3).sum().backward()
"""


def _shown(renderable, width: int = 100) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.file.getvalue()


@pytest.fixture
def formatted(monkeypatch) -> list:
    """Every entry `engine.explain.matrices` turns into text, in order."""
    seen, cell = [], matrices.cell

    def counted(value):
        seen.append(value)
        return cell(value)

    monkeypatch.setattr(matrices, "cell", counted)
    return seen


@pytest.mark.parametrize("panel, entries", [
    (render_fd_check, 2 * 6),        # the engine's gradient and the finite differences, side by side
    (render_vjp, 1 + 6 + 6 + 3 * 6),  # v (the implicit 1), J (1x6), vᵀJ, and before + added = after
    (render_jacobian, 6),            # J, a row
])
def test_each_entry_is_formatted_once(formatted, panel, entries):
    call = explain_program(ACCUMULATED).calls[1]
    _shown(panel(call, width=60), 60)
    assert len(formatted) == entries


def test_a_tall_matrix_is_lines_even_beside_another():
    call = explain_program("import torch\nx = torch.ones(70, 2, requires_grad=True)\n(x * x).sum().backward()\n"
                           "(x * 3).sum().backward()\n").calls[1]
    for panel in (render_fd_check, render_vjp):
        text = _shown(panel(call))
        assert sum(line.startswith("│") for line in text.splitlines()) < matrices.ROWS_SHOWN
        assert "… and 44 more (140 values in all)" in text
