"""Hostile lesson TOML is refused on its raw text, before tomllib sees it: a clear message at the line,
never a traceback, a RecursionError at start or gigabytes of memory."""
from __future__ import annotations

import tomllib

import pytest

from lessons import tomlhelp
from lessons.course import load_course
from lessons.loader import read_lesson
from lessons.packs import read_pack

HEAD = 'format_version = 1\nid = "x"\ntitle = "X"\nsummary = "S"\n'

HOSTILE = {
    # name: (text after the head, the line of the refusal, a fragment of the message)
    "dotted_key": ("a" + ".a" * 20_000 + " = 1\n", 5, "more than 10 parts"),
    "dotted_header": ("\n[" + "t." * 5_000 + "t]\n", 6, "more than 10 parts"),
    "quoted_dotted_key": ('"a".' * 40 + '"b" = 1\n', 5, "more than 10 parts"),
    "deep_array": ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", 5, "nested more than 16 deep"),
    "deep_inline_table": ("\n\nx = " + "{a = " * 2_000 + "1" + "}" * 2_000 + "\n", 7, "nested more than 16 deep"),
    "many_items": ("x = [" + "1, " * 30_000 + "]\n", 5, "more than 20000 keys and array items"),
    "many_keys": ("".join(f"k{i} = 1\n" for i in range(30_000)), 20_001, "more than 20000 keys"),
}


@pytest.fixture
def no_tomllib(monkeypatch):
    """tomllib must not even be called: the bound is checked on the raw text."""
    def refuse(text):
        raise AssertionError("tomllib was called on a hostile file")

    monkeypatch.setattr(tomllib, "loads", refuse)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_lesson_is_refused_at_its_line_before_parsing(tmp_path, no_tomllib, name):
    body, line, fragment = HOSTILE[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(HEAD + body, encoding="utf-8")
    lesson, problems = read_lesson(path)
    assert lesson is None and len(problems) == 1
    assert problems[0].line == line and fragment in problems[0].message
    assert str(problems[0]).startswith(f"{path}:{line}: ")


def test_what_lessons_need_is_within_the_bounds():
    text = HEAD + ('quiz.params.n.kind = "int"\n[[steps]]\nkind = "read"\ntext = """a [[[ { b.c.d.e.f.g.h.i.j """\n'
                   "x = [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]  # ]]]]]]] \n"
                   "y = 'a.b.c.d.e.f.g.h.i.j.k' \n" + "z = [" + "1," * 19_000 + "]\n")
    assert tomlhelp.exceeded_bound(text) is None
    assert tomllib.loads(text)["steps"][0]["x"] == [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]


def test_strings_and_comments_are_skipped_as_toml_delimits_them():
    for text in ['s = """ [[[[[[[[[[[[[[[[[[ \\""" ]"""\n', "s = ''' {{{{{{{{{{{{{{{{{{ '''''\n",
                 "# " + "[" * 40 + "\n", 's = "' + "[" * 40 + '"\n', "s = '" + "." * 40 + "'\n"]:
        assert tomlhelp.exceeded_bound(text) is None, text


def test_a_syntax_error_is_still_explained(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(HEAD + "correct = True\n", encoding="utf-8")
    _, problems = read_lesson(path)
    assert problems[0].line == 5 and "write `true`" in problems[0].message


def test_a_deep_pack_toml_is_refused(tmp_path, no_tomllib):
    (tmp_path / "pack.toml").write_text('name = "p"\nlicence = ' + "[" * 50_000 + "\n", encoding="utf-8")
    pack, problems = read_pack(tmp_path)
    assert pack is None and problems[0].line == 2 and "nested more than 16 deep" in problems[0].message


def test_the_course_lists_hostile_files_as_broken_and_loads_the_rest(tmp_path):
    for name, (body, _, _) in HOSTILE.items():
        (tmp_path / f"{name}.toml").write_text(HEAD + body, encoding="utf-8")
    course = load_course([tmp_path], user_dir=None)
    assert course.lessons and all(lesson.path.parent != tmp_path for lesson in course.lessons)
    assert sorted(error.path for error in course.broken) == sorted(str(tmp_path / f"{n}.toml") for n in HOSTILE)


async def test_the_app_starts_with_a_deep_lesson_in_its_folder(tmp_path, data_dir):
    from tutor.app import TutorApp
    from tutor.screens.course import CourseScreen

    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "deep.toml").write_text(HEAD + "x = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    app = TutorApp(lang="en", extra_dirs=[folder], data_dir=data_dir, include_bundled=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)
        assert [(error.path, error.line) for error in app.course.broken] == [(str(folder / "deep.toml"), 5)]
