"""The loader and schema: every malformed file gets its own clear message at the right line."""
from __future__ import annotations

import pytest

from lessons.errors import LessonError
from lessons.loader import load_lesson, parse_lesson, read_lesson
from lessons.model import ChoiceStep, ErrorStep, LocalText, PredictStep, ReadStep, Tolerance

GOOD = '''\
format_version = 1
id = "tiny"
title = { en = "Tiny", ja = "小さな" }
summary = "A tiny lesson."
concepts = ["vjp"]

[[steps]]
id = "setup"
kind = "read"
text.en = "Setup"
text.ja = "準備"
snippet = """
  import torch
  x = torch.tensor([1., 2.], requires_grad=True)
"""

[[steps]]
id = "guess"
kind = "predict"
continues = true
text = "Predict"
snippet = "(x * 3).sum().backward()"
expression = "x.grad"
tolerance = { rtol = 0.01 }
hints = ["one", { en = "two", ja = "二" }]

[[steps]]
id = "boom"
kind = "error"
text = "What happens?"
snippet = "y = x * 2"
[[steps.choices]]
error = "RuntimeError: grad can be implicitly created only for scalar outputs"
[[steps.choices]]
error = "none"
why = "It runs."

[[steps]]
id = "why"
kind = "choice"
text = "Why?"
[[steps.options]]
text = "A"
[[steps.options]]
text = "B"
correct = true
'''


def problems_of(path) -> list[str]:
    lesson, problems = read_lesson(path)
    assert (lesson is None) == bool(problems)
    return [str(p) for p in problems]


def test_a_good_lesson_loads_into_the_model():
    lesson, problems = parse_lesson(GOOD, "tiny.toml")
    assert problems == []
    assert lesson.title.get("ja") == "小さな" and lesson.summary.get("ja") == "A tiny lesson."
    assert [type(s) for s in lesson.steps] == [ReadStep, PredictStep, ErrorStep, ChoiceStep]
    setup, guess, boom, why = lesson.steps
    assert setup.text == LocalText("Setup", "準備")
    assert setup.snippet.startswith("import torch\n")  # dedented
    assert setup.snippet_line == 13 and guess.line == 17
    assert guess.continues and guess.expression == "x.grad"
    assert lesson.tolerance_for(guess) == Tolerance(rtol=0.01, atol=Tolerance().atol)
    assert [h.get("ja") for h in guess.hints] == ["one", "二"]
    assert boom.choices[1].is_none and boom.choices[1].why.en == "It runs."
    assert why.correct_index == 1
    assert lesson.step("boom") is boom and lesson.line_of("steps[3].options[1].correct") == 46


@pytest.mark.parametrize("name, line, fragment", [
    ("bad_toml.toml", 3, "TOML syntax error at column 32: Unclosed inline table"),
    ("missing_keys.toml", None, "missing required key 'title'"),
    ("wrong_types.toml", 3, "order: expected an integer, got a string"),
    ("unknown_kind.toml", 9, "steps[0].kind: unknown step kind 'predikt' — did you mean 'predict'?"),
    ("unknown_key.toml", 18, "steps[1].expresion: unknown key 'expresion' — did you mean 'expression'?"),
    ("bad_continues.toml", 10, "steps[0].continues: the first step cannot continue"),
    ("two_correct.toml", 11, "exactly one option must have `correct = true` (found 2)"),
    ("newer_version.toml", 1, "format version 7; this autograd-tutor reads version 1 — update autograd-tutor"),
    ("invalid_utf8.toml", 3, "not valid UTF-8 (byte 0xe9 at column 13)"),
    ("empty.toml", None, "the file is empty"),
    ("binary.toml", 2, "binary file"),
    ("bad_quiz.toml", 16, "quiz[0].snippet: placeholder {y} has no entry in [quiz.params]"),
])
def test_each_malformed_file_has_its_own_message(malformed, name, line, fragment):
    path = malformed / name
    problems = problems_of(path)
    assert problems, name
    prefix = f"{path}:{line}: " if line else f"{path}: "
    assert any(p.startswith(prefix) and fragment in p for p in problems), problems
    with pytest.raises(LessonError):
        load_lesson(path)


def test_a_typo_is_not_also_reported_as_a_missing_key(malformed):
    assert len(problems_of(malformed / "unknown_key.toml")) == 1


def test_a_huge_file_is_refused_without_reading_it(tmp_path):
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"# padding line\n" * 700_000)  # 10.5 MB
    assert problems_of(huge) == [f"{huge}: the file is 10.5 MB; a lesson file may be at most 1 MB — is this the right file?"]


def test_missing_file_and_folder_are_clear(tmp_path):
    assert problems_of(tmp_path / "nope.toml") == [f"{tmp_path / 'nope.toml'}: file not found"]
    assert problems_of(tmp_path) == [f"{tmp_path}: not a regular file"]


def variant(old: str, new: str) -> list[str]:
    assert old in GOOD
    return [str(p) for p in parse_lesson(GOOD.replace(old, new, 1), "v.toml")[1]]


@pytest.mark.parametrize("old, new, expected", [
    ('kind = "read"', 'kind = "read"\nexpression = "x"',
     "v.toml:10: steps[0].expression: key 'expression' is not used here (it belongs to predict steps, and this is a read step)"),
    ('id = "guess"', 'id = "setup"', "v.toml:18: steps[1].id: duplicate step id 'setup' (also at steps[0].id)"),
    ('id = "tiny"', 'id = "Tiny Lesson"', "v.toml:2: id: 'Tiny Lesson' is not a valid id"),
    ('concepts = ["vjp"]', 'concepts = []', "v.toml:5: concepts: list at least one concept tag"),
    ('title = { en = "Tiny", ja = "小さな" }', 'title = { en = "Tiny", jp = "小さな" }',
     "v.toml:3: title.jp: unknown key 'jp' — did you mean 'ja'?"),
    ('title = { en = "Tiny", ja = "小さな" }', 'title = { ja = "小さな" }', "v.toml:3: title: missing required key 'en'"),
    ('expression = "x.grad"', 'expression = "x.grad +"', "v.toml:23: steps[1].expression: not a Python expression"),
    ('tolerance = { rtol = 0.01 }', 'tolerance = { rtol = -1 }', "v.toml:24: steps[1].tolerance.rtol: must not be negative"),
    ('error = "none"', 'error = "it just works"', 'v.toml:35: steps[2].choices[1].error: \'it just works\' is not an error'),
    ('hints = ["one", { en = "two", ja = "二" }]', 'hints = "one"', "v.toml:25: steps[1].hints: expected an array of texts, got a string"),
    ('continues = true\ntext = "Predict"\nsnippet = "(x * 3).sum().backward()"', 'text = "Predict"',
     "v.toml:17: steps[1]: a predict step needs a `snippet`, or `continues = true`"),
])
def test_schema_violations_name_key_and_line(old, new, expected):
    problems = variant(old, new)
    assert any(p.startswith(expected) for p in problems), problems


def test_text_falls_back_to_english():
    assert LocalText("Hello").get("ja") == "Hello"
    assert LocalText("Hello", "こんにちは").get("ja") == "こんにちは"
    assert LocalText("Hello", "こんにちは").get("en") == "Hello"
