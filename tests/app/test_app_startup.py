"""Start-up housekeeping: the garbage collector paused while the first screen is drawn, always resumed; the first
theme applied with one parse of the stylesheets."""
import gc

import pytest
from rich.color import Color as RichColor
from rich.style import Style
from textual.color import Color
from textual.css.stylesheet import Stylesheet
from textual.filter import ANSIToTruecolor

from tutor.themes import ANSI_DARK, ANSI_LIGHT, THEMES


async def test_the_collector_resumes_after_start_up_and_when_the_app_quits_at_once(make_app, monkeypatch):
    assert gc.isenabled()
    monkeypatch.setattr("tutor.app.COLLECTOR_PAUSE_SECONDS", 0.05)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for _ in range(200):
            if gc.isenabled():
                break
            await pilot.pause(0.05)
        assert gc.isenabled()
    monkeypatch.setattr("tutor.app.COLLECTOR_PAUSE_SECONDS", 600)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not gc.isenabled()  # still drawing, as far as the app knows
    assert gc.isenabled()  # quitting resumed it


async def test_a_collector_switched_off_by_the_host_stays_off(make_app):
    gc.disable()
    try:
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("theme", ["dark", "light"])
async def test_the_first_theme_is_applied_without_parsing_the_stylesheets_again(make_app, monkeypatch, theme):
    """The stylesheet is parsed once at start-up, with the learner's theme: its colours, mode class and ANSI colours
    are those Textual's theme watcher gives (which re-parses every stylesheet, as toggling the theme does)."""
    reparsed = []
    monkeypatch.setattr(Stylesheet, "reparse", lambda self, reparse=Stylesheet.reparse: reparsed.append(1) or reparse(self))
    app = make_app(theme=theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not reparsed
        current = app.current_theme
        assert current.name == THEMES[theme].name and app.has_class(f"-{theme}-mode", f"-theme-{current.name}")
        assert not app.has_class("-light-mode" if theme == "dark" else "-dark-mode")
        assert app.screen.styles.background == Color.parse(current.background)
        assert app.screen.query_one("#lessons").styles.border_top[1] == Color.parse(current.primary)  # focused
        truecolor = next(f for f in app.get_line_filters() if isinstance(f, ANSIToTruecolor))
        green = truecolor.truecolor_style(Style(color="green"), RichColor.parse(current.background)).color
        expected = ANSI_DARK if theme == "dark" else ANSI_LIGHT
        assert green.triplet == expected.ansi_colors[2]
        app.action_toggle_theme()  # the watcher's way, for the other theme
        await pilot.pause()
        assert reparsed and app.screen.styles.background == Color.parse(app.current_theme.background)


async def test_the_course_view_is_the_first_screen_and_a_store_problem_is_still_told(make_app, data_dir):
    """No blank screen under the course view (Textual's default one cost start-up time for nothing); what the app
    says while it prepares that first screen (here: a progress file it cannot read) is shown on it."""
    from tutor.paths import database_path
    from tutor.screens.course import CourseScreen

    database_path(data_dir).parent.mkdir(parents=True, exist_ok=True)
    database_path(data_dir).mkdir()  # a folder where the progress file should be: the store cannot open
    app = make_app()
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        assert [type(screen) for screen in app.screen_stack] == [CourseScreen]
        assert app.store is None and app.screen.query_one("#lessons").option_count
        assert any("Progress is not saved" in str(toast.render()) for toast in app.screen.query("Toast"))


def test_the_course_views_records_are_not_dataclasses():
    """The outline's and the progress store's records are on the way to the first screen: a frozen dataclass compiles
    its methods from source at import (about 0.5 ms each), a NamedTuple does not. Still immutable records."""
    import dataclasses

    from lessons import outline
    from tutor.progress import model

    records = [outline.LessonEntry, outline.OutlineSection, outline.Outline, outline.QuizLesson,
               model.Attempt, model.Position, model.LessonProgress, model.Snapshot]
    assert not any(dataclasses.is_dataclass(record) for record in records)
    position = model.Position("a", "b", None)
    with pytest.raises(AttributeError):
        position.step_id = "c"


async def test_the_course_view_is_styled_once_as_it_first_appears(make_app, monkeypatch):
    """Its widgets are styled as they mount; Textual's restyling of the whole screen on its first ScreenResume is
    skipped (it changed nothing), not any later one. The first frame is styled all the same."""
    from textual import events

    from tutor.screens.course import CourseScreen

    restyled = []
    update_nodes = Stylesheet.update_nodes

    def spied(self, nodes, animate=False):
        nodes = list(nodes)
        restyled.extend(node for node in nodes if isinstance(node, CourseScreen))
        return update_nodes(self, nodes, animate)

    monkeypatch.setattr(Stylesheet, "update_nodes", spied)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert restyled == []
        lessons = app.screen.query_one("#lessons")
        assert lessons.styles.border_top[0] == "round" and lessons.has_focus
        assert lessons.styles.border_top[1] == Color.parse(app.current_theme.primary)  # :focus applied
        app.screen.post_message(events.ScreenResume())
        await pilot.pause()
        assert restyled == [app.screen]


async def test_start_up_leaves_the_dialogs_and_the_too_small_notice_for_when_they_are_shown(make_app, monkeypatch):
    """The help and confirm dialogs' styles and the too-small notice's are parsed, and the notice's module imported,
    when first shown, not with the course view's at every start-up; shown, they are styled and the notice works."""
    import sys

    from tutor.screens.confirm import ConfirmScreen
    from tutor.screens.help import HelpScreen

    monkeypatch.delitem(sys.modules, "tutor.screens.too_small", raising=False)  # (put back afterwards: tests hold its class)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()

        def parsed(name):
            return any(name in source.content for source in app.stylesheet.source.values())

        assert not any(parsed(name) for name in ("ConfirmScreen", "HelpScreen", "TooSmallScreen"))
        assert "tutor.screens.too_small" not in sys.modules
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen) and parsed("HelpScreen")
        assert app.screen.query_one("#dialog").styles.border_top[0] == "thick"
        await pilot.press("escape", "r")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.query_one("#yes").styles.background == Color.parse(app.get_css_variables()["danger-background"])
        await pilot.press("n")
        await pilot.resize_terminal(50, 12)
        await pilot.pause(0.1)
        assert type(app.screen).__name__ == "TooSmallScreen"
        assert app.screen.query_one("#too-small-message").styles.text_align == "center"
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.1)
        assert type(app.screen).__name__ == "CourseScreen"


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_theme_colours_are_generated_once_for_the_learners_theme(make_app, monkeypatch, theme):
    """Textual's App.__init__ asks for the CSS variables of its default theme, which the tutor never shows: only the
    learner's theme's colours are generated, and the stylesheet holds them."""
    from textual.design import ColorSystem

    generated = []
    generate = ColorSystem.generate
    monkeypatch.setattr(ColorSystem, "generate", lambda self: generated.append(self) or generate(self))
    app = make_app(theme=theme)
    assert len(generated) == 1
    assert Color.parse(app.stylesheet._variables["background"]) == Color.parse(THEMES[theme].background)
