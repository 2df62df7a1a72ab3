"""Walking the fixture lesson: read, predict (grid, text, formula), hints, skip, bool, error, choice."""
from textual.widgets import Input

from tutor.widgets.markdown_text import MarkdownText

from tutor.progress.store import ProgressStore
from tutor.screens.course import CourseScreen
from tutor.screens.lesson import LessonScreen


def text_of(app, selector) -> str:
    return str(app.screen.query_one(selector).render())


def outcomes(data_dir) -> list[tuple[str, str, str | None, int]]:
    with ProgressStore(data_dir=data_dir) as store:
        return [(a.step_id, str(a.outcome), a.answer, a.hints_used) for a in store.attempts("fixture-squares")]


async def open_step(pilot, index: int) -> LessonScreen:
    await pilot.press("enter")
    screen = pilot.app.screen
    assert isinstance(screen, LessonScreen)
    await screen.show_step(index)
    await pilot.pause()
    return screen


async def test_read_step_shows_output_and_continues(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 0)
        assert "tensor([1., 0.], requires_grad=True)" in str(screen.query_one("#snippet .output").render())
        assert "requires grad" in screen.query_one("#step-text", MarkdownText).source
        await pilot.press("enter")
        assert screen.step.id == "predict-grad"
        assert "Step 2 of 6" in text_of(app, "#progress")


