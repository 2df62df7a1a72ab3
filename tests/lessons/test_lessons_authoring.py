"""Authoring v2 (issue 16): what `check` catches, the pedagogy lint, --watch, the editor schema, `new`."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from new_lessons import write_japanese

from lessons.loader import read_lesson

HERE = Path(__file__).parent
MALFORMED = HERE / "malformed"
LINT = HERE / "lint"
NOT_LESSONS = HERE / "not_lessons"
BUNDLED = HERE.parents[1] / "lessons" / "bundled"


@pytest.mark.parametrize("name, expected", [
    ("exception_typo.toml", ":16: steps[0].choices[0].error: 'RunTimeError' is not an exception type Python or "
                            "PyTorch raises, so this choice could never match — did you mean 'RuntimeError'?"),
    ("engine_gap.toml", ":16: steps[0].choices: the program fails because the engine lacks something PyTorch has"),
    ("big_answer.toml", ":16: steps[0].expression: the answer `x.grad` has 10000 cells (shape [100, 100]); learners "
                        "are asked for at most 64 cells (the cap quiz tensors use too)"),
    ("nonfinite.toml", ":16: steps[0].expression: the answer `x.grad` contains inf; if that is the point of the "
                       "question, say so with `nonfinite = true`"),
    ("bad_quiz_param.toml", ":22: quiz[0].params.x.kind: param kind must be one of tensor, int, float, choice, got 'tensr'"),
    ("python_true.toml", ":13: TOML syntax error at column 11: TOML's booleans are lowercase: write `true`, not `True`"),
    ("unclosed_string.toml", ":11: TOML syntax error: the \"\"\" string of `snippet` that starts here is never closed"),
    ("concept_typo.toml", ":5: concepts[0]: unknown concept 'chain-rul' — did you mean 'chain-rule'?"),
    ("collides_bundled.toml", ":2: id: lesson id 'chain-rule' is already used by "),
    ("no_format_version.toml", ": missing required key 'format_version'"),
])
def test_check_catches_what_learners_would_hit(cli, name, expected):
    result = cli("check", MALFORMED / name)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{MALFORMED / name}{expected}"), result.output
    assert len(lines) == 2, "reported once: " + result.output  # one problem, then the summary


def test_a_collision_names_the_other_file_and_suggests_a_free_id(cli):
    line = cli("check", MALFORMED / "collides_bundled.toml").output.splitlines()[0]
    assert "030-chain-rule.toml (the bundled course)" in line and "like 'chain-rule-2'" in line


def test_a_collision_with_the_user_lesson_folder(cli, tmp_path):
    from tutor.paths import lessons_dir

    assert cli("new", "shared").exit_code == 0
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "shared.toml").write_text((lessons_dir() / "shared.toml").read_text("utf-8"), "utf-8")
    result = cli("check", tmp_path / "mine")
    assert result.exit_code == 1 and "(your lesson folder)" in result.output
    assert "like 'shared-2'" in result.output
    # checking the user folder itself is not a collision with itself
    assert cli("check", lessons_dir()).exit_code == 0


def test_new_refuses_a_taken_id_and_suggests_one(cli, tmp_path):
    result = cli("new", "chain-rule", "--dir", tmp_path)
    assert result.exit_code == 1
    assert "the lesson id 'chain-rule' is taken by" in result.output
    assert "autograd-tutor new chain-rule-2" in result.output
    assert not (tmp_path / "chain-rule.toml").exists()
    assert cli("new", "chain-rule-2", "--dir", tmp_path).exit_code == 0


def test_the_quiz_cap_is_one_constant():
    from lessons import loader, model

    assert loader.MAX_QUIZ_CELLS is model.MAX_ANSWER_CELLS == 64
    try:
        from tutor.widgets import answer_grid
    except ImportError:  # pragma: no cover - the app's widgets are optional for this test
        return
    assert answer_grid.MAX_CELLS == model.MAX_ANSWER_CELLS


def test_a_nonfinite_answer_passes_when_the_step_says_so(cli, tmp_path):
    text = (MALFORMED / "nonfinite.toml").read_text("utf-8").replace('expression = "x.grad"',
                                                                       'expression = "x.grad"\nnonfinite = true')
    (tmp_path / "ok.toml").write_text(text, "utf-8")
    result = cli("check", tmp_path / "ok.toml")
    assert result.exit_code == 0, result.output


def test_exception_names_from_pytorch_and_dotted_ones_are_accepted():
    from lessons.exceptions import unknown_exception

    for name in ("RuntimeError", "IndexError", "torch.OutOfMemoryError", "torch.linalg.LinAlgError",
                 "torch.autograd.gradcheck.GradcheckError", "NotImplementedError", "StopIteration"):
        assert unknown_exception(name) is None, name
    assert "did you mean 'TypeError'" in unknown_exception("TypError").en
    assert "did you mean 'RuntimeError'" in unknown_exception("runtimeerror").en


def test_a_pyproject_toml_is_not_a_lesson(cli):
    result = cli("check", NOT_LESSONS)
    assert "pyproject.toml" not in result.output
    assert result.output.splitlines()[-1].startswith("1 lesson checked, 0 problems")
    strict = cli("check", "--strict", NOT_LESSONS)
    assert f"{NOT_LESSONS / 'forgot.toml'}:1: warning: not read as a lesson: it has no `format_version = 1`" \
        in strict.output
    from lessons.folders import lesson_files

    assert [p.name for p in lesson_files(NOT_LESSONS)] == ["squares.toml"]


def test_a_marked_folder_reads_every_toml(tmp_path):
    from lessons.folders import lesson_files

    (tmp_path / "a.toml").write_text('id = "a"\n', "utf-8")
    assert lesson_files(tmp_path) == []
    (tmp_path / ".autograd-tutor-lessons").touch()
    assert lesson_files(tmp_path) == [tmp_path / "a.toml"]


# --- pedagogy lint -------------------------------------------------------------------------------

def test_lint_summary_without_strict_and_each_warning_with_strict(cli):
    plain = cli("check", LINT)
    assert plain.exit_code == 0
    assert plain.output.splitlines() == ["1 lesson checked, 0 problems, 5 warnings (--strict lists them)"]
    strict = cli("check", "--strict", LINT)
    assert strict.exit_code == 1
    thin = LINT / "thin.toml"
    expected = [
        f"{thin}:2: id: warning: lesson 'thin' has no quiz template",
        f"{thin}:3: title: warning: 5 of 6 texts have no Japanese (the first is title)",
        f"{thin}:5: concepts[1]: warning: 'brand-new-idea' is a new concept tag",
        f"{thin}:7: steps[0]: warning: predict step 'guess' has no hints and no explanation",
        f"{thin}:25: steps[1].options[1]: warning: option 2 is nearly the same as option 1",
    ]
    lines = strict.output.splitlines()
    assert len(lines) == len(expected) + 1
    for line, start in zip(lines, expected):
        assert line.startswith(start), line
    assert lines[-1] == "1 lesson checked, 0 problems, 5 warnings"


def test_require_lang_ja_fails_on_each_missing_japanese_text(cli):
    result = cli("check", "--require-lang", "ja", LINT)
    assert result.exit_code == 1
    missing = [line for line in result.output.splitlines() if "no Japanese text" in line]
    assert [line.split(": ")[1] for line in missing] == [
        "title", "summary", "steps[0].text", "steps[1].options[0].text", "steps[1].options[1].text"]
    assert missing[0].startswith(f"{LINT / 'thin.toml'}:3: title: no Japanese text")


def test_the_template_of_new_is_lint_clean_and_strict_ja_names_its_placeholders(cli, tmp_path):
    """A new lesson passes `check` and `check --strict` as it is; `--require-lang ja` names each Japanese
    text the author has still to write (file:line, the fix) — and passes once they are written."""
    assert cli("new", "clean-start", "--dir", tmp_path).exit_code == 0
    path = tmp_path / "clean-start.toml"
    for strict in ((), ("--strict",)):
        result = cli("check", *strict, path)
        assert result.exit_code == 0 and result.output.strip() == "1 lesson checked, 0 problems", result.output
    result = cli("check", "--strict", "--require-lang", "ja", path)
    lines = path.read_text("utf-8").splitlines()
    line_of = {key: next(n for n, line in enumerate(lines, 1) if line.startswith(f"{key} = ")) for key in
               ("title", "summary", "source")}
    assert result.exit_code == 1 and result.output.splitlines() == [
        f"{path}:{line_of['title']}: title.ja: the Japanese text is the English one (as `autograd-tutor new` "
        "writes a title): write it in Japanese",
        f"{path}:{line_of['summary']}: summary.ja: the Japanese text still has the placeholder "
        "<学習者が理解できるようになることを一文で> of `autograd-tutor new`: replace it",
        f"{path}:{line_of['source']}: source.ja: the Japanese text still has the placeholder <あなた> of "
        "`autograd-tutor new`: replace it",
        "1 lesson checked, 3 problems"]
    write_japanese(path)
    result = cli("check", "--strict", "--require-lang", "ja", path)
    assert result.exit_code == 0 and result.output.strip() == "1 lesson checked, 0 problems", result.output


# --- watch ---------------------------------------------------------------------------------------

def test_watch_rechecks_on_save_and_stops_on_ctrl_c(cli, tmp_path, monkeypatch):
    from tutor.commands import check

    assert cli("new", "watched", "--dir", tmp_path).exit_code == 0
    path = tmp_path / "watched.toml"
    good = path.read_text("utf-8")
    calls = []

    def fake_sleep(seconds):
        calls.append(seconds)
        if len(calls) == 1:  # the author saves a mistake
            path.write_text(good.replace('expression = "x.grad"', 'expresion = "x.grad"', 1), "utf-8")
        elif len(calls) == 3:  # …and fixes it
            path.write_text(good + "\n", "utf-8")
        elif len(calls) == 5:
            raise KeyboardInterrupt

    monkeypatch.setattr(check, "_sleep", fake_sleep)
    result = cli("check", "--watch", path)
    out = result.output
    assert "watching 1 files for changes; Ctrl-C stops" in out
    assert out.count("1 lesson checked, 0 problems") == 2 and "did you mean 'expression'?" in out
    assert out.rstrip().endswith("stopped watching") and result.exit_code == 0
    assert all(seconds == check.WATCH_INTERVAL for seconds in calls)


def test_watch_is_bounded(cli, tmp_path, monkeypatch):
    from tutor.commands import check

    monkeypatch.setattr(check, "MAX_WATCHED", 2)
    for name in ("a", "b", "c"):
        assert cli("new", f"bounded-{name}", "--dir", tmp_path).exit_code == 0
    monkeypatch.setattr(check, "_sleep", lambda s: None)
    result = cli("check", "--watch", "--watch-rounds", "0", tmp_path)
    assert "watching 2 files for changes (only the first 2)" in result.output


# --- the editor schema ---------------------------------------------------------------------------

# checks a JSON Schema cannot express: across steps, placeholders, the glossary, exception names, "exactly one"
SCHEMA_BLIND = {"bad_continues.toml", "bad_quiz.toml", "concept_typo.toml", "exception_typo.toml",
                "two_correct.toml"}


def _corpus():
    for folder in (BUNDLED, MALFORMED, LINT, NOT_LESSONS):
        yield from sorted(folder.glob("*.toml"))


def test_the_committed_schema_is_generated_from_the_loaders_spec():
    from lessons.spec import SCHEMA_PATH, schema_text

    assert SCHEMA_PATH.read_text("utf-8") == schema_text(), "run: python -m lessons.spec"


def test_the_schema_and_the_loader_agree_on_the_keys():
    from lessons import loader
    from lessons.spec import json_schema

    schema = json_schema()
    assert set(schema["properties"]) == set(loader._LESSON_KEYS)
    step_keys = set(loader._COMMON_STEP_KEYS) | {k for keys in loader._KIND_KEYS.values() for k in keys}
    assert set(schema["definitions"]["step"]["properties"]) == step_keys
    assert set(schema["definitions"]["quiz"]["properties"]) == set(loader._QUIZ_KEYS)
    for variant in schema["definitions"]["param"]["oneOf"]:
        kind = variant["properties"]["kind"]["const"]
        assert set(variant["properties"]) == {"kind", *loader._PARAM_KEYS[kind]}


def test_the_schema_and_the_loader_give_the_same_verdicts():
    jsonschema = pytest.importorskip("jsonschema")
    from lessons.spec import json_schema

    validator = jsonschema.Draft7Validator(json_schema())
    jsonschema.Draft7Validator.check_schema(json_schema())
    compared = 0
    for path in _corpus():
        try:
            data = tomllib.loads(path.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue  # not comparable: the schema sees parsed TOML only
        schema_ok = validator.is_valid(data)
        lesson, problems = read_lesson(path)
        loader_ok = lesson is not None or all("already used" in p.message for p in problems)
        if path.name in SCHEMA_BLIND:
            assert schema_ok and not loader_ok, path.name
        else:
            assert schema_ok == loader_ok, (path.name, [e.message for e in validator.iter_errors(data)], problems)
        compared += 1
    assert compared >= 30


@pytest.mark.parametrize("old, new", [
    ('kind = "read"', 'kind = "read"\nexpression = "x"'),
    ('concepts = ["vjp"]', 'concepts = []'),
    ('title = { en = "Tiny", ja = "小さな" }', 'title = { ja = "小さな" }'),
    ('tolerance = { rtol = 0.01 }', 'tolerance = { rtol = -1 }'),
    ('error = "none"', 'error = "it just works"'),
    ('hints = ["one", { en = "two", ja = "二" }]', 'hints = "one"'),
    ('continues = true\ntext = "Predict"\nsnippet = "(x * 3).sum().backward()"', 'text = "Predict"'),
    ('id = "tiny"', 'id = "Tiny Lesson"'),
    ('kind = "read"', 'kind = "reed"'),
    ('id = "guess"', 'id = "guess"\nnonfinite = "yes"'),
    ('id = "tiny"', 'id = "tiny"\norder = 1.5'),
])
def test_the_schema_rejects_what_the_loader_rejects(old, new):
    jsonschema = pytest.importorskip("jsonschema")
    from test_lessons_loader import GOOD

    from lessons.loader import parse_lesson
    from lessons.spec import json_schema

    text = GOOD.replace(old, new, 1)
    assert parse_lesson(text, "v.toml")[1], "the loader rejects it"
    assert not jsonschema.Draft7Validator(json_schema()).is_valid(tomllib.loads(text))
    assert jsonschema.Draft7Validator(json_schema()).is_valid(tomllib.loads(GOOD))


def test_new_points_editors_at_the_schema_beside_the_lesson(cli, tmp_path):
    """Relative, with the schema written beside it: no path of the author's machine in a shared lesson."""
    assert cli("new", "schema-ref", "--dir", tmp_path).exit_code == 0
    text = (tmp_path / "schema-ref.toml").read_text("utf-8")
    first = text.splitlines()[0]
    assert first == "#:schema ./lesson.schema.json" and "file://" not in text
    target = tmp_path / first.split(" ", 1)[1]
    assert target.is_file() and json.loads(target.read_text("utf-8"))["title"] == "autograd-tutor lesson"


