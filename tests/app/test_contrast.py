"""Every text the tutor draws reads at 4.5:1 or better against what is behind it (WCAG 2.1 1.4.3), its marks at
3:1, in every theme the app offers: each main screen is driven with the pilot, exported as Textual draws it and
measured character by character (`contrast.py`). A dialog is measured inside its frame: what it veils is meant
to recede."""
from datetime import datetime, timedelta, timezone

import pytest
from contrast import foregrounds, low_contrast, ratio

from tutor.themes import THEMES

SIZE = (80, 24)
NOW = datetime(2025, 5, 1, 12, 0, tzinfo=timezone.utc)


async def course(pilot):
    await pilot.pause()


async def open_step(pilot, index):
    await pilot.press("enter")
    await pilot.app.screen.show_step(index)
    await pilot.pause()


async def first_step(pilot):  # the credit line, a read step's code and its output
    await pilot.press("enter")
    await pilot.pause()


async def wrong_answer(pilot):  # the grid with right and wrong cells under the cursor, the verdict
    await open_step(pilot, 2)
    await pilot.press("2", "tab", "4", "tab", "5", "tab", "8", "enter")
    await pilot.pause()


async def wrong_choice(pilot):  # a choice marked wrong, the hint line
    await open_step(pilot, 5)
    await pilot.press("tab", "enter", "h")
    await pilot.pause()


async def error_step(pilot):  # a program that raises: its error in the output
    await open_step(pilot, 4)


async def shown_answer(pilot):  # the answer shown in the grid, the revealed verdict
    await wrong_answer(pilot)
    await pilot.press("escape", "s")
    await pilot.pause()


async def help_dialog(pilot):
    await pilot.press("f1")
    await pilot.pause()


async def confirm_dialog(pilot):  # leaving with typed work asks first
    await open_step(pilot, 2)
    await pilot.press("3", "escape", "escape")
    await pilot.pause()


async def stats(pilot):
    from tutor.screens.stats import StatsScreen

    await pilot.app.push_screen(StatsScreen(now=lambda: NOW, tz=timezone.utc))
    await pilot.pause()


async def quiz(pilot):  # a question answered wrongly, once the quiz screen has computed it (a worker of its own)
    for _ in range(100):
        await pilot.pause()
        if getattr(pilot.app.screen, "question", None) is not None:
            break
        await pilot.app.workers.wait_for_complete()
    await pilot.press("1", "enter")
    await pilot.pause()


async def class_view(pilot):
    from tutor.screens.class_screen import ClassScreen

    for _ in range(200):
        await pilot.pause(0.05)
        if isinstance(pilot.app.screen, ClassScreen) and pilot.app.screen.report is not None:
            return


VIEWS = {"course": course, "first-step": first_step, "wrong-answer": wrong_answer, "wrong-choice": wrong_choice,
         "error-step": error_step, "shown-answer": shown_answer, "help": help_dialog, "confirm": confirm_dialog,
         "stats": stats, "quiz": quiz, "class": class_view}


def record_history(data_dir) -> None:
    """Quiz answers on three concepts, right, wrong and shown, for the Stats screen."""
    from tutor.progress import Outcome, ProgressStore
    from tutor.progress.scheduler import ConceptScheduler

    with ProgressStore(data_dir=data_dir) as store:
        scheduler = ConceptScheduler(store, now=lambda: NOW - timedelta(hours=1), enable_fuzzing=False)
        for index, (concept, outcome) in enumerate([("vjp", Outcome.CORRECT), ("matmul", Outcome.WRONG),
                                                    ("broadcasting", Outcome.REVEALED)]):
            scheduler.record(lesson_id="quiz", step_id=f"t#{index}", concepts=(concept,), answer="[1]", outcome=outcome)


def make_class(path):
    """A class of two on the fixture lesson: one right first time, one stuck."""
    from tutor.classroom.folder import ClassFolder
    from tutor.progress import ProgressStore

    folder = ClassFolder(path)
    for name, outcome in (("Alice", "correct"), ("Bob", "wrong")):
        with ProgressStore(folder.student(name, create=True).database) as store:
            for minute in range(3):
                store.record_attempt(lesson_id="fixture-squares", step_id="predict-flag", concepts=["vjp"], answer="1",
                                     outcome=outcome, at=NOW + timedelta(minutes=minute))
    return folder.path


