"""Grading a learner's typed answer: one path for the app's step view and `autograd-tutor grade`.

No UI here (as `tutor.practice`): the step view reads its editor, a script passes a string; both end in
`read_prediction` and `lessons.answers.compare`, so a course's autograder grades exactly as the app does.
"""
from __future__ import annotations

from lessons.answers import Answer, Comparison, compare
from tutor.answer_input import AnswerFormatError, Reading, defined_names, read_answer


def read_prediction(answer: Answer, text: str) -> Reading:
    """The learner's typed prediction for `answer` (formulas evaluated in the step's program, whose
    names make an unknown one a clear message); `AnswerFormatError` when it cannot be read."""
    run = answer.run
    names = defined_names(run.source) if run is not None and getattr(run, "source", None) else None
    evaluate = run.evaluate if run is not None else None
    return read_answer(text, answer.kind, answer.shape, evaluate, names)


def grade_prediction(answer: Answer, text: str) -> Comparison:
    """The verdict on a typed prediction, as the app gives it (`AnswerFormatError` when unreadable)."""
    reading = read_prediction(answer, text)
    return compare(answer, reading.value, reading.half_unit, reading.decimals)


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
