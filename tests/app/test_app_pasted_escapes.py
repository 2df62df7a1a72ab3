"""Text pasted from a terminal brings escape sequences along — colour codes of a printout, bracketed paste's
markers from a terminal that does not strip them, a hyperlink, CR LF line ends. They are removed at the
boundary (`tutor.untrusted.typed`), so the pasted tensor is read, in the field, the grid and the parser."""
import numpy as np
import pytest
from textual import events
from textual.widgets import Input

from tutor.answer_input import read_answer, read_cell
from tutor.untrusted import typed

PRINTOUT = "tensor([[2., 4.],\n        [6., 8.]], requires_grad=True)"
PASTES = {
    "bracketed paste markers": f"\x1b[200~{PRINTOUT}\x1b[201~",
    "colour codes": "\x1b[32mtensor\x1b[0m([[\x1b[1m2.\x1b[0m, 4.],\n        [6., 8.]], requires_grad=True)",
    "CR LF line ends": PRINTOUT.replace("\n", "\r\n"),
    "Parameter printout in colour": f"\x1b[1mParameter containing:\x1b[0m\r\n{PRINTOUT}",
    "a hyperlink around it": f"\x1b]8;;https://example.com\x07{PRINTOUT}\x1b]8;;\x07",
    "8-bit CSI and stray controls": f"\x9b32m{PRINTOUT}\x00\x7f\x1b",
}


@pytest.mark.parametrize("pasted", PASTES.values(), ids=PASTES.keys())
def test_a_pasted_printout_with_escapes_is_read(pasted):
    np.testing.assert_array_equal(read_answer(pasted, "tensor", (2, 2)).value, [[2, 4], [6, 8]])


def test_typed_removes_sequences_whole_and_keeps_what_was_meant():
    assert typed("\x1b[31m-1.5\x1b[0m") == "-1.5"  # not "[31m-1.5[0m" (an unclosed bracket)
    assert typed("a\r\nb\rc\td") == "a\nb\nc\td"
    assert typed("x\u202ey") == "xy"  # a bidi override reorders what the learner sees
    assert read_cell("\x1b[1m7/6\x1b[0m")[0] == pytest.approx(7 / 6)


async def _open_matrix_step(pilot):
    await pilot.press("enter")
    screen = pilot.app.screen
    await screen.show_step(2)  # x.grad = 2x for x = [[1, 2], [3, 4]]
    await pilot.pause()
    return screen


@pytest.mark.parametrize("name", ["bracketed paste markers", "colour codes", "Parameter printout in colour"])
async def test_pasting_into_the_field_reads_the_tensor(make_app, name):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_matrix_step(pilot)
        whole = screen.query_one("#whole", Input)
        whole.focus()
        whole.post_message(events.Paste(PASTES[name]))
        await pilot.pause()
        assert "\x1b" not in whole.value and "\n" not in whole.value and whole.value.endswith("requires_grad=True)")
        await pilot.press("enter")
        assert screen.view.state.verdict == "correct"


async def test_pasting_into_the_grid_reads_the_tensor(make_app):
    app = make_app(lang="ja")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_matrix_step(pilot)
        grid = screen.query_one("#grid")
        grid.focus()
        grid.post_message(events.Paste(PASTES["colour codes"]))
        await pilot.pause()
        whole = screen.query_one("#whole", Input)
        assert app.focused is whole and "\x1b" not in whole.value
        await pilot.press("enter")
        assert screen.view.state.verdict == "correct"


@pytest.mark.parametrize("into", ["#whole", "#grid"])
async def test_a_long_paste_shows_its_end_and_its_shape_is_checked(make_app, into):
    """10,000 characters pasted: the field shows where the cursor is (the end of the paste), not its beginning
    with the cursor out of view; Enter says at once which shape was typed."""
    app = make_app()
    text = "[" + ", ".join(["0.1234"] * 1250) + "]"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_matrix_step(pilot)
        target = screen.query_one(into)
        target.focus()
        target.post_message(events.Paste(text))
        await pilot.pause()
        whole = screen.query_one("#whole", Input)
        assert app.focused is whole and whole.value == text and whole.cursor_position == len(text)
        assert whole.max_scroll_x > 9_000 and whole.scroll_x == whole.max_scroll_x
        await pilot.press("enter")
        await pilot.pause()
        assert "Expected shape (2, 2), got (1250,)" in str(screen.query_one("#feedback").render())