def app_for(view, make_app, data_dir, tmp_path, **options):
    if view == "stats":
        record_history(data_dir)
    if view == "quiz":
        options.update(start="quiz", quiz_seed=1, quiz_count=3)
    app = make_app(**options)
    if view == "class":
        app.class_dir, app.start = make_class(tmp_path / "class"), "class"
    return app


def lows_on_screen(app) -> list:
    """The runs below the floor on the screen now; on a dialog, inside its frame only."""
    dialog = app.screen.query("#dialog")
    region = dialog.first().region if dialog else None
    return low_contrast(app.export_screenshot(), None if region is None else tuple(region))


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("view", list(VIEWS))
async def test_every_text_reads_at_4_5_to_1(view, theme, make_app, data_dir, tmp_path):
    app = app_for(view, make_app, data_dir, tmp_path, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await VIEWS[view](pilot)
        assert app.current_theme.name == THEMES[theme].name
        assert app.screen.query("*")  # something is drawn (a view that failed to open would pass vacuously)
        low = lows_on_screen(app)
    assert not low, "\n".join(map(str, low))


@pytest.mark.parametrize("theme", list(THEMES))
async def test_the_highlighted_row_of_the_class_keeps_a_struggling_student_s_red(theme, make_app, data_dir, tmp_path):
    """The cursor on the first row (the student who needs help most) keeps the red of their name and of the step
    they failed most, readable at 4.5:1 on the highlight, in the students' table focused or not."""
    app = app_for("class", make_app, data_dir, tmp_path, theme=theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await class_view(pilot)
        red = "#{:02x}{:02x}{:02x}".format(*app.ansi_theme.ansi_colors[1])
        for focused in (False, True):
            svg = app.export_screenshot()
            students = app.screen.query_one("#class-students")
            assert students.cursor_row == 0 and students.has_focus is focused
            top = students.region.y + 1  # the first row, under the headings
            assert (top, red) in foregrounds(svg, "Bob"), foregrounds(svg, "Bob")
            assert (top, red) in foregrounds(svg, "3× fixtu"), foregrounds(svg, "3× fixtu")
            assert not low_contrast(svg), "\n".join(map(str, low_contrast(svg)))
            await pilot.press("tab")
            await pilot.pause()


@pytest.mark.parametrize("theme", list(THEMES))
async def test_every_tab_of_the_explanation_in_japanese(theme, make_app):
    """The explanation's tabs (Jacobian, VJP, chain rule, graph, backprop: the explanation layer's own styles)."""
    app = make_app(lang="ja", theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await wrong_answer(pilot)
        await pilot.press("escape", "s", "e")
        await pilot.app.workers.wait_for_complete()
        tabs = [pane.id for pane in app.screen.query("TabPane")]
        assert len(tabs) >= 5
        for number in range(1, len(tabs) + 1):
            await pilot.press(str(number))
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            low = lows_on_screen(app)
            assert not low, f"tab {number}:\n" + "\n".join(map(str, low))


async def test_the_theme_switched_while_a_step_is_shown(make_app):
    """F3 redraws what was drawn for the other theme (highlighted code, lesson text) in the new one."""
    app = make_app(lang="ja", theme="dark")
    async with app.run_test(size=SIZE) as pilot:
        await wrong_answer(pilot)
        await pilot.press("escape", "f3")
        await pilot.pause()
        assert not app.current_theme.dark
        low = lows_on_screen(app)
    assert not low, "\n".join(map(str, low))


def test_the_measure_is_wcag():
    """The ratio of WCAG 2.1's examples, and a screen with one low run found, the same run in a dialog's
    frame only when it is inside it."""
    assert ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic just-below-AA grey
    svg = ('.terminal-1-r1 { fill: #777777 }\n.terminal-1-r2 { fill: #000000 }\n'
           '<rect fill="#ffffff" x="0" y="1.5" width="976" height="24.65" shape-rendering="crispEdges"/>'
           '<text class="terminal-1-r1" x="12.2" y="20" textLength="24.4" clip-path="url(#terminal-1-line-0)">ok</text>'
           '<text class="terminal-1-r2" x="61" y="20" textLength="24.4" clip-path="url(#terminal-1-line-0)">ja</text>')
    assert [(low.column, low.text) for low in low_contrast(svg)] == [(1, "ok")]
    assert low_contrast(svg, (4, 0, 10, 1)) == []
    assert low_contrast(svg.replace("#777777", "#767676")) == []  # 4.54:1 passes