# --- the term list (lessons/terms.toml) -----------------------------------------------------------

TERMS_LESSON = '''format_version = 1
id = "words"
title = { en = "Words", ja = "用語" }
summary = { en = "Terms.", ja = "線形な関数の形状と形式を見ます。`x.shape` は形状です。" }
concepts = ["leaf-tensor"]

[[steps]]
id = "leafy"
kind = "read"
text = { en = "A leaf and its shape.", ja = "リーフテンソルの形は `x.shape` で分かります。" }

[[quiz]]
id = "q"
text = { en = "Predict `x.grad`.", ja = "非リーフの `x.grad` を予想してください。" }
snippet = """
import torch
x = torch.tensor({x}, requires_grad=True)
(x * 2).sum().backward()
"""
expression = "x.grad"
hints = [{ en = "Twice.", ja = "2 倍です。" }]
explanation = { en = "2.", ja = "2 です。" }
[quiz.params]
x = { kind = "tensor", shapes = [[2]], low = 1, high = 3 }
'''


def test_a_japanese_variant_the_term_list_avoids_is_a_warning_naming_step_variant_and_term(cli, tmp_path):
    path = tmp_path / "words.toml"
    path.write_text(TERMS_LESSON, encoding="utf-8")
    result = cli("check", "--strict", path)
    assert result.exit_code == 1
    found = [line for line in result.output.splitlines() if "lessons/terms.toml" in line]
    assert found == [
        f"{path}:10: steps[0].text: warning: step 'leafy': the Japanese text uses 'リーフ'; the course's term for "
        "'leaf tensor' is '葉テンソル' (lessons/terms.toml)",
        f"{path}:10: steps[0].text: warning: step 'leafy': the Japanese text uses '形'; the course's term for "
        "'shape (of a tensor)' is '形状' (lessons/terms.toml)",
        f"{path}:14: quiz[0].text: warning: quiz template 'q': the Japanese text uses '非リーフ'; the course's term "
        "for 'non-leaf tensor' is '非葉テンソル' (lessons/terms.toml)",
    ], result.output  # 線形, 形式 and 形状 in the summary are not variants; neither is code
    path.write_text(TERMS_LESSON.replace("リーフテンソルの形", "葉テンソルの形状").replace("非リーフ", "非葉テンソル"),
                    encoding="utf-8")
    assert not [line for line in cli("check", "--strict", path).output.splitlines() if "terms.toml" in line]


