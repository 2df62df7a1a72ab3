"""The course view's lesson list lays its lessons out once per width: once at start-up, again when the width changes,
and always as a list started at that size shows them."""
import re

from textual.content import Content


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
    get_height = Content.get_height

    def spy(content, *args, **kwargs):
        measured.append(content.plain)
        return get_height(content, *args, **kwargs)

    monkeypatch.setattr(Content, "get_height", spy)
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
