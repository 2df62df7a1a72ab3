"""The learner's loop around the step: own output per cell, per-step concepts, honest "lesson complete",
Esc that asks, Ctrl+Q from every screen, settings that persist, help that says how to answer, and
the focused editor and the verdict in view at 80x24."""
from textual.widgets import Input

from tutor.progress.store import ProgressStore
from tutor.screens.course import CourseScreen
from tutor.screens.lesson import LessonScreen


def text_of(app, selector) -> str:
    return str(app.screen.query_one(selector).render())


async def open_step(pilot, index: int) -> LessonScreen:
    await pilot.press("enter")
    screen = pilot.app.screen
    await screen.show_step(index)
    await pilot.pause()
    return screen


async def test_a_continuing_cell_shows_its_own_output_and_the_earlier_one_apart(data_dir):
    from tutor.app import TutorApp

    app = TutorApp(lang="en", data_dir=data_dir)
    async with app.run_test(size=(100, 40)) as pilot:
        app.open_lesson("chain-rule", "compare-formula")  # print(x.grad) after a cell that printed z
        await pilot.pause()
        screen = app.screen
        own = text_of(app, "#snippet .output")
        assert own.startswith("tensor([[0.1008") and "-1.1008" not in own
        earlier = text_of(app, "#snippet .earlier-output")
        assert earlier.startswith("printed by the earlier cells:") and "DivBackward0" in earlier
        await screen.show_step(0)
        assert not screen.query("#snippet .earlier-output")


async def test_steps_record_their_own_concepts(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_step(pilot, 1)
        await pilot.press("4", "tab", "2", "enter")
        await pilot.app.screen.show_step(2)
        await pilot.press("2", "tab", "4", "tab", "6", "tab", "8", "enter")
    with ProgressStore(data_dir=data_dir) as store:
        concepts = {a.step_id: a.concepts for a in store.attempts("fixture-squares")}
    assert concepts == {"predict-grad": ("vjp",), "predict-matrix": ("jacobian", "vjp")}


async def test_lesson_complete_only_when_every_step_is_solved(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_step(pilot, 5)
        await pilot.press("escape", "n")
        messages = [str(n.message) for n in app._notifications]
        assert not any("Lesson complete" in m for m in messages)
        assert any("not solved yet" in m for m in messages)


async def test_esc_asks_before_dropping_typed_work_and_a_quiz(make_app):
    from tutor.screens.confirm import ConfirmScreen

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_step(pilot, 1)
        await pilot.press("4", "escape", "escape")  # leave the grid, then the lesson: asks
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert app.screen is screen and screen.query_one("#grid").texts == [["4", ""]]
        await pilot.press("escape")
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)
        app.open_quiz(seed=1, count=2)
        await pilot.pause()
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, ConfirmScreen) and "2 questions left" in text_of(app, "#question")
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)


async def test_ctrl_q_quits_from_dialogs_help_and_the_palette(make_app):
    for keys in (["f1"], ["r"], ["ctrl+p"]):
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press(*keys)
            await pilot.pause()
            assert type(app.screen).__name__ != "CourseScreen", keys
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert app._exit_renderables is not None or not app.is_running, keys


async def test_language_and_theme_are_remembered(make_app, data_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2", "f3")
        await pilot.pause()
    from tutor.app import TutorApp

    again = TutorApp(data_dir=data_dir, include_bundled=False)
    assert again.lang == "ja" and again.theme == "tutor-light"
    assert (data_dir / "config.json").is_file()
    assert TutorApp(lang="en", data_dir=data_dir, include_bundled=False).lang == "en"  # --lang still wins


async def test_help_explains_how_to_answer(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_step(pilot, 1)
        await pilot.press("escape", "f1")
        await pilot.pause()
        help_text = text_of(app, "#help-answering")
        assert "Grid" in help_text and "tensor([...])" in help_text and "x**2/2" in help_text and "4 decimals" in help_text


async def test_80x24_footer_and_the_editor_and_verdict_in_view(data_dir):
    from tutor.app import TutorApp

    app = TutorApp(lang="en", data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        lesson = next(l for l in app.course.lessons
                      if any(getattr(s, "expression", "") and "eye" in (s.snippet or "") for s in l.steps))
        index = next(i for i, s in enumerate(lesson.steps) if "eye" in (s.snippet or "") and s.kind == "predict")
        app.open_lesson(lesson.id, lesson.steps[index].id)
        await pilot.pause()
        await pilot.pause()
        screen, view = app.screen, app.screen.view
        editor = app.focused
        assert editor.id in ("grid", "whole")
        assert view.scroll_y <= editor.virtual_region.y < view.scroll_y + view.scrollable_content_region.height
        whole = screen.query_one("#whole", Input)
        whole.value = "0"
        whole.focus()
        await pilot.press("enter")
        await pilot.pause()
        feedback = screen.query_one("#feedback")

        def verdict_in_view() -> bool:  # on screen, scroll offsets are whole cells
            region, top = feedback.virtual_region, round(view.scroll_y)
            return region.y >= top and region.bottom <= top + view.scrollable_content_region.height

        for _ in range(100):  # layout and scrolling settle over a few refreshes (slower on a loaded machine)
            if verdict_in_view() and not view.is_scrolling:
                break
            await pilot.pause(0.05)
        assert verdict_in_view(), (feedback.virtual_region, view.scroll_y)
        assert "Hint" not in text_of(app, "TutorFooter")  # letters type while an editor has focus
        await pilot.press("escape")
        await pilot.pause()
        footer = text_of(app, "TutorFooter")
        assert len(footer) <= 80 and "Quit" in footer and "Help" in footer and "Show answer" in footer and "Hint" in footer


async def test_help_in_japanese_has_no_english_key_descriptions(data_dir):
    """Textual's own keys (Tab, arrows, PageUp…) are worded from the catalogue too; none stays English."""
    from tutor.app import TutorApp

    app = TutorApp(lang="ja", data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        from tutor.i18n import t

        table = " ".join(t(description, "ja") for _key, description in app.screen.bindings)
        assert "次の欄へ" in table and "開く" in table
        assert not any(word in table for word in ("Focus", "Copy", "Page", "Scroll", "Up", "Down", "Select"))
