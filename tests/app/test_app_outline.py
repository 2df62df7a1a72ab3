"""Start-up from the saved outline: a second start lists the same course before loading any lesson, the
lessons load just after (or at once when one is opened), and a changed file is never listed stale."""
import json
import shutil

import pytest
from textual.widgets import OptionList

from tutor.screens.course import CourseScreen
from tutor.screens.lesson import LessonScreen


def prompts(app) -> list[str]:
    listing = app.screen.query_one("#lessons", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


@pytest.fixture
def authored(tmp_path, fixtures_dir):
    folder = tmp_path / "authored"
    shutil.copytree(fixtures_dir / "course", folder)
    shutil.copytree(fixtures_dir / "broken", tmp_path / "broken")
    return folder


@pytest.fixture
def held(monkeypatch):
    """The lessons load only when something needs them, so a test sees the outline's course view."""
    monkeypatch.setattr("tutor.app.COURSE_LOAD_SECONDS", 600)


async def first_start(make_app, folders) -> list[str]:
    app = make_app(folders=folders)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        return prompts(app)


async def test_a_second_start_lists_the_course_from_its_outline(make_app, authored, held, data_dir):
    folders = (authored, authored.parent / "broken")
    listed = await first_start(make_app, folders)
    assert (data_dir / "cache" / "outline.json").is_file()
    app = make_app(folders=folders)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen) and app._course is None
        assert prompts(app) == listed and any("broken.toml:6" in prompt for prompt in listed)
        await pilot.press("enter")  # opening a lesson loads the lessons at once
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app._course is not None


async def test_the_lessons_load_by_themselves_just_after_start_up(make_app, authored, monkeypatch):
    await first_start(make_app, (authored,))
    monkeypatch.setattr("tutor.app.COURSE_LOAD_SECONDS", 0.05)
    app = make_app(folders=(authored,))
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            if app._course is not None:
                break
            await pilot.pause(0.05)
        assert app._course is not None and [lesson.id for lesson in app._course.lessons] == ["fixture-squares"]


async def test_an_edited_lesson_is_never_listed_from_a_stale_outline(make_app, authored, held):
    await first_start(make_app, (authored,))
    path = authored / "squares.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("Squares and their gradients", "Cubes"), encoding="utf-8")
    app = make_app(folders=(authored,))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "Cubes" in prompts(app)[0] and app._course is not None  # no outline matched: loaded at once


async def test_an_outline_that_disagrees_with_the_lessons_is_corrected_when_they_load(make_app, authored, held, data_dir):
    """Should a saved outline ever differ from what the lessons say (a file changed while the app
    started), the course view shows the lessons' truth as soon as they load, and the file is rewritten."""
    await first_start(make_app, (authored,))
    saved = data_dir / "cache" / "outline.json"
    stored = json.loads(saved.read_text(encoding="utf-8"))
    stored["outline"]["sections"][0]["lessons"][0]["title"] = ["Not this title", None]
    saved.write_text(json.dumps(stored), encoding="utf-8")
    app = make_app(folders=(authored,))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "Not this title" in prompts(app)[0]
        app._ensure_course()
        await pilot.pause()
        assert "Squares and their gradients" in prompts(app)[0]
    assert "Not this title" not in saved.read_text(encoding="utf-8")


async def test_a_damaged_outline_file_only_costs_speed(make_app, authored, held, data_dir):
    listed = await first_start(make_app, (authored,))
    (data_dir / "cache" / "outline.json").write_bytes(b"\x00{ not json")
    app = make_app(folders=(authored,))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert prompts(app) == listed and app._course is not None
    from lessons.outline import VERSION

    assert json.loads((data_dir / "cache" / "outline.json").read_text(encoding="utf-8"))["version"] == VERSION


def test_the_polling_waits_for_the_first_load(make_app, authored):
    """Before the lessons have loaded there is nothing to compare a file with: the poll leaves it to the load."""
    app = make_app(folders=(authored,))
    app.poll_lesson_files()
    assert app._course is None and app._lesson_files == {}



async def test_a_course_restricted_to_the_bundled_lessons_is_not_saved(make_app, authored, data_dir):
    """Without an OS sandbox the app hides other lessons once its worker says so; the next start still
    lists the whole course first (and hides them again), so its outline stays the whole course's."""
    app = make_app(folders=(authored,))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app._restrict_to_bundled("no sandbox in this test")
        await pilot.pause()
        assert app.outline.sections == ()  # the fixture course has no bundled lessons
    assert "fixture-squares" in (data_dir / "cache" / "outline.json").read_text(encoding="utf-8")


async def test_a_worker_thread_asking_for_the_course_has_it_loaded_on_the_app_thread(make_app, authored, held, monkeypatch):
    """The Class screen's report runs in a thread: the first load (store, screens) must still happen on
    the app's thread."""
    import threading

    from tutor.app import TutorApp

    await first_start(make_app, (authored,))
    loaded_on = []
    real = TutorApp._load_course
    monkeypatch.setattr(TutorApp, "_load_course", lambda self: loaded_on.append(threading.current_thread()) or real(self))
    app = make_app(folders=(authored,))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app._course is None
        found = []
        worker = threading.Thread(target=lambda: found.append(app.course))
        worker.start()
        while worker.is_alive():
            await pilot.pause(0.01)
        assert found[0] is app._course and [lesson.id for lesson in found[0].lessons] == ["fixture-squares"]
        assert loaded_on == [threading.main_thread()]
