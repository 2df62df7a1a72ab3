"""The pedagogy lint: what a lesson lacks for learners, though it is valid.

`lint_lesson(lesson)` returns warnings (each a `LessonError` with file:line): a predict question
without hints or an explanation, a lesson without a quiz template, texts without Japanese, a choice
step whose options are near-duplicates, a concept tag that is new to the glossary, a Japanese text
that uses a variant the term list (`lessons/terms.toml`) says to avoid. `check` prints a
count of them, lists them with `--strict` (and then fails on them); with `--require-lang ja` a
missing Japanese text is a problem, listed one by one, and so is one not written yet: a copy of the
English, or a placeholder `autograd-tutor new` left (`<あなた>`).
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from lessons.errors import LessonError
from lessons.glossary import is_known, term_variants
from lessons.messages import say
from lessons.model import ChoiceStep, ErrorStep, Lesson, LocalText, PredictStep

NEAR_DUPLICATE = 0.9


def lint_lesson(lesson: Lesson, *, require_lang: tuple[str, ...] = (),
                glossary: frozenset[str] = frozenset()) -> tuple[list[LessonError], list[LessonError]]:
    """(problems, warnings): problems only for languages in `require_lang`, the rest are warnings."""
    problems: list[LessonError] = []
    warnings: list[LessonError] = []

    def warn(key_path: str, message: LocalText) -> None:
        warnings.append(LessonError(lesson.path, key_path, lesson.line_of(key_path), say("warning", message=message)))

    for index, step in enumerate(lesson.steps):
        if isinstance(step, PredictStep):
            missing = _missing_help(step)
            if missing:
                warn(f"steps[{index}]", say("no_help", step=step.id, missing=missing))
        if isinstance(step, ChoiceStep):
            _near_duplicates([option.text.en for option in step.options], f"steps[{index}].options", warn)
        if isinstance(step, ErrorStep):
            _near_duplicates([choice.error for choice in step.choices], f"steps[{index}].choices", warn)
    if not lesson.quiz:
        warn("id", say("no_quiz", lesson=lesson.id))
    for key_path, tag in _tags(lesson):
        if not is_known(tag, glossary):
            warn(key_path, say("new_tag", tag=tag))
    for key_path, text in texts(lesson):
        for variant, term in term_variants(text.ja or ""):
            warn(key_path, say("term_variant", owner=_owner(lesson, key_path), variant=variant, en=term.en,
                               ja=term.ja))
    untranslated = [key_path for key_path, text in texts(lesson) if not text.ja]
    if "ja" in require_lang:
        for key_path, text in texts(lesson):
            placeholder = _placeholder_ja(text)
            if placeholder:
                line = lesson.line_of(f"{key_path}.ja") or lesson.line_of(key_path)
                problems.append(LessonError(lesson.path, f"{key_path}.ja", line, placeholder))
    if untranslated:
        if "ja" in require_lang:
            for key_path in untranslated:
                problems.append(LessonError(lesson.path, key_path, lesson.line_of(key_path), say("no_japanese")))
        else:
            total = sum(1 for _ in texts(lesson))
            first = untranslated[0]
            warn(first, say("untranslated", count=len(untranslated), total=total, first=first))
    return problems, warnings


_CODE = re.compile(r"`[^`]*`|\$[^$]*\$")  # inline code and maths: the same in both languages
_PLACEHOLDER = re.compile(r"<[^<>\n]{1,40}>")  # what `autograd-tutor new` leaves for the author: <あなた>


def _placeholder_ja(text: LocalText) -> LocalText | None:
    """The problem when a Japanese text is not written yet: a copy of the English (words outside code), or a
    template placeholder in angle brackets; None when it is."""
    if not text.ja:
        return None
    prose = _CODE.sub("", text.ja)
    if text.ja.strip() == text.en.strip() and re.search(r"[A-Za-z]{2}", prose):
        return say("ja_is_english")
    found = _PLACEHOLDER.search(prose)
    if found:
        return say("ja_placeholder", placeholder=found.group())
    return None


def _tags(lesson: Lesson) -> Iterator[tuple[str, str]]:
    """Every concept tag with its key path: the lesson's, each step's own and each quiz template's own."""
    for i, tag in enumerate(lesson.concepts):
        yield f"concepts[{i}]", tag
    for index, step in enumerate(lesson.steps):
        for i, tag in enumerate(step.concepts):
            yield f"steps[{index}].concepts[{i}]", tag
    for index, template in enumerate(lesson.quiz):
        if template.concepts != lesson.concepts:
            for i, tag in enumerate(template.concepts):
                yield f"quiz[{index}].concepts[{i}]", tag


def _owner(lesson: Lesson, key_path: str) -> LocalText:
    """Who a text belongs to, for a message: "step 'x-grad'", "quiz template 'q'" or "the lesson"."""
    match = re.match(r"(steps|quiz)\[(\d+)\]", key_path)
    if match is None:
        return say("owner_lesson")
    items = lesson.steps if match.group(1) == "steps" else lesson.quiz
    return say("owner_step" if match.group(1) == "steps" else "owner_quiz", id=items[int(match.group(2))].id)


def _missing_help(step) -> LocalText | None:
    if not step.hints and step.explanation is None:
        return say("no_hints_no_explanation")
    if not step.hints:
        return say("no_hints")
    if step.explanation is None:
        return say("no_explanation")
    return None


def _normal(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


def _near_duplicates(texts_: list[str], key_path: str, warn) -> None:
    for j in range(len(texts_)):
        for i in range(j):
            a, b = _normal(texts_[i]), _normal(texts_[j])
            if a == b or difflib.SequenceMatcher(None, a, b).ratio() >= NEAR_DUPLICATE:
                warn(f"{key_path}[{j}]", say("near_duplicate", j=j + 1, i=i + 1, text_j=repr(texts_[j]),
                                             text_i=repr(texts_[i])))


def texts(lesson: Lesson) -> Iterator[tuple[str, LocalText]]:
    """Every text of the lesson, with its key path."""
    yield "title", lesson.title
    yield "summary", lesson.summary
    if lesson.source is not None:
        yield "source", lesson.source
    for i, step in enumerate(lesson.steps):
        yield from _step_texts(f"steps[{i}]", step)
        for k, choice in enumerate(getattr(step, "choices", ())):
            if choice.why is not None:
                yield f"steps[{i}].choices[{k}].why", choice.why
        for k, option in enumerate(getattr(step, "options", ())):
            yield f"steps[{i}].options[{k}].text", option.text
            if option.why is not None:
                yield f"steps[{i}].options[{k}].why", option.why
    for i, template in enumerate(lesson.quiz):
        yield from _step_texts(f"quiz[{i}]", template)


def _step_texts(owner: str, step) -> Iterator[tuple[str, LocalText]]:
    yield f"{owner}.text", step.text
    for k, hint in enumerate(step.hints):
        yield f"{owner}.hints[{k}]", hint
    if step.explanation is not None:
        yield f"{owner}.explanation", step.explanation
