"""`autograd-tutor --open LESSON[:STEP]`: an author's preview opens the lesson at the step, Esc returns to
the course; a lesson or step that does not exist is a usage error naming what does, a broken lesson its
`check` messages — before the app starts."""
import shutil

import pytest
from click.testing import CliRunner

from tutor import cli
from tutor.app import TutorApp
from tutor.screens.course import CourseScreen
from tutor.screens.lesson import LessonScreen


@pytest.fixture
def run_cli(data_dir, monkeypatch):
    """`autograd-tutor ARGS` in-process; the app is not run, only built: returns (result, its open_at)."""
    opened = {}
    monkeypatch.setattr(TutorApp, "run", lambda app: opened.update(open_at=app.open_at))

    def invoke(*args):
        result = CliRunner().invoke(cli.main, [str(a) for a in args])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output
        return result, opened.get("open_at")

    return invoke


@pytest.mark.parametrize("target, expected", [
    ("fixture-squares", ("fixture-squares", None)),
    ("fixture-squares:predict-matrix", ("fixture-squares", "predict-matrix")),
    ("fixture-squares:3", ("fixture-squares", "predict-matrix")),  # 1-based
    ("{course}/squares.toml:nonscalar", ("fixture-squares", "nonscalar")),  # the file's path
])
def test_open_resolves_lesson_and_step(run_cli, fixtures_dir, target, expected):
    course = fixtures_dir / "course"
    result, open_at = run_cli("--lessons", course, "--open", target.format(course=course))
    assert result.exit_code == 0, result.output
    assert open_at == expected


def test_open_reaches_the_bundled_course_too(run_cli):
    from lessons.course import load_course

    last = load_course(user_dir=None).lesson("chain-rule").steps[-1]
    result, open_at = run_cli("--open", f"chain-rule:{last.id}")
    assert result.exit_code == 0 and open_at == ("chain-rule", last.id)


@pytest.mark.parametrize("target, message", [
    ("fixture-squars", "autograd-tutor: --open fixture-squars: no lesson 'fixture-squars' — did you mean "
                       "'fixture-squares'? The lessons are: fixture-squares, "),
    ("fixture-squares:predict-grd", "lesson 'fixture-squares' has no step 'predict-grd' — did you mean "
                                    "'predict-grad'? Its steps (number and id): 1 make-input, 2 predict-grad, "),
    ("fixture-squares:7", "lesson 'fixture-squares' has no step '7'. Its steps (number and id): 1 make-input"),
    ("nowhere/lesson.toml", "nowhere/lesson.toml: no such lesson file"),
])
def test_unknown_lesson_or_step_is_a_usage_error_naming_what_exists(run_cli, fixtures_dir, target, message):
    result, open_at = run_cli("--lessons", fixtures_dir / "course", "--open", target)
    assert result.exit_code == 2 and open_at is None
    assert message in result.output


def test_a_file_outside_the_course_says_which_folder_to_give(run_cli, fixtures_dir):
    result, _ = run_cli("--open", fixtures_dir / "course" / "squares.toml")
    assert result.exit_code == 2
    assert f"is not in the course: give its folder with --lessons {fixtures_dir / 'course'}" in result.output


def test_a_broken_lesson_prints_its_check_messages(run_cli, fixtures_dir, tmp_path):
    for target in ("broken-one", fixtures_dir / "broken" / "broken.toml"):
        result, open_at = run_cli("--lessons", fixtures_dir / "broken", "--open", target)
        assert result.exit_code == 1 and open_at is None
        assert "broken.toml:6: stepz: unknown key 'stepz' — did you mean 'steps'?" in result.output
        assert "broken.toml:5: concepts:" in result.output


def test_a_lesson_whose_id_is_taken_shows_the_collision(run_cli, fixtures_dir, tmp_path):
    """A second file with the same id is not in the course; `--open` by its path says why."""
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(fixtures_dir / "course" / "squares.toml", copy / "again.toml")
    result, _ = run_cli("--lessons", fixtures_dir / "course", "--lessons", copy, "--open", copy / "again.toml")
    assert result.exit_code == 1 and "again.toml:2: id: duplicate lesson id 'fixture-squares'" in result.output


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_app_opens_at_the_step_and_escape_returns_to_the_course(make_app, size):
    app = make_app(open_at=("fixture-squares", "predict-flag"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.step.id == "predict-flag"
        assert "Step 4 of 6" in str(app.screen.query_one("#progress").render())
        await pilot.press("escape", "escape")  # out of the answer field, then out of the lesson
        assert isinstance(app.screen, CourseScreen)
        assert "[in progress" in str(app.screen.query_one("#lessons").get_option("fixture-squares").prompt)


async def test_open_without_a_step_resumes_where_the_learner_was(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.save_position("fixture-squares", "nonscalar")
    app = make_app(open_at=("fixture-squares", None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.step.id == "nonscalar"
