"""`check --against-torch`: the same programs, run with real PyTorch, must give the same answers.

Each lesson's predict and error steps (and a few quiz variants) are computed
with the engine, then their programs run with the real `torch` in the sandbox
worker's "torch" profile (`engine.sandbox.torch_jobs`): a zygote that imports
PyTorch and forks one child per program, confined like every other child (a
lesson is a stranger's code, and real PyTorch has no language layer in front of
it). Any difference in a value (beyond the step's tolerance), an answer kind, or
an error step's outcome is a problem.
"""
from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from engine.runner.errors import SnippetError
from engine.sandbox.client import WORKER_UNAVAILABLE, SandboxError, call, decode_value, worker
from lessons.answers import Answer, AnswerError, compute_answer, error_matches, predict_answer, quiz_program
from lessons.errors import LessonError
from lessons.messages import say
from lessons.model import ErrorStep, Lesson, PredictStep
from lessons.programs import ProgramBuilder
from lessons.quiztemplate import instantiate
from lessons.text import LocalText
from lessons.validate import QUIZ_SEEDS
from lessons.values import UnsupportedValue, classify, describe, same

SECONDS = 30.0      # one program's wall-clock limit with PyTorch (CPU seconds too, in the child)
PARALLEL = 2        # programs run at once (each in its own child of the one zygote)


@dataclass
class TorchComparison:
    problems: list[LessonError] = field(default_factory=list)
    version: str | None = None     # the PyTorch that ran the programs (None: it could not be run)


def torch_available() -> bool:
    return importlib.util.find_spec("torch") is not None


def compare_with_torch(lessons: Iterable[Lesson]) -> TorchComparison:
    """Differences between the engine's answers and PyTorch's (steps that fail to compute with the engine
    are skipped: `validate_lesson` reports them), and which PyTorch said so."""
    checks = [check for lesson in lessons for check in _checks(lesson)]
    if not checks:
        return TorchComparison()
    target = worker("torch")
    try:
        version = str(target.start().get("torch", "?"))
    except (SandboxError, OSError) as error:
        return TorchComparison([LessonError("--against-torch", "", None, say("torch_unavailable", reason=error))])
    jobs = [{"source": program, "expression": None if isinstance(step, ErrorStep) else step.expression}
            for _, _, step, _, program in checks]
    with ThreadPoolExecutor(PARALLEL) as pool:
        outcomes = list(pool.map(lambda job: call(target, "torch", SECONDS, **job), jobs))
    comparison = TorchComparison(version=version)
    for (lesson, key_path, step, answer, _), outcome in zip(checks, outcomes):
        failure = outcome.get("failure")
        if failure is not None and failure.get("type") == WORKER_UNAVAILABLE:
            return TorchComparison([LessonError("--against-torch", "", None,
                                                say("torch_unavailable", reason=failure.get("message")))])
        message = _difference(step, answer, {"error": failure} if failure is not None else outcome)
        if message:
            comparison.problems.append(LessonError(lesson.path, key_path, lesson.line_of(key_path.split(" ")[0]),
                                                   message))
    return comparison


def _checks(lesson: Lesson) -> list[tuple]:
    """(lesson, key path, step or template, engine answer, program source) for each answer to compare."""
    builder = ProgramBuilder(lesson)
    checks = []
    for index, step in enumerate(lesson.steps):
        if isinstance(step, (PredictStep, ErrorStep)):
            try:
                answer = compute_answer(lesson, step, builder)
            except AnswerError:
                continue
            checks.append((lesson, f"steps[{index}]", step, answer, builder.program(index).source))
    for number, template in enumerate(lesson.quiz):
        for seed in QUIZ_SEEDS:
            variant = instantiate(template, seed)
            program = quiz_program(template, variant.snippet)
            try:
                answer = predict_answer(program, template.expression, lesson.tolerance_for(template), None,
                                        builder.run)
            except AnswerError:
                break
            checks.append((lesson, f"quiz[{number}] (seed {seed})", template, answer, program.source))
    return checks


def _difference(step, answer: Answer, outcome: dict) -> LocalText | None:
    torch_error = outcome.get("error")
    if isinstance(step, ErrorStep):
        error = SnippetError(torch_error["type"], torch_error["message"]) if torch_error else None
        if error_matches(step.choices[answer.value], error):
            return None
        engine = f"{answer.raised.type}: {answer.raised.message}" if answer.raised else say("no_error")
        said = f"{error.type}: {error.message}" if error else say("no_error")
        return say("torch_other_error", engine=engine, torch=said)
    if torch_error:
        return say("torch_fails", error=f"{torch_error['type']}: {torch_error['message']}")
    try:
        theirs = classify(decode_value(outcome["value"]))
    except UnsupportedValue as error:
        return say("torch_uncomparable", expression=step.expression, reason=error.text)
    if same(answer.plain, theirs, answer.tolerance.rtol, answer.tolerance.atol)[0]:
        return None
    return say("torch_differs", expression=step.expression, engine=describe(answer.plain), torch=describe(theirs))