async def test_predict_grid_correct_is_recorded(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        assert app.focused.id == "grid"
        await pilot.press("4", "tab", "2", "enter")
        assert "Correct!" in text_of(app, "#feedback")
        assert screen.query_one("#grid").marks == [[True, True]]
        assert "(1, 1) J = (4, 2)." in screen.query_one("#explanation", MarkdownText).source
    assert outcomes(data_dir) == [("predict-grad", "correct", "[4.0, 2.0]", 0)]


async def test_predict_grid_wrong_marks_cells_and_shows_values(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)  # x.grad = 2x for x = [[1, 2], [3, 4]]
        await pilot.press("2", "tab", "4", "tab", "5", "tab", "8", "enter")
        feedback = text_of(app, "#feedback")
        assert "Not quite." in feedback and "1 of 4 cells are wrong" in feedback
        assert "tensor([[2., 4.],\n        [6., 8.]])" in feedback
        grid = screen.query_one("#grid")
        assert grid.marks == [[True, True], [False, True]]
        shown = str(grid.render()).splitlines()
        assert [line.split() for line in shown] == [["2", "4"], ["5", "8"], ["✗", "6"]]
        # arrow keys move between cells; the cursor is where typing goes
        await pilot.press("up", "backspace", "7", "right", "right")
        assert grid.cursor == (1, 1)  # right wraps to the next row
        assert grid.texts == [["2", "7"], ["5", "8"]]
    assert outcomes(data_dir) == [("predict-matrix", "wrong", "[[2.0, 4.0], [5.0, 8.0]]", 0)]


async def test_paste_into_the_grid(make_app):
    from textual import events

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        grid = screen.query_one("#grid")
        grid.post_message(events.Paste("7/2"))
        await pilot.pause()
        assert grid.texts == [["7/2", ""]]
        grid.post_message(events.Paste("tensor([4., 2.], requires_grad=True)"))
        await pilot.pause()
        assert app.focused.id == "whole" and app.focused.value == "tensor([4., 2.], requires_grad=True)"
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")


async def test_whole_answer_text_formula_and_malformed(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        whole = screen.query_one("#whole", Input)
        whole.focus()
        await pilot.press(*"[1, 2, 3]", "enter")
        assert "Expected shape (2,), got (3,)." in text_of(app, "#feedback")
        assert outcomes(data_dir) == []  # malformed answers cost nothing
        whole.value = "inp.grad"
        await pilot.press("enter")
        assert "may use the snippet's variables but not “grad”" in text_of(app, "#feedback")
        whole.value = "2*(inp+1)"
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")
        assert screen.query_one("#grid").texts == [["4", "2"]]
        whole.value = "tensor([4.0000, 2.0001], grad_fn=<MulBackward0>)"
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")
    assert [o[:2] for o in outcomes(data_dir)] == [("predict-grad", "correct")] * 2


async def test_hints_one_at_a_time_and_skip(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        await pilot.press("escape", "e")  # explanation only after an attempt
        assert isinstance(app.screen, LessonScreen)
        await pilot.press("h")
        hints = screen.query_one("#hints", MarkdownText)
        assert hints.display and "diagonal" in hints.source and "(1, 1)" not in hints.source
        await pilot.press("h")
        assert "Multiply by the vector (1, 1)." in hints.source
        await pilot.press("h")
        assert any("No more hints." in str(n.message) for n in app._notifications)
        await pilot.press("s")
        assert "Skipped" in text_of(app, "#feedback") and "tensor([4., 2.])" in text_of(app, "#feedback")
    assert outcomes(data_dir) == [("predict-grad", "skipped", None, 2)]


async def test_bool_error_and_choice_steps(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 3)  # x.requires_grad -> True
        assert app.focused.id == "choices"
        await pilot.press("down", "enter")  # False
        assert "Not quite." in text_of(app, "#feedback") and "The answer is True" in text_of(app, "#feedback")
        await pilot.press("up", "enter")
        assert "Correct!" in text_of(app, "#feedback")
        await screen.show_step(4)  # error step: the error is hidden until answered
        await pilot.pause()
        assert "RuntimeError" not in str(screen.query_one("#snippet").query(".output") or "")
        await pilot.press("enter")
        await pilot.pause()
        assert "Correct!" in text_of(app, "#feedback")
        assert "grad can be implicitly created only for scalar outputs" in str(screen.query_one("#snippet .output").render())
        assert "needs a `gradient` argument" in screen.query_one("#explanation", MarkdownText).source
        await screen.show_step(5)
        await pilot.press("down", "enter")
        assert "Not quite." in text_of(app, "#feedback")
        assert "learning rates" in screen.query_one("#explanation", MarkdownText).source
    assert [o[:2] for o in outcomes(data_dir)] == [
        ("predict-flag", "wrong"), ("predict-flag", "correct"), ("nonscalar", "correct"), ("why-argument", "wrong")]


async def test_language_switch_and_resume(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)
        await pilot.press("f2")
        await pilot.pause()
        assert "二乗和に対する" in screen.query_one("#step-text", MarkdownText).source
        assert "ステップ 3 / 6" in text_of(app, "#progress")
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, CourseScreen)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.step.id == "predict-matrix"


async def test_open_lesson_follows_edits_of_its_file(make_app, tmp_path, fixtures_dir):
    import shutil

    folder = tmp_path / "authored"
    shutil.copytree(fixtures_dir / "course", folder)
    app = make_app(folders=(folder,))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)
        path = folder / "squares.toml"
        source = path.read_text(encoding="utf-8")
        path.write_text(source.replace("for the sum of squares", "for the sum of all squares"), encoding="utf-8")
        app.poll_lesson_files()
        await pilot.pause()
        assert "sum of all squares" in screen.query_one("#step-text", MarkdownText).source
        path.write_text(source.replace('kind = "choice"', 'kind = "chioce"'), encoding="utf-8")
        app.poll_lesson_files()
        await pilot.pause()
        assert "sum of all squares" in screen.query_one("#step-text", MarkdownText).source  # the broken edit is not shown
        assert any("squares.toml has an error" in str(n.message) and "choice" in str(n.message) for n in app._notifications)


async def test_three_dimensional_answer_is_typed_as_text(make_app, data_dir):
    app = make_app(folders=("shapes",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 0)
        assert not screen.query("#grid") and "Shape (2, 2, 3): type the whole answer" in text_of(app, ".editor-hint")
        assert app.focused.id == "whole"
        await pilot.press(*"[[3, 3, 3], [3, 3, 3]]", "enter")
        assert "Expected shape (2, 2, 3), got (2, 3)." in text_of(app, "#feedback")
        app.focused.value = "3 * torch.ones(2, 2, 3)"
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")
        await screen.show_step(1)
        assert "x.grad[0]" in text_of(app, "#prompt") and screen.query_one("#grid").shape == (2, 3)
