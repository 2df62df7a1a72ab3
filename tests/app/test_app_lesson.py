"""Walking the fixture lesson: read, predict (grid, text, formula), hints, skip, bool, error, choice."""
from textual.widgets import Input

from tutor.progress.store import ProgressStore
from tutor.screens.course import CourseScreen
from tutor.screens.lesson import LessonScreen
from tutor.widgets.markdown_text import MarkdownText


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


async def test_predict_grid_wrong_marks_cells_hides_values_and_retries(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)  # x.grad = 2x for x = [[1, 2], [3, 4]]
        await pilot.press("2", "tab", "4", "tab", "5", "tab", "8", "enter")
        feedback = text_of(app, "#feedback")
        assert "Not quite." in feedback and "1 of 4 cells is wrong" in feedback and "Try again" in feedback
        assert "6." not in feedback and "The answer is" not in feedback  # the values stay hidden
        assert screen.query_one("#explanation", MarkdownText).source == ""
        grid = screen.query_one("#grid")
        assert grid.marks == [[True, True], [False, True]]
        assert [line.split() for line in str(grid.render()).splitlines()] == [["2", "4"], ["5", "8"]]
        await pilot.press("enter")  # the same answer again is not a new attempt
        assert "That is the answer you checked" in text_of(app, "#feedback")
        # arrow keys move between cells; editing a cell clears its mark
        await pilot.press("left", "backspace", "6")
        assert grid.cursor == (1, 0) and grid.texts == [["2", "4"], ["6", "8"]]
        assert grid.marks == [[True, True], [None, True]]
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback") and "Enter or n: next step." in text_of(app, "#feedback")
        await pilot.press("enter")  # Enter after the verdict continues; it does not grade again
        assert screen.step.id == "predict-flag"
    assert outcomes(data_dir) == [("predict-matrix", "wrong", "[[2.0, 4.0], [5.0, 8.0]]", 0),
                                  ("predict-matrix", "correct", "[[2.0, 4.0], [6.0, 8.0]]", 0)]


async def test_show_answer_after_a_wrong_try_is_recorded_as_shown(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)
        await pilot.press("2", "tab", "4", "tab", "5", "tab", "8", "enter", "e")
        assert screen.query_one("#grid").texts[1][1] == "8e"  # `e` typed (1e9 is a number), not run as explain
        await pilot.press("escape", "e")
        assert isinstance(app.screen, LessonScreen)  # no explanation before the step is over
        await pilot.press("s")
        feedback = text_of(app, "#feedback")
        assert "The answer is shown" in feedback and "tensor([[2., 4.],\n        [6., 8.]])" in feedback
        assert [line.split() for line in str(screen.query_one("#grid").render()).splitlines()][2] == ["→", "6"]
        await pilot.press("enter")
        assert screen.step.id == "predict-flag"
    assert [o[1] for o in outcomes(data_dir)] == ["wrong", "revealed"]


