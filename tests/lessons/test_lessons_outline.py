"""The course outline (what the course view lists, saved for the next start): equal to the loaded
course's after a round trip through its file, keyed by everything the load reads, never trusted damaged."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from lessons.course import load_course
from lessons.folders import bundled_dir
from lessons.outline import VERSION, fingerprint, outline_of, read_outline, write_outline

PACK_TOML = '''\
name = "{name}"
version = "1.2.0"
authors = ["Ada Lovelace <ada@example.org>"]
languages = ["en"]
licence = "CC-BY-4.0"
lessons = ["b.toml", "a.toml"]
{title}'''


def _copy_lesson(source, target, new_id):
    text = source.read_text(encoding="utf-8")
    old_id = next(line for line in text.splitlines() if line.startswith("id = ")).split('"')[1]
    target.write_text(text.replace(f'id = "{old_id}"', f'id = "{new_id}"', 1), encoding="utf-8")


@pytest.fixture
def folders(tmp_path):
    """Every kind of section and problem the course view shows: the bundled course, the learner's own
    lessons (one a duplicate id, one broken), a titled pack and an untitled one."""
    bundled = sorted(bundled_dir().glob("*.toml"))
    user = tmp_path / "user"
    user.mkdir()
    _copy_lesson(bundled[0], user / "mine.toml", "mine")
    _copy_lesson(bundled[1], user / "twice.toml", "mine")  # the same id: listed as broken
    (user / "broken.toml").write_text('format_version = 1\nid = "broken"\ntitle = \n', encoding="utf-8")
    packs = []
    for name, title in (("titled", 'title = { en = "A pack", ja = "パック" }\n'), ("untitled", "")):
        pack = tmp_path / name
        pack.mkdir()
        _copy_lesson(bundled[2], pack / "a.toml", "a")
        _copy_lesson(bundled[3], pack / "b.toml", "b")
        (pack / "pack.toml").write_text(PACK_TOML.format(name=name, title=title), encoding="utf-8")
        packs.append(pack)
    return user, packs


def _course(user, packs):
    return load_course(packs, user_dir=user)


def test_the_outline_lists_what_the_course_view_shows(folders):
    user, packs = folders
    course = _course(user, packs)
    outline = outline_of(course)
    assert [section.kind for section in outline.sections] == ["bundled", "own", "pack", "pack"]
    titled = outline.sections[2]
    assert (titled.pack_name, titled.pack_version, titled.pack_title.get("ja")) == ("titled", "1.2.0", "パック")
    assert [entry.id for entry in titled.lessons] == ["titled/b", "titled/a"]  # pack.toml's order
    untitled = outline.sections[3]
    assert (untitled.pack_name, untitled.pack_version, untitled.pack_title) == ("untitled", "1.2.0", None)
    assert {error.path for error in outline.broken} == {str(user / "broken.toml"), str(user / "twice.toml")}
    for section, loaded in zip(outline.sections, course.sections()):
        for entry, lesson in zip(section.lessons, loaded.lessons, strict=True):
            assert (entry.id, entry.path, entry.title, entry.summary, entry.concepts) == \
                   (lesson.id, lesson.path, lesson.title, lesson.summary, lesson.concepts)
            assert [(step.id, step.kind) for step in entry.steps] == [(step.id, str(step.kind)) for step in lesson.steps]
    bundled = outline.sections[0].lessons[0]
    assert "#" not in "".join(bundled.concept_names) and len(bundled.concept_names) == len(bundled.concepts)


def test_the_outline_survives_its_file_unchanged(folders, tmp_path):
    outline = outline_of(_course(*folders))
    path = tmp_path / "cache" / "outline.json"
    write_outline(path, "key", outline)
    assert read_outline(path, "key") == outline
    assert read_outline(path, "another key") is None


def test_the_fingerprint_changes_with_anything_the_load_reads(folders, tmp_path):
    user, packs = folders
    folder_list = [bundled_dir(), user, *packs, tmp_path / "not yet"]
    before = fingerprint(folder_list)
    assert fingerprint(folder_list) == before
    assert fingerprint(folder_list[:-1]) != before  # the folders themselves

    def changed(edit) -> bool:
        edit()
        now = fingerprint(folder_list)
        nonlocal before
        before, was = now, before
        return now != was

    mine = user / "mine.toml"
    assert changed(lambda: mine.write_text(mine.read_text(encoding="utf-8").replace("title", "title ", 1), encoding="utf-8"))
    assert changed(lambda: (packs[0] / "pack.toml").write_text(PACK_TOML.format(name="titled", title=""), encoding="utf-8"))
    assert changed(lambda: (user / "sub").mkdir() or (user / "sub" / "new.toml").write_text("x", encoding="utf-8"))
    assert changed(lambda: (user / ".autograd-tutor-lessons").write_text("", encoding="utf-8"))
    assert changed(lambda: mine.unlink())
    assert changed(lambda: (tmp_path / "not yet").mkdir())
    assert not changed(lambda: (user / "notes.txt").write_text("not a lesson", encoding="utf-8"))


def test_a_changed_tutor_version_changes_the_fingerprint(tmp_path, monkeypatch):
    """The outline depends on the loader's code and data too: a newer package reads lessons anew."""
    import lessons.outline

    package = tmp_path / "lessons"
    package.mkdir()
    shutil.copy(lessons.outline.__file__, package / "outline.py")
    monkeypatch.setattr(lessons.outline, "__file__", str(package / "outline.py"))
    before = fingerprint([])
    os.utime(package / "outline.py", ns=(1, 1))
    assert fingerprint([]) != before


