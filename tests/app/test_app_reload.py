"""Reloading a lesson file while a learner is in it (issue 16, item 6): the position is kept by step id,
a renamed lesson keeps its progress, a deleted lesson returns to the course, a broken file is listed
with its line and reachable by keyboard, and learners never see the author's details."""
import io
import shutil

import pytest
from rich.console import Console
from textual.widgets import OptionList

from tutor.app import TutorApp
from tutor.progress.store import ProgressStore
from tutor.screens.course import BROKEN, CourseScreen
from tutor.screens.help import HelpScreen
from tutor.screens.lesson import LessonScreen

INSERTED = '[[steps]]\nid = "inserted"\nkind = "read"\ntext = "A step added above."\n\n'


@pytest.fixture
def authored(tmp_path, fixtures_dir):
    """A copy of the fixture lesson that the tests edit, as an author would."""
    folder = tmp_path / "authored"
    shutil.copytree(fixtures_dir / "course", folder)
    return folder / "squares.toml"


def edit(path, old: str, new: str) -> None:
    source = path.read_text(encoding="utf-8")
    assert source.count(old) == 1, old
    path.write_text(source.replace(old, new), encoding="utf-8")


async def reload(app, pilot) -> None:
    app.poll_lesson_files()
    await pilot.pause()
    await pilot.pause()


async def open_step(app, pilot, index: int) -> LessonScreen:
    await pilot.press("enter")
    screen = app.screen
    assert isinstance(screen, LessonScreen)
    await screen.show_step(index)
    await pilot.pause()
    return screen


def notices(app) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


def screen_text(app, width: int, height: int) -> str:
    """What the terminal shows now."""
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def test_a_step_inserted_above_does_not_move_the_learner_nor_lose_their_typing(make_app, authored):
    app = make_app(folders=(authored.parent,))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(app, pilot, 2)  # predict-matrix, a 2x2 grid
        await pilot.press("7")  # typed, not checked yet
        edit(authored, '[[steps]]\nid = "make-input"', INSERTED + '[[steps]]\nid = "make-input"')
        await reload(app, pilot)
        assert (screen.index, screen.step.id) == (3, "predict-matrix")
        assert screen.query_one("#grid").texts[0][0] == "7"
        assert "Step 4 of 7" in str(screen.query_one("#progress").render())
        assert not any("no longer in the lesson" in notice for notice in notices(app))


async def test_a_deleted_step_leaves_the_learner_on_the_next_one_with_a_notice(make_app, authored):
    app = make_app(folders=(authored.parent,))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(app, pilot, 2)
        source = authored.read_text(encoding="utf-8")
        start = source.index('[[steps]]\nid = "predict-matrix"')
        end = source.index('[[steps]]\nid = "predict-flag"')
        authored.write_text(source[:start] + source[end:], encoding="utf-8")
        await reload(app, pilot)
        assert (screen.index, screen.step.id) == (2, "predict-flag")
        assert "The step you were on is no longer in the lesson; this is the next one." in notices(app)
        # the last step deleted: the new last one
        await screen.show_step(4)
        source = authored.read_text(encoding="utf-8")
        authored.write_text(source[:source.index('[[steps]]\nid = "why-argument"')], encoding="utf-8")
        await reload(app, pilot)
        assert screen.step.id == "nonscalar"
        assert "The step you were on is no longer in the lesson; this is its last step." in notices(app)


