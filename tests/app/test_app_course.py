"""The course view: lessons with progress, broken lessons with where they fail, filter, reset, language."""
import shutil

from textual.widgets import OptionList

from tutor.screens.confirm import ConfirmScreen
from tutor.screens.course import CourseScreen
from tutor.screens.help import HelpScreen
from tutor.screens.lesson import LessonScreen
from tutor.screens.too_small import TooSmallScreen


def prompts(app) -> list[str]:
    listing = app.screen.query_one("#lessons", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def test_lists_lessons_and_broken_ones(make_app):
    app = make_app(folders=("course", "broken"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)
        text = "\n".join(prompts(app))
        assert "Squares and their gradients" in text
        assert "[new]" in text and "6 steps" in text and "#vjp" in text
        assert "⚠ broken.toml:6\nThis lesson file has a problem; tell its author." in text
        assert "stepz" not in text and "did you mean" not in text  # the author's details are for `check`


async def test_filter_language_and_help(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash", *"nothing-like-this")
        assert "No lessons match." in prompts(app)[0]
        await pilot.press("escape")
        assert "Squares" in prompts(app)[0]
        await pilot.press("f2")
        assert app.lang == "ja"
        assert "二乗とその勾配" in prompts(app)[0] and "未着手" in prompts(app)[0]
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, CourseScreen)


async def test_open_then_reset_with_confirmation(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        assert isinstance(app.screen, LessonScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, CourseScreen)
        assert "[in progress" in prompts(app)[0]  # visiting saves a position
        await pilot.press("r")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert "[in progress" in prompts(app)[0]
        await pilot.press("r", "y")
        await pilot.pause()
        assert "[new]" in prompts(app)[0]


async def test_tiny_terminal_shows_notice_then_recovers(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.resize_terminal(30, 8)
        await pilot.pause(0.1)
        assert isinstance(app.screen, TooSmallScreen)
        assert "30×8" in str(app.screen.query_one("#too-small-message").render())
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        assert isinstance(app.screen, CourseScreen)


async def test_edited_lesson_reloads_and_broken_edit_is_shown(make_app, tmp_path, fixtures_dir):
    folder = tmp_path / "authored"
    shutil.copytree(fixtures_dir / "course", folder)
    app = make_app(folders=(folder,))
    async with app.run_test(size=(80, 24)) as pilot:
        path = folder / "squares.toml"
        path.write_text(path.read_text(encoding="utf-8").replace("Squares and their gradients", "Cubes"), encoding="utf-8")
        app.poll_lesson_files()
        await pilot.pause()
        assert "Cubes" in prompts(app)[0]
        path.write_text("format_version = 1\nid = [", encoding="utf-8")
        app.poll_lesson_files()
        await pilot.pause()
        assert any("squares.toml" in p for p in prompts(app))
        assert any("squares.toml:2: This lesson file has a problem" in str(n.message) for n in app._notifications)


async def test_japanese_double_width_text_keeps_the_layout(make_app):
    """Every row of the bordered lesson list ends in its border at the same terminal column."""
    import io

    from rich.cells import cell_len
    from rich.console import Console

    app = make_app(lang="ja")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        console = Console(width=80, height=24, file=io.StringIO(), force_terminal=True, record=True, legacy_windows=False)
        console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
        lines = console.export_text().splitlines()
    listed = [line for line in lines if line.startswith(" │")]
    assert any("二乗とその勾配" in line for line in listed)
    assert listed and all(cell_len(line.rstrip()) == 79 and line.rstrip().endswith("│") for line in listed)


async def test_every_screen_survives_tiny_terminals(make_app):
    """Shrinking to almost nothing and back, on each screen, shows the notice and never crashes."""
    from tutor.screens.reveal import RevealScreen

    app = make_app()

    async def squeeze(pilot):
        for size in ((10, 3), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.05)
        assert not isinstance(app.screen, TooSmallScreen)

    async with app.run_test(size=(80, 24)) as pilot:
        await squeeze(pilot)
        await pilot.press("enter")
        for index in (0, 2, 4):  # read (snippet output), tensor grid, choice list
            await app.screen.show_step(index)
            await squeeze(pilot)
        await app.screen.show_step(1)
        await pilot.press("4", "tab", "2", "enter", "e")  # a right answer leaves the grid
        assert isinstance(app.screen, RevealScreen)
        for tab in "126":  # answer, Jacobian tables, backprop stepper
            await pilot.press(tab)
            await squeeze(pilot)
        await pilot.press("f1")
        await squeeze(pilot)
    assert app.return_code in (None, 0)


PACK_TOML = ('name = "shapes-pack"\nversion = "1.0.0"\nauthors = ["A"]\nlanguages = ["en"]\nlicence = "MIT"\n'
             'lessons = ["cube.toml"]\ntitle = { en = "Shapes", ja = "形" }\n')


async def test_an_installed_pack_is_grouped_under_its_name_after_own_lessons(make_app, data_dir, fixtures_dir):
    """Own lessons first, then the pack under a heading; headings cannot be highlighted; progress shows."""

    pack = data_dir / "lessons" / "shapes-pack"  # where `install` puts a pack
    pack.mkdir(parents=True)
    shutil.copy(fixtures_dir / "shapes" / "cube.toml", pack)
    (pack / "pack.toml").write_text(PACK_TOML, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = prompts(app)
        assert shown[0] == "Your lessons" and shown[1].startswith("○ Squares and their gradients")
        assert shown[2] == "Pack: Shapes (shapes-pack 1.0.0)" and "A three-dimensional gradient" in shown[3]
        listing = app.screen.query_one("#lessons", OptionList)
        assert listing.highlighted_option.id == "fixture-squares"
        await pilot.press("down")
        assert listing.highlighted_option.id == "shapes-pack/fixture-cube"  # the heading is skipped
        await pilot.press("enter")
        assert isinstance(app.screen, LessonScreen) and app.screen.lesson.id == "shapes-pack/fixture-cube"
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, CourseScreen) and "[in progress" in prompts(app)[3]
        await pilot.press("f2")
        assert prompts(app)[0] == "あなたのレッスン" and prompts(app)[2] == "パック: 形（shapes-pack 1.0.0）"
        await pilot.press("slash", *"cube")
        assert prompts(app)[0] == "パック: 形（shapes-pack 1.0.0）" and len(prompts(app)) == 2


async def test_concept_tags_use_the_glossary_names_in_japanese(make_app):
    """English shows the tags (what quizzes and the filter name); Japanese shows the glossary's names."""
    from lessons.glossary import glossary

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "#jacobian" in prompts(app)[0] and "#vjp" in prompts(app)[0]
        await pilot.press("f2")
        await pilot.pause()
        prompt = prompts(app)[0]
        assert f"#{glossary()['jacobian']['ja']}" in prompt and "ベクトル・ヤコビ行列積（VJP）" in prompt
        assert "#jacobian" not in prompt and "#vjp" not in prompt
        await pilot.press("slash", *"ヤコビ行列")
        assert "二乗とその勾配" in prompts(app)[0]
