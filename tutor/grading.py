"""Grading a learner's typed answer: one path for the app's step view and `autograd-tutor grade`.

No UI here (as `tutor.practice`): the step view reads its editor, a script passes a string; both end in
`read_prediction` and `lessons.answers.compare`, so a course's autograder grades exactly as the app does.
A wrong prediction then goes through `diagnose`, which names the misconception behind it when the engine's
buggy rules say so beyond doubt (`lessons.misconceptions`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lessons.answers import Answer, Comparison, compare
from tutor.answer_input import AnswerFormatError, Reading, defined_names, read_answer


def read_prediction(answer: Answer, text: str, shape: tuple[int, ...] | None = None) -> Reading:
    """The learner's typed prediction for `answer` (formulas evaluated in the step's program, whose
    names make an unknown one a clear message); `AnswerFormatError` when it cannot be read (`shape`: read it
    as a tensor of that shape instead of the answer's)."""
    run = answer.run
    names = defined_names(run.source) if run is not None and getattr(run, "source", None) else None
    evaluate = run.evaluate if run is not None else None
    return read_answer(text, answer.kind, shape or answer.shape, evaluate, names, bools=holds_bools(answer))


def read_other_shape(answer: Answer, error: AnswerFormatError) -> tuple[int, ...] | None:
    """The shape a tensor prediction was typed in when it is not the answer's (`error` says so), else None:
    such an answer is still compared with the misconceptions' answers (a broadcast gradient not summed back
    has the broadcast shape) before the learner is told the shape is wrong."""
    if answer.kind != "tensor" or holds_bools(answer):
        return None
    return error.typed_shape


def holds_bools(answer: Answer) -> bool:
    """Whether a tensor answer is True/False values (a bool tensor, a tuple such as `(x.requires_grad, y.is_leaf)`):
    it is typed, read and shown as bools, never as 1. and 0."""
    return answer.kind == "tensor" and np.asarray(answer.value).dtype == bool


def grade_prediction(step, answer: Answer, text: str, titles=None, here: str | None = None
                     ) -> tuple[Comparison, Diagnosis | None]:
    """The verdict on a typed prediction, as the app gives it, with the misconception behind a wrong one
    (`AnswerFormatError` when unreadable; `here`, "lesson-id:step-id" of `step`, see `diagnose`)."""
    try:
        reading = read_prediction(answer, text)
    except AnswerFormatError as error:  # a wrong shape that a misconception explains is graded, and named
        shape = read_other_shape(answer, error)
        found = None if shape is None else diagnose(step, answer, read_prediction(answer, text, shape), titles, here)
        if found is None:
            raise
        return Comparison(False), found
    verdict = compare(answer, reading.value, reading.half_unit, reading.decimals)
    if verdict.correct or verdict.close:
        return verdict, None
    return verdict, diagnose(step, answer, reading, titles, here)


def pick(labels: list[list[str]], text: str) -> int:
    """The option a learner means by `text`: its 1-based number in the lesson file's order, or its label
    in any language (case and spacing ignored). `AnswerFormatError` when it names none or several."""
    typed = " ".join(text.split()).casefold()
    if typed.isdigit() and 1 <= int(typed) <= len(labels):
        return int(typed) - 1
    found = {index for index, names in enumerate(labels) for name in names
             if " ".join(name.split()).casefold() == typed}
    if len(found) != 1:
        raise AnswerFormatError("grade_no_such_option", count=len(labels))
    return found.pop()


@dataclass(frozen=True)
class Diagnosis:
    id: str                    # a misconception of `lessons/misconceptions.toml`
    messages: dict[str, str]   # per language: in the learner's own numbers, with the step that teaches it
    teach: str                 # "lesson-id:step-id"

    def message(self, lang: str) -> str:
        return self.messages.get(lang) or self.messages["en"]


def diagnosable(step, answer: Answer) -> bool:
    """Whether a wrong prediction to `step` can be diagnosed at all (a numeric, tensor or None answer)."""
    return getattr(step, "kind", None) == "predict" and answer.kind in ("tensor", "number", "none") \
        and not holds_bools(answer) and getattr(answer.run, "source", None) is not None


def diagnosis_waits(step, answer: Answer) -> bool:
    """Whether `diagnose` would wait for the sandbox worker (the step's buggy answers are not computed yet):
    the app then asks for it off its UI thread."""
    from lessons.misconceptions import known, step_ids

    return diagnosable(step, answer) and not known(answer.run.source, step.expression, step_ids(step), step.buggy)


def diagnose(step, answer: Answer, reading: Reading, titles=None, here: str | None = None) -> Diagnosis | None:
    """The misconception behind the wrong prediction `reading` to predict step `step`, or None (also when the
    worker cannot run the buggy rules). `titles(lang)` maps a lesson id to its title (the text names the
    lesson that teaches it); `here` ("lesson-id:step-id" of `step`): when that step is the one that teaches
    it, the text says so instead of sending the learner to it."""
    from lessons.misconceptions import CATALOGUE, believed, step_ids
    from lessons.misconceptions import diagnose as match_answer

    if not diagnosable(step, answer):
        return None
    answers = believed(answer.run.source, step.expression, step_ids(step), step.buggy)
    if not answers:
        return None
    found = match_answer(answer, answers, reading.value, reading.half_unit, reading.decimals)
    if found is None:
        return None
    from tutor.i18n import LANGUAGES

    messages = {lang: diagnosis_message(found, answer, reading.value, lang, titles(lang) if titles else None, here)
                for lang in LANGUAGES}
    return Diagnosis(found.id, messages, CATALOGUE[found.id].teach)


def diagnosis_message(found, answer: Answer, typed, lang: str, titles=None, here: str | None = None) -> str:
    """"Every number of yours is 6× the answer: that is “mean without 1/n”. <why> <where it is taught>" (or
    "This step teaches it.", when `here` is that step)."""
    from lessons.misconceptions import CATALOGUE
    from tutor.formatting import format_cell, format_shape
    from tutor.i18n import t

    entry = CATALOGUE[found.id]
    name = entry.name.get(lang) or entry.name["en"]
    ratio = _ratio(found.believed.value, answer.value)
    if ratio is not None:
        first = t("diagnosis_ratio", lang, ratio=format_cell(ratio), name=name)
    else:
        first = t("diagnosis_matches", lang, yours=_numbers(typed), name=name)
    gap = "" if lang == "ja" else " "
    said = [first]
    shape = np.shape(typed)
    if answer.value is not None and shape != np.shape(answer.value):  # a wrongly shaped answer, explained
        said.append(t("diagnosis_shape", lang, yours=format_shape(shape), shape=format_shape(np.shape(answer.value))))
    said.append(entry.explain.get(lang) or entry.explain["en"])
    if here is not None and here == entry.teach:
        said.append(t("diagnosis_here", lang))
    elif titles is None or entry.lesson_id in titles:  # (a class served only a pack has no such lesson to point to)
        lesson = (titles or {}).get(entry.lesson_id, entry.lesson_id)
        said.append(t("diagnosis_teach", lang, step=entry.step_id, lesson=lesson))
    return gap.join(said)


def _ratio(believed, correct) -> float | None:
    """The one factor between the believed and the correct answer (6 for a mean without its 1/6), if any."""
    if correct is None:
        return None
    b, c = np.asarray(believed, dtype=np.float64), np.asarray(correct, dtype=np.float64)
    if b.shape != c.shape or not np.all(np.isfinite(b)) or not np.all(np.isfinite(c)) or np.any(c == 0):
        return None
    ratios = b / c
    ratio = float(ratios.flat[0])
    if abs(ratio - 1) < 1e-6 or abs(ratio) < 1e-6 or not np.allclose(ratios, ratio, rtol=1e-5, atol=0):
        return None
    rounded = round(ratio)
    return float(rounded) if abs(ratio - rounded) < 1e-5 and rounded != 0 else None


def _numbers(value) -> str:
    """The learner's numbers as one short line (a long tensor is abridged, as numpy prints it)."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        return f"{float(array):g}"
    text = np.array2string(array, separator=", ", threshold=12, edgeitems=2, precision=4, suppress_small=True,
                           max_line_width=10**6, formatter={"float_kind": lambda x: f"{x:g}"})
    return " ".join(text.split())
