"""A paste that carries escape sequences (a coloured printout) reaches the answer field whole in a real terminal: Textual's
parser alone turned the characters after each ESC into key presses ("^", and Enter at a line end), so the answer was
graded half-pasted. `tutor.paste_guard` cleans the paste before the parser reads it, however the reads split it."""
import shutil
import sys
import time
from pathlib import Path

import pytest
from textual import events

from tutor.paste_guard import PasteCleaner, PasteCleaningParser

START, END = "\x1b[200~", "\x1b[201~"
PRINTOUT = "tensor([[4., 2.],\r        [6., 4.]])"
COLOURED = "\x1b[32mtensor\x1b[0m([[4., 2.],\r        [6., 4.]])\x1b]0;PWNED\x07\x1b[2J"
READ = f"a{START}{COLOURED}{END}\x1b[Ab"  # a key, the paste, an arrow key, a key


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64, 4096])
def test_a_paste_split_into_reads_of_any_size_is_cleaned(size):
    clean = PasteCleaner()
    out = "".join(clean(READ[i:i + size]) for i in range(0, len(READ), size))
    assert out == f"a{START}tensor([[4., 2.],\n        [6., 4.]]){END}\x1b[Ab"


def test_the_parser_sends_the_paste_whole_and_keys_as_keys():
    parser = PasteCleaningParser()
    tokens = [token for i in range(0, len(READ), 3) for token in parser.feed(READ[i:i + 3])]
    pastes = [token.text for token in tokens if isinstance(token, events.Paste)]
    keys = [token.key for token in tokens if isinstance(token, events.Key)]
    assert pastes == ["tensor([[4., 2.],\n        [6., 4.]])"]
    assert keys == ["a", "up", "b"]


def test_an_escape_key_press_is_not_held_back():
    """A lone ESC (the Escape key, or a start marker's first character) goes to the parser at once."""
    clean = PasteCleaner()
    assert clean("\x1b") == "\x1b" and clean("[A") == "[A"  # (an arrow key split between reads: as it came)
    parser = PasteCleaningParser()
    assert list(parser.feed("\x1b")) == []  # the parser's own wait for the rest of a sequence
    time.sleep(0.2)
    assert [token.key for token in parser.tick()] == ["escape"]


def test_the_parser_without_the_cleaner_breaks_the_paste():
    """Why the guard exists: Textual's own parser sends a coloured paste's text as key presses."""
    from textual._xterm_parser import XTermParser

    tokens = list(XTermParser().feed(f"{START}{COLOURED}{END}"))
    assert [token.text for token in tokens if isinstance(token, events.Paste)] != ["tensor([[4., 2.],\n        [6., 4.]])"]
    assert any(isinstance(token, events.Key) for token in tokens)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux for a real terminal")
def test_a_coloured_printout_pasted_in_a_real_terminal_is_graded_whole(tmp_path, data_dir):
    from test_real_terminal import Pane

    tutor = Path(sys.executable).with_name("autograd-tutor")
    pane = Pane(f"{tutor} --lang en --open matmul-gradients:square-self-product", tmp_path)
    try:
        pane.wait_for("Your prediction of A.grad")
        buffer = tmp_path / "paste.txt"
        buffer.write_text(COLOURED.replace("\r", "\n"))
        pane.tmux("load-buffer", str(buffer))
        pane.tmux("paste-buffer", "-p", "-t", "t")  # in bracketed paste markers: the app asked for them
        pane.wait_for("tensor([[4., 2.], [6., 4.]])")
        pane.press("Enter")
        shown = pane.wait_for("Correct!")
        assert "^[" not in shown and "**" not in shown
    finally:
        pane.close()


def _textual_without_the_parser(monkeypatch, how: str) -> None:
    """This Textual as a release that moved its private parser would be: `textual._xterm_parser` gone, or the
    driver's input thread no longer looking up `XTermParser` (the guard's module not imported yet either way)."""
    from textual.drivers import linux_driver

    if how == "module":
        monkeypatch.setitem(sys.modules, "textual._xterm_parser", None)  # (import raises ImportError)
    else:
        monkeypatch.delattr(linux_driver, "XTermParser")
    monkeypatch.delitem(sys.modules, "tutor.paste_guard")


@pytest.mark.parametrize("how", ["module", "name"])
async def test_the_app_starts_on_the_plain_driver_when_textual_moves_its_parser(monkeypatch, data_dir, how):
    from textual.drivers.linux_driver import LinuxDriver

    from tutor.app import TutorApp
    from tutor.paste_guard import PasteCleaningDriver
    from tutor.screens.course import CourseScreen

    assert TutorApp(lang="en", data_dir=data_dir).get_driver_class() is PasteCleaningDriver  # as it is today
    _textual_without_the_parser(monkeypatch, how)
    app = TutorApp(lang="en", data_dir=data_dir)
    assert app.driver_class is LinuxDriver
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux for a real terminal")
def test_the_app_starts_in_a_real_terminal_when_textual_moves_its_parser(tmp_path, data_dir):
    from test_real_terminal import Pane

    hide = tmp_path / "hide_parser.py"  # the driver imported first (it keeps its own name), then the module hidden
    hide.write_text("import sys\nimport textual.drivers.linux_driver\nsys.modules['textual._xterm_parser'] = None\n"
                    "from tutor.cli import main\nmain(['--lang', 'en', '--open', 'matmul-gradients:square-self-product'])\n")
    pane = Pane(f"{sys.executable} {hide}; sleep 30", tmp_path)
    try:
        pane.wait_for("Your prediction of A.grad")
        pane.tmux("send-keys", "-t", "t", "-l", "[[4, 2], [6, 4]]")
        pane.press("Enter")
        shown = pane.wait_for("Correct!")
        assert "Traceback" not in shown
    finally:
        pane.close()
