"""The course: bundled, user and extra folders; broken files and duplicate ids are listed, not fatal."""
from __future__ import annotations

from pathlib import Path

from lessons.course import load_course
from lessons.folders import bundled_dir

MALFORMED = Path(__file__).parent / "malformed"


def lesson_text(lesson_id: str, order: int | None = None) -> str:
    order_line = f"order = {order}\n" if order is not None else ""
    return (f'format_version = 1\nid = "{lesson_id}"\n{order_line}title = "T"\nsummary = "S"\nconcepts = ["c"]\n'
            '[[steps]]\nid = "s"\nkind = "read"\ntext = "Hi"\n')


def test_the_bundled_course_loads_sorted_and_credited(tmp_path):
    course = load_course(user_dir=tmp_path / "none")
    assert course.broken == []
    assert len(course.lessons) == len(list(bundled_dir().glob("*.toml"))) >= 8
    assert [lesson.sort_key for lesson in course.lessons] == sorted(lesson.sort_key for lesson in course.lessons)
    # the lessons built on the seed articles credit them; a lesson that no article is the source of has no credit line
    assert {"trying-autograd", "tensor-gradient-jacobian", "chain-rule"} <= {lesson.id for lesson in course.lessons
                                                                              if lesson.source}
    for lesson in course.lessons:
        assert lesson.title.ja and lesson.summary.ja and (not lesson.source or lesson.source.ja), lesson.id
        assert sum(step.kind == "predict" for step in lesson.steps) >= 3, lesson.id
        assert lesson.quiz, lesson.id
        for step in lesson.steps:  # per-concept stats count what a step exercises, not the whole lesson
            assert step.kind != "predict" or step.concepts, (lesson.id, step.id)


def test_bundled_cross_references_name_lessons_by_their_titles(tmp_path):
    """`lesson "Title"` / レッスン「題名」 in a bundled text must name a lesson that exists, in that language."""
    import re

    from lessons.lint import texts

    lessons = load_course(user_dir=tmp_path / "none").lessons
    titles = {"en": {lesson.title.en for lesson in lessons}, "ja": {lesson.title.ja for lesson in lessons}}
    patterns = {"en": re.compile(r'lesson\s+"([^"]+)"'), "ja": re.compile(r"レッスン「([^」]+)」")}
    found = 0
    for lesson in lessons:
        for key_path, text in texts(lesson):
            for lang, pattern in patterns.items():
                for title in pattern.findall(" ".join(text.get(lang).split())):
                    found += 1
                    assert title in titles[lang], (lesson.id, key_path, title)
    assert found >= 10


def test_user_and_extra_folders_join_and_duplicates_are_broken(tmp_path):
    user, extra = tmp_path / ".local" / "user", tmp_path / "extra"  # a hidden parent, like ~/.local/share
    (user / "nested").mkdir(parents=True)
    extra.mkdir()
    (user / "nested" / "mine.toml").write_text(lesson_text("mine", order=5), encoding="utf-8")
    (user / "unordered.toml").write_text(lesson_text("zz-unordered"), encoding="utf-8")
    (extra / "copy.toml").write_text(lesson_text("mine"), encoding="utf-8")
    (extra / "broken.toml").write_text("format_version = 1\nid = ", encoding="utf-8")
    course = load_course([extra, tmp_path / "missing"], user_dir=user, include_bundled=False)
    assert [lesson.id for lesson in course.lessons] == ["mine", "zz-unordered"]
    messages = sorted(str(error) for error in course.broken)
    assert messages[0].startswith(f"{extra / 'broken.toml'}:2: TOML syntax error")
    assert messages[1] == (f"{extra / 'copy.toml'}:2: id: duplicate lesson id 'mine': "
                           f"{user / 'nested' / 'mine.toml'} uses it already; give this lesson another id")
    assert messages[2] == f"{tmp_path / 'missing'}: lesson folder not found"
    assert course.lesson("mine").path == user / "nested" / "mine.toml"


def test_every_malformed_file_is_listed_not_raised(tmp_path):
    course = load_course([MALFORMED], user_dir=tmp_path, include_bundled=False)
    # these are sound as files; only running them shows their problems (`check` does that)
    runnable = {"rejected_snippet", "expect_disagrees", "no_matching_choice", "failing_snippet", "bad_expression",
                "engine_gap", "nonfinite", "big_answer", "collides_bundled"}
    assert {lesson.path.stem for lesson in course.lessons} == runnable
    assert {Path(error.path).stem for error in course.broken} == {p.stem for p in MALFORMED.glob("*.toml")} - runnable


def test_sections_put_the_bundled_course_first_then_own_lessons_then_each_pack(tmp_path):
    """The course view's groups: bundled, the learner's loose lessons (and --lessons folders), then
    each pack by name, its lessons in pack.toml's order (not by `order`), with its title."""
    user, extra = tmp_path / "user", tmp_path / "extra"
    for name, listed in (("zeta", ["b.toml", "a.toml"]), ("alpha", ["a.toml"])):
        folder = user / name
        folder.mkdir(parents=True)
        for file in listed:
            (folder / file).write_text(lesson_text(file[0], order=1 if file == "a.toml" else 2), encoding="utf-8")
        (folder / "pack.toml").write_text(
            f'name = "{name}"\nversion = "1.2.0"\nauthors = ["A"]\nlanguages = ["en"]\nlicence = "MIT"\n'
            f'lessons = {listed!r}\ntitle = {{ en = "{name.title()} pack", ja = "{name}パック" }}\n'.replace("'", '"'),
            encoding="utf-8")
    extra.mkdir()
    (user / "mine.toml").write_text(lesson_text("mine", order=1), encoding="utf-8")
    (extra / "theirs.toml").write_text(lesson_text("theirs"), encoding="utf-8")
    course = load_course([extra], user_dir=user)
    assert course.broken == []
    sections = course.sections()
    assert [(s.kind, s.pack_name) for s in sections] == [("bundled", None), ("own", None), ("pack", "alpha"),
                                                         ("pack", "zeta")]
    assert all(lesson.path.parent == bundled_dir() for lesson in sections[0].lessons)
    assert [lesson.id for lesson in sections[1].lessons] == ["mine", "theirs"]
    assert [lesson.id for lesson in sections[3].lessons] == ["zeta/b", "zeta/a"]  # pack.toml's order
    zeta = sections[3].pack
    assert (zeta.version, zeta.title.get("ja")) == ("1.2.0", "zetaパック")
    assert sum(len(s.lessons) for s in sections) == len(course.lessons)
    assert [s.kind for s in load_course(user_dir=tmp_path / "none").sections()] == ["bundled"]