def test_no_term_pattern_matches_its_own_term_and_the_app_speaks_the_course_terms():
    """The app's catalogues, the glossary's concept names, the misconceptions and the built-in quiz use the
    course's terms too (the check's messages: tests/lessons/test_lessons_messages.py)."""
    from engine.explain.messages import MESSAGES
    from lessons.glossary import glossary, term_variants, terms
    from lessons.misconceptions import CATALOGUE
    from tutor.i18n import STRINGS
    from tutor.quiz.builtin import TEMPLATES
    from tutor.quiz.generator import ERROR_CHOICES, QUIZ_TITLE

    assert len({term.en for term in terms()}) == len(terms())
    for term in terms():
        assert term.avoid and not any(pattern.search(term.ja) for pattern in term.avoid), term
    quiz = [("title", QUIZ_TITLE), *((f"{c.error} why", c.why) for c in ERROR_CHOICES),
            *((f"{q.id} {i}", text) for q in TEMPLATES for i, text in enumerate((q.text, *q.hints)))]
    catalogue = {**{f"i18n {k}": v for k, v in STRINGS["ja"].items()},
                 **{f"messages {k}": v["ja"] for k, v in MESSAGES.items() if "ja" in v},
                 **{f"glossary {k}": v["ja"] for k, v in glossary().items()},
                 **{f"misconception {k} {part}": getattr(m, part)["ja"] for k, m in CATALOGUE.items()
                    for part in ("name", "explain")},
                 **{f"quiz {k}": text.ja for k, text in quiz}}
    assert {key: term_variants(text) for key, text in catalogue.items() if term_variants(text)} == {}