async def test_a_renamed_lesson_keeps_the_learner_and_their_progress(make_app, authored, data_dir):
    app = make_app(folders=(authored.parent,))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(app, pilot, 1)
        await pilot.press("4", "tab", "2", "enter")  # right: recorded under fixture-squares
        await screen.show_step(2)
        edit(authored, 'id = "fixture-squares"', 'id = "fixture-renamed"')
        await reload(app, pilot)
        assert app.screen is screen and screen.lesson.id == "fixture-renamed" and screen.step.id == "predict-matrix"
        assert ("squares.toml: the lesson's id changed from fixture-squares to fixture-renamed; "
                "your progress moved with it.") in notices(app)
        await pilot.press("escape", "escape")  # out of the grid, then out of the lesson
        listing = app.screen.query_one("#lessons", OptionList)
        assert "[in progress 1/5]" in str(listing.get_option("fixture-renamed").prompt)
    with ProgressStore(data_dir=data_dir) as store:  # the SQLite file itself
        assert [a.step_id for a in store.attempts("fixture-renamed")] == ["predict-grad"]
        assert store.attempts("fixture-squares") == [] and store.position("fixture-squares") is None
        assert store.position("fixture-renamed") == "predict-matrix"


async def test_a_rename_through_a_broken_edit_still_carries_the_progress(make_app, authored, data_dir):
    app = make_app(folders=(authored.parent,))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_step(app, pilot, 1)
        await pilot.press("4", "tab", "2", "enter")
        edit(authored, 'id = "fixture-squares"', 'id = "Fixture Renamed"')  # invalid for a moment
        await reload(app, pilot)
        assert app.screen.lesson.id == "fixture-squares"  # the old version stays on show
        edit(authored, 'id = "Fixture Renamed"', 'id = "fixture-renamed"')
        await reload(app, pilot)
        assert app.screen.lesson.id == "fixture-renamed"
    with ProgressStore(data_dir=data_dir) as store:
        assert [a.step_id for a in store.attempts("fixture-renamed")] == ["predict-grad"]


async def test_a_deleted_open_lesson_returns_to_the_course_with_a_notice(make_app, authored):
    app = make_app(folders=(authored.parent,))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_step(app, pilot, 2)
        await pilot.press("f1")  # help over the lesson: both close
        assert isinstance(app.screen, HelpScreen)
        authored.unlink()
        await reload(app, pilot)
        assert isinstance(app.screen, CourseScreen)
        assert "“Squares and their gradients” is no longer in the course." in notices(app)
        assert "No lessons match." in str(app.screen.query_one("#lessons", OptionList).get_option_at_index(0).prompt)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_a_file_broken_by_a_reload_is_listed_with_its_line_and_reachable_by_keyboard(data_dir, authored, size):
    """With the whole bundled course above it, the broken file is still one End away, on screen."""
    app = TutorApp(lang="en", extra_dirs=[authored.parent], data_dir=data_dir)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        edit(authored, 'kind = "choice"', 'kind = "chioce"')
        await reload(app, pilot)
        listing = app.screen.query_one("#lessons", OptionList)
        assert listing.has_focus
        await pilot.press("end")
        await pilot.pause()
        assert listing.highlighted_option.id.startswith(BROKEN)
        shown = screen_text(app, *size)
        assert "⚠ squares.toml:70" in shown and "This lesson file has a problem; tell its author." in shown
        assert "chioce" not in shown and "did you mean" not in shown
        await pilot.press("enter")
        assert isinstance(app.screen, CourseScreen)
        assert notices(app).count("squares.toml:70: This lesson file has a problem; tell its author.") == 2
        await pilot.press("f2")
        await pilot.pause()
        assert "このレッスンファイルには問題があります。作者に知らせてください。" in screen_text(app, *size)


@pytest.mark.parametrize("lang, message", [
    ("en", "This step has a problem in its lesson file (squares.toml:28); tell its author."),
    ("ja", "このステップはレッスンファイル（squares.toml:28）に問題があります。作者に知らせてください。"),
])
async def test_a_step_whose_answer_fails_tells_the_learner_whom_to_tell(make_app, authored, lang, message):
    edit(authored, 'expression = "inp.grad"', 'expression = "inp.gradd"')
    app = make_app(lang=lang, folders=(authored.parent,))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(app, pilot, 1)
        feedback = str(screen.query_one("#feedback").render())
        assert message in feedback.replace("\n", " ").replace("  ", " ") or message in feedback.replace("\n", "")
        assert "gradd" not in feedback and "AttributeError" not in feedback
