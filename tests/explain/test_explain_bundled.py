"""Every bundled lesson step, explained in the sandbox as the app does it: in English and Japanese, at the
80-column panel width, with the symbolic forms. Nothing may be missing in the confined child (a module or
sympy function first used after confinement fails with PermissionError), no matrix cell may be squeezed
to `…`, and every chain-rule formula shown must have been checked."""
import re

import pytest
from rich.console import Console

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
