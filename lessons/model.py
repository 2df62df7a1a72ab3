"""The lesson model: what a lesson file means once it has been read.

Frozen dataclasses, so a loaded lesson can be shared by the app, the quiz
generator and the validator without anyone changing it under the others.
The file format itself is described in docs/authoring.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from lessons.text import LocalText

FORMAT_VERSION = 1
# The most cells a learner is asked to predict: a predict step's tensor answer and a quiz template's
# tensors are capped at this, and the answer grid holds this many. One constant, so the three agree.
MAX_ANSWER_CELLS = 64


@dataclass(frozen=True)
class Tolerance:
    """How close a number must be to count as equal: |a - b| <= atol + rtol * |b|."""

    rtol: float = 1e-4
    atol: float = 1e-5


DEFAULT_TOLERANCE = Tolerance()


@dataclass(frozen=True)
class ErrorChoice:
    """One possible outcome of an error step: `"<Type>: <message prefix>"`, `"<Type>"` or `"none"`."""

    error: str
    why: LocalText | None = None

    @property
    def is_none(self) -> bool:
        return self.error.strip().lower() == "none"


@dataclass(frozen=True)
class ChoiceOption:
    """One answer of a conceptual multiple-choice question."""

    text: LocalText
    correct: bool = False
    why: LocalText | None = None


@dataclass(frozen=True)
class _StepBase:
    # Fields every step kind shares. `line` is the `[[steps]]` header line and
    # `snippet_line` the file line of the snippet's first line, so errors in a
    # running snippet can point into the file.
    id: str
    text: LocalText
    snippet: str | None = None
    continues: bool = False
    hints: tuple[LocalText, ...] = ()
    explanation: LocalText | None = None
    line: int | None = field(default=None, compare=False)
    snippet_line: int | None = field(default=None, compare=False)
    concepts: tuple[str, ...] = ()  # what this step practises; empty: the lesson's concepts


@dataclass(frozen=True)
class ReadStep(_StepBase):
    """Narrative, optionally with a snippet whose printed output is shown."""

    kind = "read"


@dataclass(frozen=True)
class PredictStep(_StepBase):
    """The learner predicts the value of `expression` after the program runs."""

    kind = "predict"
    expression: str = ""
    expect: str | None = None
    tolerance: Tolerance | None = None
    nonfinite: bool = False  # the answer is meant to contain inf or nan
    misconceptions_off: tuple[str, ...] = ()  # misconceptions never named on this step
    buggy: tuple[BuggyAnswer, ...] = ()  # the author's extra buggy answers


@dataclass(frozen=True)
class BuggyAnswer:
    """What a learner holding `misconception` answers on a step: `answer`, an expression of its program."""

    misconception: str
    answer: str


@dataclass(frozen=True)
class ErrorStep(_StepBase):
    """The learner predicts whether the program raises, and which error."""

    kind = "error"
    choices: tuple[ErrorChoice, ...] = ()


@dataclass(frozen=True)
class ChoiceStep(_StepBase):
    """A conceptual multiple-choice question (`text` is the question)."""

    kind = "choice"
    options: tuple[ChoiceOption, ...] = ()

    @property
    def correct_index(self) -> int:
        return next(i for i, option in enumerate(self.options) if option.correct)


Step = Union[ReadStep, PredictStep, ErrorStep, ChoiceStep]
STEP_KINDS: dict[str, type] = {cls.kind: cls for cls in (ReadStep, PredictStep, ErrorStep, ChoiceStep)}


@dataclass(frozen=True)
class TensorParam:
    """A tensor literal: one of `shapes`, cells drawn from [low, high]."""

    name: str
    shapes: tuple[tuple[int, ...], ...]
    low: float
    high: float
    integers: bool = True
    decimals: int = 1


@dataclass(frozen=True)
class IntParam:
    name: str
    low: int
    high: int


@dataclass(frozen=True)
class FloatParam:
    name: str
    low: float
    high: float
    decimals: int = 1


@dataclass(frozen=True)
class ChoiceParam:
    """One of `values`; strings are inserted as written (an op name, say), numbers as literals."""

    name: str
    values: tuple[object, ...]


ParamSpec = Union[TensorParam, IntParam, FloatParam, ChoiceParam]


@dataclass(frozen=True)
class QuizTemplate:
    """A parametrised predict question: `{name}` placeholders in `snippet` get generated literals."""

    id: str
    concepts: tuple[str, ...]
    text: LocalText
    snippet: str
    expression: str
    params: tuple[ParamSpec, ...] = ()
    tolerance: Tolerance | None = None
    hints: tuple[LocalText, ...] = ()
    explanation: LocalText | None = None
    line: int | None = field(default=None, compare=False)
    snippet_line: int | None = field(default=None, compare=False)
    nonfinite: bool = False  # the answer is meant to contain inf or nan


@dataclass(frozen=True)
class Lesson:
    format_version: int
    id: str
    order: int | None
    title: LocalText
    summary: LocalText
    concepts: tuple[str, ...]
    source: LocalText | None  # the credit line, shown on the lesson's first screen
    tolerance: Tolerance
    steps: tuple[Step, ...]
    quiz: tuple[QuizTemplate, ...] = ()
    path: Path | None = field(default=None, compare=False)
    # key path -> file line, for messages about keys the model does not keep a line for
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False, hash=False)
    # the pack the lesson belongs to (its folder has a pack.toml); `id` is then "<pack>/<id in the file>"
    pack: str | None = None

    @property
    def file_id(self) -> str:
        """The id as written in the file (without the pack's namespace)."""
        return self.id.split("/", 1)[-1]

    def step(self, step_id: str) -> Step:
        """The step with this id (KeyError if there is none)."""
        for step in self.steps:
            if step.id == step_id:
                return step
        raise KeyError(step_id)

    def step_index(self, step: Step) -> int:
        for index, candidate in enumerate(self.steps):
            if candidate is step:
                return index
        raise ValueError(f"step {step.id!r} is not a step of lesson {self.id!r}")

    def tolerance_for(self, step: PredictStep | QuizTemplate) -> Tolerance:
        return step.tolerance or self.tolerance

    def line_of(self, key_path: str) -> int | None:
        """The file line of `key_path`, or of its nearest enclosing key the file shows."""
        from lessons.linemap import nearest_line

        return nearest_line(self.lines, key_path)

    @property
    def sort_key(self) -> tuple[float, str]:
        return (self.order if self.order is not None else float("inf"), self.id)
