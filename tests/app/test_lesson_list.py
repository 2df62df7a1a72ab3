"""The course view's lesson list lays its lessons out once per width: once at start-up, again when the width changes,
and always as a list started at that size shows them."""
import re

import pytest
from textual.content import Content
from textual.widgets import OptionList

from tutor.widgets.lesson_list import LessonPrompt


def lesson_lines(app) -> str:
    """The course view as drawn (its terminal's generated class names left out)."""
    return re.sub(r"terminal-\d+", "terminal", app.export_screenshot())


async def drawn_fresh(make_app, size) -> str:
    app = make_app(folders=("course", "broken"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        return lesson_lines(app)


async def test_start_up_wraps_each_lesson_once(make_app, monkeypatch):
    measured = []
    get_height = LessonPrompt.get_height

    def spy(content, *args, **kwargs):
        measured.append(content.plain)
        return get_height(content, *args, **kwargs)

    monkeypatch.setattr(LessonPrompt, "get_height", spy)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        listing = app.screen.query_one("#lessons")
        prompts = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert prompts and all(measured.count(prompt) == 1 for prompt in prompts)


async def test_a_new_width_lays_the_lessons_out_again_as_a_list_started_at_it(make_app):
    app = make_app(folders=("course", "broken"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for size in [(70, 30), (70, 40), (120, 24)]:  # narrower, only taller, wider
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert lesson_lines(app) == await drawn_fresh(make_app, size), size


@pytest.mark.parametrize("lang", ["en", "ja"])
async def test_an_entrys_height_is_the_number_of_lines_content_wraps_it_into(lang, data_dir):
    """Every bundled lesson's entry (English, Japanese: its own breaking units), at every width down to a few
    columns (long words folded), and entries the count leaves to Content (tabs, blank lines, a padded or truncated
    line): the height is the number of lines Content's own wrapping makes."""
    from tutor.app import TutorApp

    app = TutorApp(lang=lang, data_dir=data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        listing = app.screen.query_one("#lessons", OptionList)
        prompts = [option.prompt for option in listing.options if isinstance(option.prompt, LessonPrompt)]
        assert len(prompts) >= 20
        prompts += [LessonPrompt(text) for text in ("a\tb c\td", "title\n\nsummary", "\nlead", "end\n", "x" * 50)]
        for rules in [listing.styles, {"line_pad": 1}, {"text_overflow": "ellipsis"}, {"text_wrap": "nowrap"}]:
            for prompt in prompts:
                for width in range(4, 121):
                    expected = Content(prompt.plain, prompt.spans).get_height(rules, width)
                    assert prompt.get_height(rules, width) == expected, (prompt.plain, width, rules)