async def test_letters_in_a_grid_cell_go_to_the_whole_answer(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        assert app.focused.id == "grid"
        await pilot.press(*"2*(inp+1)")  # starts with a digit in the cell, then a letter moves to the field
        whole = screen.query_one("#whole", Input)
        assert app.focused is whole and whole.value == "2*(inp+1)"
        assert screen.query_one("#grid").texts == [["", ""]]
        assert screen.step.id == "predict-grad" and screen.state.hints_shown == 0
        whole.value = "tensor2/6"
        await pilot.press(*"nsrhp")
        assert whole.value == "tensor2/6nsrhp" and screen.step.id == "predict-grad"
        assert outcomes(data_dir) == []


async def test_whole_answer_printouts_close_and_case(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        whole = screen.query_one("#whole", Input)
        whole.focus()
        whole.value = "tensor([4.0000, 2.0001], grad_fn=<MulBackward0>)"
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")
        await screen.show_step(6 - 1)  # the choice step has no editor: back to a typed one
        await screen.show_step(2)
        whole = screen.query_one("#whole", Input)
        whole.value = "[[2.0, 4.0], [6.0, 8.0]]"
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")


async def test_malformed_answers_get_their_own_message_and_never_crash(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        grid = screen.query_one("#grid")
        await pilot.press(*("9" * 400), "tab", "1", "enter")
        assert "too large" in text_of(app, "#feedback")
        whole = screen.query_one("#whole", Input)
        cases = {
            "[[1,2]": "Unclosed bracket",
            "inp^2/2": "Use ** for powers",
            "[4, 2, 1]": "Expected shape (2,), got (3,).",
            "zz * 2": "“zz” is not defined in this snippet. A formula may use: inp, out, torch.",
            "1" * 5000: "too large",
            "[" * 30000: "too long",
        }
        for typed, message in cases.items():
            whole.value = typed
            whole.focus()
            await pilot.press("enter")
            assert message in text_of(app, "#feedback"), typed[:20]
        whole.value = "［４， ２］"  # full-width, as a Japanese IME types it
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")
        assert grid.texts == [["4", "2"]]
    assert [o[1] for o in outcomes(data_dir)] == ["correct"]


async def test_four_decimals_are_read_at_the_precision_typed(make_app, data_dir, tmp_path):
    from lessons.answers import Answer, compare
    from lessons.model import Tolerance
    from tutor.answer_input import read_answer

    answer = Answer("number", 4 / 3, None, Tolerance())
    for typed, correct, close in [("1.3333", True, False), ("4/3", True, False), ("1.333", False, True),
                                  ("1.3", False, True), ("1", False, False), ("1.3334", True, False),
                                  ("1.3340", False, False)]:
        reading = read_answer(typed, "number")
        verdict = compare(answer, reading.value, reading.half_unit, reading.decimals)
        assert (verdict.correct, verdict.close) == (correct, close), typed
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)
        whole = screen.query_one("#whole", Input)
        whole.focus()
        whole.value = "[[2.0, 4.0], [6.0, 8.0001]]"
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")


async def test_choices_are_shuffled_per_learner_and_wrong_choices_stay_open(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 5)  # choice step; the correct option is written first in the file
        choices = screen.query_one("#choices")
        order = [int(choices.get_option_at_index(i).id) for i in range(choices.option_count)]
        assert sorted(order) == [0, 1]
        wrong = 1
        choices.highlighted = choices.position_of(wrong)
        await pilot.press("enter")
        assert "Not quite." in text_of(app, "#feedback")
        assert "✓" not in "".join(str(choices.get_option_at_index(i).prompt) for i in range(2))
        choices.highlighted = choices.position_of(0)
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")
        assert "learning rates" in screen.query_one("#explanation", MarkdownText).source
    from tutor.practice import shuffled

    orders = {tuple(shuffled(4, f"learner-{n}:lesson:step")) for n in range(20)}
    assert len(orders) > 1 and shuffled(4, "a:b:c") == shuffled(4, "a:b:c")


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
        notices = [str(n.message) for n in app._notifications]
        assert "squares.toml:70: This lesson file has a problem; tell its author." in notices
        assert not any("chioce" in notice for notice in notices)  # what is wrong is for the author, in `check`


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


async def test_first_step_credits_the_source_in_the_learners_language(make_app):
    """The lesson's `source` is shown on its first screen only, in English or Japanese."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 0)
        credit = screen.query_one("#source")
        assert credit.display and text_of(app, "#source") == "Source: autograd-tutor test fixture"
        await pilot.press("f2")
        await pilot.pause()
        assert text_of(app, "#source") == "出典：autograd-tutor のテスト用教材"
        await screen.show_step(1)
        await pilot.pause()
        assert not credit.display


async def test_keys_queued_behind_a_letter_follow_it_to_the_whole_answer(make_app, data_dir):
    """Fast typing: keys already queued for the grid when a letter moved the answer out go after it."""
    from textual import events

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        grid = screen.query_one("#grid")
        for character in "1e9x2":  # 1e9 is a number (it stays in the cell); x starts a formula
            grid.post_message(events.Key(character, character))
        await pilot.pause()
        assert screen.query_one("#whole", Input).value == "1e9x2" and grid.texts == [["", ""]]


async def test_enter_before_choosing_answers_nothing(make_app, data_dir):
    """An Enter carried over from the previous step (or pressed before reading) records no answer."""
    from tutor.widgets.choice_list import ChoiceList

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 3)
        choices = screen.query_one(ChoiceList)
        assert app.focused is choices and choices.highlighted is None
        await pilot.press("enter")
        assert outcomes(data_dir) == [] and screen.state.verdict is None
        await pilot.press("down", "enter")
        assert len(outcomes(data_dir)) == 1


async def test_a_corrected_cell_is_graded_not_the_earlier_whole_answer(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)  # x.grad of (x * x).sum() for [[1, 2], [3, 4]]: [[2, 4], [6, 8]]
        whole = screen.query_one("#whole", Input)
        whole.focus()
        await pilot.press(*"[[2, 4], [5, 8]]", "enter")
        assert "Not quite" in text_of(app, "#feedback")
        grid = screen.query_one("#grid")
        grid.focus()
        grid.cursor = (1, 0)
        await pilot.press("backspace", "6", "enter")
        assert whole.value == "" and "Correct!" in text_of(app, "#feedback")
        assert [o[1] for o in outcomes(data_dir)] == ["wrong", "correct"]


async def test_a_list_typed_in_a_filled_cell_starts_a_whole_answer_of_its_own(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)
        await pilot.press("2", *"[[2, 4], [6, 8]]")
        assert screen.query_one("#whole", Input).value == "[[2, 4], [6, 8]]"


async def test_page_down_in_a_choice_list_scrolls_the_step_at_80x24(data_dir):
    """The options all show at once: PageDown/PageUp scroll the step (its text, the feedback under the
    verdict), which the keyboard could not reach otherwise while the list has focus."""
    from tutor.app import TutorApp
    from tutor.widgets.choice_list import ChoiceList

    app = TutorApp(lang="ja", data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("custom-function", "gradcheck-catches")  # an error step taller than 24 rows
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert isinstance(app.focused, ChoiceList) and screen.view.max_scroll_y > 0
        screen.view.scroll_home(animate=False)
        await pilot.pause()
        start = screen.view.scroll_y
        await pilot.press("pagedown")
        assert screen.view.scroll_y > start and isinstance(app.focused, ChoiceList)
        await pilot.press("pageup")
        assert screen.view.scroll_y < screen.view.max_scroll_y


async def test_an_error_step_once_answered_shows_the_error_its_cell_raised(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 4)  # `(x * 2).backward()` raises
        assert not screen.query("#snippet .output")  # the error is the question: hidden until answered
        choices = screen.query_one("#choices")
        choices.highlighted = choices.position_of(0)
        await pilot.press("enter")
        await pilot.pause()
        shown = str(screen.query_one("#snippet .output").render())
        assert "RuntimeError: grad can be implicitly created only for scalar outputs" in shown
        assert "prints nothing" not in shown


async def test_nan_and_inf_are_typed_in_a_cell(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        grid = screen.query_one("#grid")
        await pilot.press(*"nan", "tab", *"-inf")
        assert app.focused is grid and grid.texts == [["nan", "-inf"]]
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"inp")  # not a number: a formula
        assert screen.query_one("#whole", Input).value == "inp" and grid.texts == [["nan", ""]]


async def test_a_multi_line_printout_pasted_into_the_field_or_the_grid_is_read_whole(make_app, data_dir):
    from textual import events

    printout = "Parameter containing:\ntensor([[2., 4.],\n        [6., 8.]], requires_grad=True)"
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)  # x.grad = 2x for x = [[1, 2], [3, 4]]
        whole = screen.query_one("#whole", Input)
        whole.focus()
        whole.post_message(events.Paste(printout))
        await pilot.pause()
        assert "\n" not in whole.value and whole.value.endswith("requires_grad=True)")
        await pilot.press("enter")
        assert "Correct!" in text_of(app, "#feedback")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 2)
        grid = screen.query_one("#grid")
        grid.focus()
        grid.post_message(events.Paste(printout.replace("2.", "3.")))
        await pilot.pause()
        whole = screen.query_one("#whole", Input)
        assert app.focused is whole and "\n" not in whole.value
        await pilot.press("enter")
        assert "Not quite." in text_of(app, "#feedback")
