"""`autograd-tutor` with no subcommand opens the app with its options; themes; the command palette."""
from click.testing import CliRunner

from tutor import cli
from tutor.app import TutorApp
from tutor.screens.lesson import LessonScreen


def test_no_subcommand_opens_the_app_with_options(monkeypatch, tmp_path, fixtures_dir):
    opened = {}

    def fake_run(app):
        opened.update(lang=app.lang, extra=app.extra_dirs, data=app.data_dir, theme=app.theme)

    monkeypatch.setattr(TutorApp, "run", fake_run)
    folder = fixtures_dir / "course"
    result = CliRunner().invoke(cli.main, ["--lang", "ja", "--lessons", str(folder), "--data-dir", str(tmp_path),
                                           "--theme", "light"])
    assert result.exit_code == 0, result.output
    assert opened == {"lang": "ja", "extra": (folder,), "data": str(tmp_path), "theme": "tutor-light"}


def test_bad_options_get_clear_messages():
    result = CliRunner().invoke(cli.main, ["--lessons", "/no/such/folder"])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = CliRunner().invoke(cli.main, ["--lang", "fr"])
    assert result.exit_code == 2 and "'fr' is not one of 'en', 'ja'" in result.output


async def test_theme_toggle(make_app):
    app = make_app(theme="light")
    async with app.run_test(size=(80, 24)) as pilot:
        assert not app.current_theme.dark
        await pilot.press("f3")
        assert app.current_theme.dark


async def test_lesson_actions_are_in_the_command_palette(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen = app.screen
        await screen.show_step(1)
        titles = {command.title for command in app.get_system_commands(screen)}
        assert {"Hint", "Show answer", "Next", "Previous", "Back", "日本語", "Theme", "Help", "Quit"} <= titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Hint")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.state.hints_shown == 1


async def test_code_colours_follow_the_theme(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        code = app.screen.query_one("#snippet .code")
        dark = code.content._theme.get_background_style()
        await pilot.press("f3")
        await pilot.pause()
        assert not app.current_theme.dark and code.content._theme.get_background_style() != dark