def test_the_bundled_course_uses_none_of_the_variants_the_term_list_avoids():
    """Every Japanese text of every bundled lesson (title to quiz hint) speaks the course's terms:
    集約 for a reduction (縮約 is a contraction), 有限差分 (not 差分 alone or 数値微分), and
    `requires_grad=True` の… rather than 勾配を必要とする."""
    from lessons.folders import bundled_dir
    from lessons.glossary import term_variants, terms
    from lessons.lint import texts
    from lessons.loader import load_lesson

    ja = {term.en.split(" (")[0]: term.ja for term in terms()}
    assert (ja["reduction"], ja["finite differences"], ja["requires grad"]) == ("集約", "有限差分", "`requires_grad=True` の")
    assert [variant for variant, _ in term_variants("縮約した次元、数値微分と差分、勾配を必要とするテンソル")] == \
        ["縮約", "数値微分", "差分", "勾配を必要と"]
    found = {}
    for path in sorted(bundled_dir().glob("*.toml")):
        lesson = load_lesson(path)
        for key_path, text in texts(lesson):
            variants = [variant for variant, _ in term_variants(text.ja or "")]
            if variants:
                found[f"{path.name} {key_path}"] = variants
    assert found == {}


def test_a_step_may_declare_its_own_concepts_checked_like_the_lessons(cli, tmp_path):
    lesson = (LINT / "thin.toml").read_text(encoding="utf-8")
    path = tmp_path / "steps.toml"
    path.write_text(lesson.replace('expression = "x.grad"', 'expression = "x.grad"\nconcepts = ["chain-rul"]'),
                    encoding="utf-8")
    result = cli("check", path)
    assert result.exit_code == 1 and "steps[0].concepts[0]: unknown concept 'chain-rul' — did you mean 'chain-rule'?" \
        in result.output
    path.write_text(lesson.replace('expression = "x.grad"', 'expression = "x.grad"\nconcepts = ["sum-gradient", "odd-idea"]'),
                    encoding="utf-8")
    result = cli("check", "--strict", path)
    assert "steps[0].concepts[1]: warning: 'odd-idea' is a new concept tag" in result.output
    assert read_lesson(path)[0].steps[0].concepts == ("sum-gradient", "odd-idea")
    assert read_lesson(path)[0].steps[1].concepts == ()  # the lesson's apply (tutor.practice)


def test_new_makes_a_file_name_and_an_id_of_a_title(cli, tmp_path):
    """`new "Layer Norm!"` (a title, as a teacher types it) writes layer-norm.toml with the id layer-norm, which
    passes check."""
    result = cli("new", "Layer Norm!", "--dir", tmp_path)
    assert result.exit_code == 0, result.output
    assert [path.name for path in tmp_path.glob("*.toml")] == ["layer-norm.toml"]
    assert 'id = "layer-norm"' in (tmp_path / "layer-norm.toml").read_text(encoding="utf-8")
    assert cli("check", tmp_path / "layer-norm.toml").exit_code == 0
