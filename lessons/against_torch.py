"""`check --against-torch`: the same programs, run with real PyTorch, must give the same answers.

Each lesson's predict and error steps (and a few quiz variants) are computed
with the engine, then their programs run in a child Python with the real
`torch` (`lessons.torch_worker`); any difference in a value (beyond the
step's tolerance), an answer kind, or an error step's outcome is a problem.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterable

from engine.runner.errors import SnippetError
from lessons.answers import Answer, AnswerError, compute_answer, error_matches, predict_answer, quiz_program
from lessons.errors import LessonError
from lessons.model import ErrorStep, Lesson, PredictStep
from lessons.programs import ProgramBuilder
from lessons.quiztemplate import instantiate
from lessons.validate import QUIZ_SEEDS
from lessons.values import describe, from_json, same

TIMEOUT_SECONDS = 300


def torch_available() -> bool:
    return importlib.util.find_spec("torch") is not None


def compare_with_torch(lessons: Iterable[Lesson]) -> list[LessonError]:
    """Differences between the engine's answers and PyTorch's (steps that fail to compute with the engine
    are skipped: `validate_lesson` reports them). One child process runs every program, since importing
    torch is the slow part."""
    checks = [check for lesson in lessons for check in _checks(lesson)]
    if not checks:
        return []
    jobs = [{"program": program, "expression": None if isinstance(step, ErrorStep) else step.expression}
            for _, _, step, _, program in checks]
    try:
        outcomes = _run_worker(jobs)
    except RuntimeError as error:
        return [LessonError("--against-torch", "", None, str(error))]
    problems = []
    for (lesson, key_path, step, answer, _), outcome in zip(checks, outcomes):
        message = _difference(step, answer, outcome)
        if message:
            problems.append(LessonError(lesson.path, key_path, lesson.line_of(key_path.split(" ")[0]), message))
    return problems


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


def _run_worker(jobs: list[dict]) -> list[dict]:
    try:
        done = subprocess.run([sys.executable, "-m", "lessons.torch_worker"], input=json.dumps(jobs),
                              capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"PyTorch did not finish the programs within {TIMEOUT_SECONDS} s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"running the programs with PyTorch failed: {last}")
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise RuntimeError("running the programs with PyTorch gave no readable result") from None


def _difference(step, answer: Answer, outcome: dict) -> str | None:
    torch_error = outcome.get("error")
    if isinstance(step, ErrorStep):
        error = SnippetError(torch_error["type"], torch_error["message"]) if torch_error else None
        if error_matches(step.choices[answer.value], error):
            return None
        engine = f"{answer.raised.type}: {answer.raised.message}" if answer.raised else "no error"
        said = f"{error.type}: {error.message}" if error else "no error"
        return f"the engine gives {engine}, PyTorch gives {said}"
    if torch_error:
        return f"PyTorch fails where the engine does not: {torch_error['type']}: {torch_error['message']}"
    theirs = from_json(outcome["value"])
    if same(answer.plain, theirs, answer.tolerance.rtol, answer.tolerance.atol)[0]:
        return None
    return f"`{step.expression}`: the engine computes {describe(answer.plain)}, PyTorch computes {describe(theirs)}"