@pytest.mark.parametrize("damage", [
    b"\x00\xff not json",
    b"[1, 2]",
    b'{"version": %d, "key": "key"}' % VERSION,  # (the current version: each is refused for its damage)
    b'{"version": %d, "key": "key", "outline": {"sections": [{"kind": 3}], "broken": []}}' % VERSION,
    b'{"version": %d, "key": "key", "outline": {"sections": [], "broken": [["a", "b"]]}}' % VERSION,
])
def test_a_damaged_outline_is_no_outline(tmp_path, damage):
    path = tmp_path / "outline.json"
    path.write_bytes(damage)
    assert read_outline(path, "key") is None


def test_every_malformed_field_is_refused(folders, tmp_path):
    """Each value of a saved outline replaced by a wrong type: read_outline gives None, never a wrong outline."""
    path = tmp_path / "outline.json"
    write_outline(path, "key", outline_of(_course(*folders)))
    stored = json.loads(path.read_text(encoding="utf-8"))
    entry = stored["outline"]["sections"][1]["lessons"][0]
    for field in entry:
        if field == "path":
            continue  # any path may be a lesson's
        damaged = json.loads(json.dumps(stored))
        damaged["outline"]["sections"][1]["lessons"][0][field] = 7
        path.write_text(json.dumps(damaged), encoding="utf-8")
        assert read_outline(path, "key") is None, field


def test_an_unwritable_cache_folder_costs_nothing_but_speed(folders, tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    write_outline(blocker / "outline.json", "key", outline_of(_course(*folders)))
    assert read_outline(blocker / "outline.json", "key") is None


def test_the_fingerprint_never_blocks_on_a_fifo_nor_reads_a_huge_file(tmp_path):
    """A FIFO named like a lesson would block a reader forever; the loader refuses it (and huge files)
    by kind and size, and so does the fingerprint: it returns, and notices when one changes."""
    from lessons.folders import MAX_LESSON_BYTES

    os.mkfifo(tmp_path / "trap.toml")
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"x" * (MAX_LESSON_BYTES + 10))
    before = fingerprint([tmp_path])  # returns: the FIFO is never opened
    huge.write_bytes(b"y" * (MAX_LESSON_BYTES + 11))
    assert fingerprint([tmp_path]) != before


def test_the_fingerprint_reads_each_lesson_file_at_its_size(tmp_path, monkeypatch):
    """Each file is read at the size its stat gave, not with a buffer the size of the largest file allowed (1 MB
    allocated for every lesson of the course at every start-up); a change within the same size still counts."""
    import builtins

    lesson = tmp_path / "a.toml"
    lesson.write_text('id = "a"\n', encoding="utf-8")
    reads = []

    class Spied:
        def __init__(self, *args, **kwargs):
            self.file = builtins.open(*args, **kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *error):
            self.file.close()

        def read(self, size=-1):
            reads.append(size)
            return self.file.read(size)

    monkeypatch.setattr("lessons.outline.open", Spied, raising=False)
    before = fingerprint([tmp_path])
    assert reads == [lesson.stat().st_size]
    lesson.write_text('id = "b"\n', encoding="utf-8")
    assert fingerprint([tmp_path]) != before


def test_the_quiz_part_gives_back_every_template_of_the_course(folders, tmp_path):
    """Saved beside the outline, a course's quiz templates read back equal, line numbers included, in the
    course's order (a seeded quiz draws from that order), each with the lesson fields a question is made of."""
    from lessons.outline import quiz_part, read_quiz, write_quiz

    course = _course(*folders)
    path = tmp_path / "cache" / "quiz.json"
    write_quiz(path, "key", quiz_part(course))
    assert read_quiz(path, "another key") is None
    read = read_quiz(path, "key")
    lessons = [lesson for lesson in course.lessons if lesson.quiz]
    assert len(lessons) > 3 and [lesson.id for lesson in read] == [lesson.id for lesson in lessons]
    for quiz_lesson, lesson in zip(read, lessons, strict=True):
        assert (quiz_lesson.path, quiz_lesson.title, quiz_lesson.summary, quiz_lesson.source, quiz_lesson.tolerance) == \
               (lesson.path, lesson.title, lesson.summary, lesson.source, lesson.tolerance)
        assert quiz_lesson.quiz == lesson.quiz
        assert [(t.line, t.snippet_line) for t in quiz_lesson.quiz] == [(t.line, t.snippet_line) for t in lesson.quiz]
    kinds = {type(param).__name__ for lesson in read for template in lesson.quiz for param in template.params}
    assert {"TensorParam", "ChoiceParam"} <= kinds  # the bundled course's kinds of parameter, all read back


def test_every_malformed_quiz_field_is_refused(folders, tmp_path):
    """Each value of a saved quiz part replaced by a wrong type: read_quiz gives None (the lessons load),
    never a wrong template."""
    from lessons.outline import quiz_part, read_quiz, write_quiz

    path = tmp_path / "quiz.json"
    write_quiz(path, "key", quiz_part(_course(*folders)))
    stored = json.loads(path.read_text(encoding="utf-8"))
    lesson = stored["lessons"][0]
    template = next(t for lesson in stored["lessons"] for t in lesson["quiz"] if t["params"] and t["hints"])
    places = [(lesson, field) for field in lesson if field != "path"] + \
             [(template, field) for field in template if field not in ("line", "snippet_line", "tolerance", "explanation")] + \
             [(template["params"][0], field) for field in template["params"][0]]
    for container, field in places:
        kept = container[field]
        container[field] = 7 if not isinstance(kept, int) or isinstance(kept, bool) else "7"
        path.write_text(json.dumps(stored), encoding="utf-8")
        assert read_quiz(path, "key") is None, field
        container[field] = kept
    path.write_text(json.dumps(stored), encoding="utf-8")
    assert read_quiz(path, "key") is not None
