"""Trying again after a wrong answer: the learner types straight away. A wrong answer in the whole-answer field is
selected (typing replaces it; an arrow key or End keeps it to edit), a close one is left to be made more precise,
and a grid cell marked wrong is typed over like a spreadsheet cell (Backspace still edits it)."""
from textual.widgets import Input

from tutor.widgets.answer_grid import AnswerGrid


async def open_predict_grad(pilot):
    """The fixture's `inp.grad` step: the answer is [4, 2]."""
    await pilot.press("enter")
    await pilot.app.screen.show_step(1)
    await pilot.pause()
    return pilot.app.screen


def feedback(screen) -> str:
    return " ".join(str(screen.query_one("#feedback").render()).split())


async def typed_in_the_field(pilot, answer: str):
    """The predict step open, `answer` typed in its whole-answer field and sent: (screen, field)."""
    screen = await open_predict_grad(pilot)
    whole = screen.query_one("#whole", Input)
    whole.focus()
    await pilot.press(*answer, "enter")
    await pilot.pause()
    return screen, whole


async def test_a_wrong_answer_in_the_field_is_replaced_by_what_is_typed_next(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen, whole = await typed_in_the_field(pilot, "[1, 1]")
        assert feedback(screen).startswith("Not quite") and app.focused is whole
        await pilot.press(*"[4, 2]")
        assert whole.value == "[4, 2]"
        await pilot.press("enter")
        await pilot.pause()
        assert feedback(screen).startswith("Correct")


async def test_an_arrow_key_keeps_the_wrong_answer_to_edit_and_retry_selects_it_again(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen, whole = await typed_in_the_field(pilot, "[4, 1]")
        await pilot.press("end", "backspace", "backspace", *"2]")
        assert whole.value == "[4, 2]"
        whole.value = ""
        await pilot.press(*"[0, 0]", "enter")
        await pilot.pause()
        await pilot.press("escape")  # out of the field (Esc leaves a field first), then Retry comes back to it
        await pilot.press("r")
        await pilot.pause()
        assert app.focused is whole and feedback(screen) == ""
        await pilot.press("4")
        assert whole.value == "4"


async def test_a_close_answer_is_kept_to_be_made_more_precise(data_dir, tmp_path):
    from test_app_loop_edges import MEAN_LESSON

    from tutor.app import TutorApp

    (tmp_path / "mean.toml").write_text(MEAN_LESSON, encoding="utf-8")  # x.grad is [1/3, 1/3, 1/3]
    app = TutorApp(lang="en", extra_dirs=[tmp_path], data_dir=data_dir, include_bundled=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        whole = app.screen.query_one("#whole", Input)
        whole.focus()
        await pilot.press(*"[0.33, 0.33, 0.33]", "enter")
        await pilot.pause()
        assert feedback(app.screen).startswith("Close")
        await pilot.press("backspace", *"3]")
        assert whole.value == "[0.33, 0.33, 0.333]"


async def test_a_grid_cell_marked_wrong_is_typed_over_and_a_right_one_is_kept(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_predict_grad(pilot)
        grid = screen.query_one("#grid", AnswerGrid)
        assert app.focused is grid
        await pilot.press("4", "tab", "3", "enter")
        await pilot.pause()
        assert grid.marks == [[True, False]]
        await pilot.press("2")  # the cursor is on the wrong cell: 2 replaces the 3
        assert grid.texts == [["4", "2"]]
        await pilot.press("backspace", *"25")  # once typed, the cell is edited as usual
        assert grid.texts == [["4", "25"]]
        await pilot.press("shift+tab", "0")  # the right cell is not typed over
        assert grid.texts == [["40", "25"]]
