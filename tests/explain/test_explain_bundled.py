"""Every bundled lesson step, explained in the sandbox as the app does it: in English and Japanese, at the
80-column panel width, with the symbolic forms. Nothing may be missing in the confined child (a module or
sympy function first used after confinement fails with PermissionError), no matrix cell may be squeezed
to `…`, and every chain-rule formula shown must have been checked."""
import re

import pytest
from rich.console import Console

from engine.explain import explain_program
from engine.explain.messages import LANGUAGES, MESSAGES
from engine.sandbox.explanations import explain_in_worker
from lessons.course import load_course
from lessons.model import ReadStep
from lessons.programs import ProgramBuilder
from tutor.untrusted import plain

WIDTH = 75  # an 80-column terminal less the tab's padding and the scroll bar (RevealScreen._panel_width)


def bundled_programs():
    for lesson in load_course(user_dir=None).lessons:
        builder = ProgramBuilder(lesson)
        for index, step in enumerate(lesson.steps):
            if isinstance(step, ReadStep) or step.snippet is None:
                continue
            program = builder.program(index)
            if program is not None:
                yield pytest.param(program.source, id=f"{lesson.id}/{step.id}")


def text_of(renderable) -> str:
    console = Console(width=WIDTH, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("source", list(bundled_programs()))
def test_bundled_step_panels(source, lang):
    explanation = explain_in_worker(source, symbolic=True, lang=lang, width=WIDTH, clean=plain)
    for call in explanation.panels:
        for name in ("summary", "jacobian", "vjp", "chain", "graph", "fd"):
            text = text_of(getattr(call, name))
            assert "PermissionError" not in text and "unavailable" not in text, (name, text)
            assert not re.search(r"[^(\s]…\s*[│┃]", text), (name, text)  # a cell cut short
        for step in call.trace:
            assert not re.search(r"[^(\s]…\s*[│┃]", text_of(step))


def test_every_message_has_english_and_japanese():
    for key, entry in MESSAGES.items():
        assert set(entry) == set(LANGUAGES), key
        assert all(entry[lang].strip() for lang in LANGUAGES), key
        params = [sorted(re.findall(r"{(\w+)}", entry[lang])) for lang in LANGUAGES]
        assert all(p == params[0] for p in params) or key in {"chain_weighted"}, (key, params)


def test_the_leaf_tensor_has_one_japanese_name():
    japanese = " ".join(entry["ja"] for entry in MESSAGES.values())
    assert "葉テンソル" in japanese and "リーフ" not in japanese


DERIVATIVE_APIS = ("autograd.grad", "autograd.functional", "torch.func", "jvp(", "vjp(", "jacrev", "jacfwd",
                   "hessian", ".backward(", "unpack_dual(")


def test_no_bundled_step_that_differentiates_says_no_backward_call():
    """Every bundled step whose program computes a derivative — backward, autograd.grad, torch.func, jvp/vjp,
    forward mode's dual numbers — has at least one call explained; the reveal screen says "no backward call"
    only when there is none. A program that raises before any call (backward of a vector without a gradient)
    shows its own error instead, so it is the only exception allowed."""
    steps = [param for param in bundled_programs() if any(api in param.values[0] for api in DERIVATIVE_APIS)]
    assert len(steps) > 100
    silent, raised = [], []
    for param in steps:
        explanation = explain_program(param.values[0])
        if not explanation.calls:
            (silent if explanation.ok else raised).append(param.id)
    assert silent == []
    assert all(step.split("/")[1] in ("sum-backward-fails", "z-not-scalar", "dim-sum-needs-gradient")
               for step in raised), raised


def derivative_steps():
    """Bundled steps whose program computes a derivative through any API (lessons 130 and 150 above all)."""
    for param in bundled_programs():
        source = param.values[0]
        if any(api in source for api in DERIVATIVE_APIS) and not any(
                api in source for api in (".backward(",)) or param.id.split("/")[0] in (
                "autograd-grad-higher-order", "forward-vs-reverse-mode"):
            yield param


@pytest.mark.parametrize("source", list(derivative_steps()))
def test_every_derivative_call_has_every_tab(source):
    """No step that computes a derivative says "no backward call"; every call that ran has its leaves, its
    Jacobian, vᵀJ (checked against what the call produced), chain rule, graph and backprop tabs."""
    from engine.explain import explain_symbolic
    from engine.explain.render import render_chain, render_graph, render_jacobian, render_summary, render_vjp

    explanation = explain_program(source)
    assert explanation.calls, source
    for call in explanation.calls:
        if call.error is not None:
            continue
        sym = explain_symbolic(call, timeout=5)
        assert call.leaves and all(leaf.vjp_matches for leaf in call.leaves), (source, call.index)
        assert call.trace or call.batched or call.forward or call.several
        if call.forward is not None:   # forward mode: J·t checked against what jvp returned and a replay
            assert call.forward.matches and call.forward.fd_agrees is not False, (source, call.index)
        for lang in LANGUAGES:
            text = "".join(text_of(render(call, sym, lang=lang)) for render in (render_jacobian, render_vjp, render_chain))
            text += text_of(render_summary(call, lang=lang)) + text_of(render_graph(call, lang=lang))
            assert MESSAGES["no_backward"][lang] not in text and "✗" not in text, (source, text)
        for chain in sym.chains:
            assert chain.verified or chain.note in ("jacobian", "no_dependence", "no_formula"), (source, chain)
