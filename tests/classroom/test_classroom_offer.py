"""What `serve` gives the class: the teacher's installed packs and --lessons folders (or just --only ones), told at
start with every file that cannot be loaded; recorded in class.json; the same course in every student's tutor."""
import json
import re
import shutil

import pytest
from class_data import COURSE
from click.testing import CliRunner

from tutor.classroom.offer import OfferError, make_offer
from tutor.classroom.server import ClassroomServer
from tutor.cli import main

PACK_TOML = ('name = "{name}"\nversion = "1.0.0"\nauthors = ["A"]\nlanguages = ["en"]\nlicence = "MIT"\n'
             'lessons = ["squares.toml"]\n')


def make_pack(folder, name="intro"):
    folder.mkdir(parents=True)
    shutil.copy(COURSE / "squares.toml", folder / "squares.toml")
    (folder / "pack.toml").write_text(PACK_TOML.format(name=name), encoding="utf-8")
    return folder


@pytest.fixture
def teacher(tmp_path):
    """The teacher's data folder with the pack `intro` installed, and a folder of their own lessons."""
    data = tmp_path / "data"
    make_pack(data / "lessons" / "intro")
    extra = tmp_path / "extra"
    extra.mkdir()
    text = (COURSE / "squares.toml").read_text(encoding="utf-8").replace('id = "fixture-squares"', 'id = "other"')
    (extra / "other.toml").write_text(text, encoding="utf-8")
    return data, extra


def test_installed_packs_and_lesson_folders_are_served_with_the_bundled_course(teacher):
    data, extra = teacher
    offer = make_offer(data / "lessons", [extra])
    assert offer.bundled and offer.broken == []
    assert [(s.pack, s.installed, s.lessons) for s in offer.sources] == [("intro", True, 1), (None, False, 1)]
    ids = {lesson.id for lesson in offer.course.lessons}
    assert {"intro/fixture-squares", "other"} <= ids and offer.bundled_lessons() == len(ids) - 2 > 0
    settings = offer.settings()
    assert settings["bundled"] and settings["lessons"] == [str((data / "lessons" / "intro").resolve()), str(extra.resolve())]
    assert offer.environment()["AUTOGRAD_TUTOR_CLASS_BUNDLED"] == "1"


def test_only_serves_just_those(teacher):
    data, extra = teacher
    offer = make_offer(data / "lessons", [], ["intro", str(extra)])
    assert not offer.bundled and offer.bundled_lessons() == 0
    assert sorted(lesson.id for lesson in offer.course.lessons) == ["intro/fixture-squares", "other"]
    assert offer.environment()["AUTOGRAD_TUTOR_CLASS_BUNDLED"] == "0"
    with pytest.raises(OfferError, match=r"'nope' is neither a folder nor an installed pack \(installed packs: intro\)"):
        make_offer(data / "lessons", [], ["nope"])


@pytest.mark.parametrize("given", ["src/intro", "src"])  # the pack's folder, or a folder of the author's packs
def test_a_source_folder_shadows_the_installed_copy_of_its_pack(teacher, tmp_path, given):
    """The same rule as the app's and `check`'s (`lessons.course.shadow_of`)."""
    data, _extra = teacher
    source = make_pack(tmp_path / "src" / "intro")
    offer = make_offer(data / "lessons", [tmp_path / given])
    assert offer.broken == []  # not "duplicate lesson id"
    assert offer.shadowed == ((data / "lessons" / "intro").resolve(),)
    (lesson,) = [lesson for lesson in offer.course.lessons if lesson.id == "intro/fixture-squares"]
    assert lesson.path.parent == source.resolve()


def test_serve_says_what_it_serves_and_refuses_a_broken_file(teacher, monkeypatch, tmp_path):
    data, extra = teacher
    started = []
    monkeypatch.setattr(ClassroomServer, "serve", lambda self: started.append(self))
    (extra / "broken.toml").write_text('format_version = 1\nid = "broken"\ntitle = { en = "unclosed }\n',
                                       encoding="utf-8")
    arguments = ["--data-dir", str(data), "--lang", "en", "serve", "--class-dir", str(tmp_path / "class"),
                 "--lessons", str(extra)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 1 and not started
    assert "Pack intro (installed): 1 lesson, from" in result.output
    assert f"Folder {extra.resolve()}: 1 lesson\n" in result.output
    assert re.search(r"The bundled course: \d\d+ lessons", result.output)
    assert "1 lesson file cannot be loaded; students would not get it:" in result.output
    assert f"{extra / 'broken.toml'}:3" in result.output and "--allow-broken" in result.output
    result = CliRunner().invoke(main, [*arguments, "--allow-broken", "--only", "intro"])
    assert result.exit_code == 0, result.output
    assert "bundled course" not in result.output
    (server,) = started
    assert not server.offer.bundled and len(server.offer.course.lessons) == 2
    result = CliRunner().invoke(main, ["--data-dir", str(data), "--lang", "ja", "serve", "--only", "missing"])
    assert result.exit_code == 2 and "installed packs: intro" in result.output


async def test_class_json_records_the_course_and_tutors_load_just_it(teacher, tmp_path):
    from aiohttp.test_utils import TestClient, TestServer

    from tutor.classroom.report import build_report
    from tutor.classroom.student_app import make_app

    data, _extra = teacher
    offer = make_offer(data / "lessons", [], ["intro"])
    server = ClassroomServer(tmp_path / "class", offer=offer, lang="en", command="true")
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    await client.close()
    settings = json.loads((tmp_path / "class" / "class.json").read_text(encoding="utf-8"))
    assert settings["bundled"] is False and settings["sources"][0]["pack"] == "intro"
    assert build_report(tmp_path / "class").students == [] and server.offer is offer
    app = make_app({"AUTOGRAD_TUTOR_DATA_DIR": str(tmp_path / "class" / "students" / "ann"), **offer.environment()})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert [lesson.id for lesson in app.course.lessons] == ["intro/fixture-squares"]


SLIPS = {  # the four common TOML slips of issue #26, each in a lesson file of a served folder: (text, line)
    "unclosed.toml": ('format_version = 1\nid = "a"\nsummary = "one sentence\n', 3),
    "comma.toml": ('format_version = 1\nid = "b"\nconcepts = [\n  "chain-rule"\n  "mean"\n]\n', 4),  # (the item missing its comma)
    "twice.toml": ('format_version = 1\nid = "c"\nid = "d"\n', 3),
    "curly.toml": ('format_version = 1\nid = “e”\n', 2),
}
FIXES = {
    "en": {"unclosed.toml": 'end it with "', "comma.toml": "write `,` after it",
           "twice.toml": "`id` is given a value twice", "curly.toml": 'write a straight " instead'},
    "ja": {"unclosed.toml": '行の中で " を書いて閉じてください', "comma.toml": "`,` を書いてください",
           "twice.toml": "`id` に値が 2 回書かれています", "curly.toml": '半角の " に書き換えてください'},
}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_serve_names_each_toml_slip_with_file_line_and_the_fix(tmp_path, lang):
    """`serve` refuses a folder with the four common slips, naming each file:line and its fix in the teacher's
    language (as `check` does)."""
    folder = tmp_path / "lessons"
    folder.mkdir()
    for name, (text, _line) in SLIPS.items():
        (folder / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path / "data"), "--lang", lang, "serve", "--class-dir",
                                       str(tmp_path / "class"), "--only", str(folder)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    for name, (_text, line) in SLIPS.items():
        (said,) = [text for text in lines if f"{folder / name}:{line}:" in text]
        assert FIXES[lang][name] in said, said
