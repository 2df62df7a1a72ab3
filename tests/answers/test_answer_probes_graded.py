"""Every answer probe (`answer_probes.py`) through the one grading path (`tutor.grading.grade_prediction`, which
`autograd-tutor grade` and the app share) on its real step: the verdict it must get, or a refusal whose message
names the fix in English and in Japanese (never a traceback); and a sample of them through the command line itself,
`autograd-tutor grade LESSON:STEP ANSWER` (EN and `--lang ja`), with its exit status."""
from __future__ import annotations

import functools

import pytest
from answer_probes import FIXTURES, PROBES, Probe, probe_id
from click.testing import CliRunner

from lessons.answers import compute_answer
from lessons.course import load_course
from tutor.answer_input import AnswerFormatError
from tutor.grading import grade_prediction


@functools.cache
def _course():
    return {lesson.id: lesson for lesson in load_course([FIXTURES], user_dir=None).lessons}


@functools.cache
def _step_and_answer(target: str):
    lesson_id, step_id = target.split(":")
    lesson = _course()[lesson_id]
    step = lesson.step(step_id)
    return step, compute_answer(lesson, step)


def graded(target: str, typed: str) -> tuple[str, AnswerFormatError | None]:
    """("correct" | "close" | "wrong", None), or (the refusal's key, the refusal)."""
    step, answer = _step_and_answer(target)
    try:
        verdict, _ = grade_prediction(step, answer, typed)
    except AnswerFormatError as error:
        return error.key, error
    return ("correct" if verdict.correct else "close" if verdict.close else "wrong"), None


@pytest.mark.parametrize("probe", PROBES, ids=probe_id)
def test_each_probe_gets_its_verdict(probe: Probe):
    got, refusal = graded(probe.target, probe.typed)
    assert got == probe.verdict, refusal and refusal.message("en")
    if refusal is not None:  # a message in each language, naming the fix, no Python internals
        english, japanese = refusal.message("en"), refusal.message("ja")
        assert english and japanese and english != japanese
        assert "Traceback" not in english + japanese and "{" not in english + japanese
        assert len(english) < 400 and "\x1b" not in english + japanese


def test_the_table_covers_every_verdict_and_many_refusals():
    """A probe table that only says "correct" cannot fail the grading: each kind of verdict is in it."""
    verdicts = {probe.verdict for probe in PROBES}
    assert {"correct", "close", "wrong"} <= verdicts and len(verdicts - {"correct", "close", "wrong"}) >= 12


def _sample() -> list[Probe]:
    """Per step and verdict, its first probe and its longest multi-line one (a pasted printout)."""
    chosen: dict[tuple[str, str, bool], Probe] = {}
    for probe in PROBES:
        key = (probe.target, probe.verdict, "\n" in probe.typed)
        if key not in chosen and len(probe.typed) < 5_000:
            chosen[key] = probe
    return list(chosen.values())


def grade_command(*args: str):
    from tutor.cli import main

    return CliRunner().invoke(main, ["grade", *args, "--lessons", str(FIXTURES)], catch_exceptions=False)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_grade_command_gives_each_verdict(lang, data_dir):
    expected = {"en": {"correct": "Correct!", "close": "Close", "wrong": "Not quite."},
                "ja": {"correct": "正解！", "close": "惜しい", "wrong": "残念、不正解です。"}}[lang]
    for probe in _sample():
        result = grade_command(probe.target, probe.typed, "--lang", lang)
        said = result.output
        assert "Traceback" not in said and "\x1b" not in said, (probe, said)
        if probe.refused:
            _, refusal = graded(probe.target, probe.typed)
            assert result.exit_code == 1 and refusal.message(lang) in said, (probe, said)
        else:
            assert result.exit_code == 0 and said.startswith(expected[probe.verdict]), (probe, said)


def test_the_grade_command_as_json(data_dir):
    import json

    tiny_zero = grade_command("probe-extremes:tiny", "[0, 0]", "--json")
    assert json.loads(tiny_zero.output) == {"correct": False, "close": False, "diagnosis": None, "error": None}
    pasted = grade_command("trying-autograd:mean-grad",
                           "Parameter containing:\ntensor([[1.1667, 1.3333, 1.5000],\n        [1.6667, 1.8333, 2.0000]], "
                           "requires_grad=True)", "--json")
    assert json.loads(pasted.output)["correct"] is True
