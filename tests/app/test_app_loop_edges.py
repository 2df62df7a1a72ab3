"""The learner's loop at its edges: the last step, a finished lesson, the filter's single match, the
dialog's arrow keys, read steps in the progress marks."""
import numpy as np
from textual.widgets import Button

from tutor.progress.store import ProgressStore
from tutor.screens.confirm import ConfirmScreen
from tutor.screens.course import CourseScreen
from tutor.screens.lesson import LessonScreen

GRADED = ("predict-grad", "predict-matrix", "predict-flag", "nonscalar", "why-argument")


def finish_squares(data_dir) -> None:
    with ProgressStore(data_dir=data_dir) as store:
        for step_id in GRADED:
            store.record_attempt(lesson_id="fixture-squares", step_id=step_id, concepts=(), answer=None,
                                 outcome="correct")
        store.save_position("fixture-squares", "why-argument")


def marks(app) -> str:
    return str(app.screen.query_one("#progress").render()).split("  ", 1)[1]


async def test_the_last_step_says_what_enter_does_and_a_finished_lesson_returns_to_the_course(make_app, data_dir):
    finish_squares(data_dir)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, LessonScreen)
        await screen.show_step(5)
        await pilot.press("1", "enter")  # any option: the step is over either way after it is answered
        await pilot.pause()
        feedback = str(screen.query_one("#feedback").render())
        if "Enter" in feedback:
            assert "last step" in feedback and "next step" not in feedback
        await screen.action_next()
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)
        assert any("Lesson complete: Squares and their gradients." in str(n.message) for n in app._notifications)


async def test_resume_after_a_finished_lesson_opens_the_next_one(make_app, data_dir):
    finish_squares(data_dir)
    app = make_app(folders=("course", "shapes"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.lesson.id == "fixture-cube"


async def test_enter_in_the_filter_opens_its_single_match(make_app):
    app = make_app(folders=("course", "shapes"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash", *"cube", "enter")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.lesson.id == "fixture-cube"
    app = make_app(folders=("course", "shapes"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash", "enter")  # no filter: several lessons, the list takes over
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen) and app.focused.id == "lessons"


async def test_arrow_keys_move_between_yes_and_no(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.focused.id == "no"
        await pilot.press("left")
        assert isinstance(app.focused, Button) and app.focused.id == "yes"
        await pilot.press("right")
        assert app.focused.id == "no"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)


async def test_a_read_step_fills_its_mark_once_read(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert marks(app).startswith("●○")  # the read step being read
        await pilot.press("enter")
        await pilot.pause()
        assert marks(app).startswith("●○") and app.screen.index == 1


async def test_a_read_step_opened_past_is_not_marked_read(make_app, data_dir):
    """`--open fixture-squares:3` (or resuming there) skips the read step: its mark stays empty, even once a later step
    is answered, until the learner goes back to it; a step answered in an earlier session was reached past it."""
    app = make_app(open_at=("fixture-squares", "predict-matrix"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.index == 2
        assert marks(app).startswith("○○")
        await pilot.press("escape", "s")  # answered (the answer shown) here: the read step was still skipped
        await pilot.pause()
        assert marks(app).startswith("○○●")
        await pilot.press("p", "escape", "p")  # Esc: out of the answer field
        await pilot.pause()
        assert app.screen.index == 0 and marks(app).startswith("●○")
    with ProgressStore(data_dir=data_dir) as store:
        store.save_position("fixture-squares", "predict-matrix")
        store.record_attempt(lesson_id="fixture-squares", step_id="predict-grad", concepts=(), answer=None,
                             outcome="correct")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # resume: at predict-matrix, past an answered step
        await pilot.pause()
        assert app.screen.index == 2 and marks(app).startswith("●●●○")  # read, answered, shown


MEAN_LESSON = '''format_version = 1
id = "fixture-mean"
title = { en = "A mean", ja = "平均" }
summary = { en = "Thirds.", ja = "3 分の 1。" }
concepts = ["vjp"]

[[steps]]
id = "predict-mean"
kind = "predict"
text = { en = "Predict `x.grad`.", ja = "`x.grad` を予想してください。" }
snippet = """
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
x.mean().backward()
"""
expression = "x.grad"
'''


async def test_a_close_answer_says_what_counts_as_right(data_dir, tmp_path):
    """Thirds typed to two decimals are close, not right, and the verdict says which tolerance makes an answer
    right (the one `compare` applies: the authored atol at the answer's scale)."""
    from lessons.model import DEFAULT_TOLERANCE
    from lessons.values import scaled_atol
    from tutor.app import TutorApp

    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "mean.toml").write_text(MEAN_LESSON, encoding="utf-8")
    app = TutorApp(lang="en", extra_dirs=[folder], data_dir=data_dir, include_bundled=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        whole = app.screen.query_one("#whole")
        whole.focus()
        await pilot.press(*"[0.33, 0.33, 0.33]", "enter")
        await pilot.pause()
        feedback = " ".join(str(app.screen.query_one("#feedback").render()).split())
        atol = scaled_atol(np.array([1 / 3]), DEFAULT_TOLERANCE.atol)
        assert atol < DEFAULT_TOLERANCE.atol
        assert feedback.startswith("Close")
        assert f"within {atol:.2g} + {DEFAULT_TOLERANCE.rtol:.2g} × |answer|" in feedback, feedback
        assert app.screen.state.verdict == "close" and not app.screen.state.attempted  # close is no attempt
        await pilot.press("f2")
        await pilot.pause()
        feedback = " ".join(str(app.screen.query_one("#feedback").render()).split())
        assert "惜しい" in feedback and f"{atol:.2g} + {DEFAULT_TOLERANCE.rtol:.2g} × |答え|" in feedback, feedback
