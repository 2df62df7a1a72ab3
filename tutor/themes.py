"""The app's two themes, dark and light, and the terminal colours that go with each.

Every text the tutor draws reads at 4.5:1 or better against what is behind it (WCAG 2.1, 1.4.3):
`tests/app/test_contrast.py` measures each screen as drawn. Textual's own themes do not (light grid
cells 1.5:1, footer keys 2.9:1, placeholders 2.6:1), so the colours are chosen here, once:

- `Theme` variables for what CSS draws (`$text-muted`, `$text-disabled`, the cursor row, the footer keys,
  `$danger-background` behind a button's white text where `$error` is a colour for text);
- a `TerminalTheme` per theme for what rich renderables name (`green`, `red`, `cyan`, `yellow`, `blue`,
  `bright_black`): Textual turns those names into these colours, so a mark or a tag drawn by rich obeys
  the same floor as the CSS. `MUTED` is the one name for secondary text in rich renderables;
- `NoDim`, a line filter for "dim" (Textual blends dim text a third of the way into its background, below
  the floor): dim text in the default colour is drawn `MUTED`, dim coloured text keeps its colour. It
  covers renderables this module does not write (the explanation layer's notes, Textual's own widgets).

The cursor row is a tint of the background, not a solid primary: tags and marks keep their colour on it
and still read, in both themes.
"""
from __future__ import annotations

from functools import lru_cache

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from rich.terminal_theme import TerminalTheme
from textual.filter import LineFilter
from textual.theme import Theme

from tutor.formatting import MUTED  # noqa: F401 - the one name for secondary text, re-exported for screens


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


def _terminal(background: str, foreground: str, normal: list[str], bright: list[str]) -> TerminalTheme:
    """black, red, green, yellow, blue, magenta, cyan, white (then bright_black and the bright ones)."""
    return TerminalTheme(_rgb(background), _rgb(foreground), [_rgb(c) for c in normal], [_rgb(c) for c in bright])


DARK = Theme(
    name="tutor-dark",
    primary="#1565c0",
    secondary="#3a7cc2",
    accent="#ffa62b",
    warning="#ffa62b",
    error="#ff8596",
    success="#5fd38d",
    foreground="#e0e0e0",
    background="#121212",
    surface="#1e1e1e",
    panel="#262a2e",
    dark=True,
    variables={
        "text-muted": "#b0b0b0",
        "text-disabled": "#a0a0a0",
        "block-cursor-foreground": "#ffffff",
        "block-cursor-background": "#193856",
        "block-cursor-blurred-background": "#1b2b3b",
        "block-cursor-blurred-foreground": "#e0e0e0",
        "footer-key-foreground": "#ffb44f",
        "input-selection-background": "#193856",
        "button-color-foreground": "#ffffff",
        "danger-background": "#a3213a",
    },
)

LIGHT = Theme(
    name="tutor-light",
    primary="#004578",
    secondary="#2f6aa8",
    accent="#a35200",
    warning="#6e4c00",
    error="#a3201a",
    success="#0f6a2c",
    foreground="#1a1a1a",
    background="#f4f4f4",
    surface="#e8e8e8",
    panel="#dcdcdc",
    dark=False,
    variables={
        "text": "#1a1a1a",
        "text-muted": "#4f4f4f",
        "text-disabled": "#5a5a5a",
        "block-cursor-foreground": "#000000",
        "block-cursor-background": "#c4dcf3",
        "block-cursor-blurred-background": "#d6e4f0",
        "block-cursor-blurred-foreground": "#1a1a1a",
        "footer-key-foreground": "#004578",
        "input-selection-background": "#c4dcf3",
        "button-color-foreground": "#ffffff",
        "danger-background": "#a3201a",
    },
)

ANSI_DARK = _terminal(
    "#121212", "#e0e0e0",
    ["#1a1a1a", "#ff8596", "#5fd38d", "#e6c547", "#7aa7ff", "#d08cff", "#58d1eb", "#e0e0e0", "#b0b0b0"],
    ["#ff8fa0", "#8be0a8", "#f0d878", "#9dbcff", "#e0b0ff", "#8adff0", "#ffffff"],
)

ANSI_LIGHT = _terminal(
    "#f4f4f4", "#1a1a1a",
    ["#1a1a1a", "#a3201a", "#0f6a2c", "#6e4c00", "#1f4fa8", "#7b3a9c", "#00677f", "#f4f4f4", "#4f4f4f"],
    ["#8f1c17", "#0c5c26", "#5e4100", "#1a4290", "#6a3088", "#005a6f", "#ffffff"],
)

THEMES = {"dark": DARK, "light": LIGHT}

# Pygments styles whose every token reads at 4.5:1 on the style's own background (monokai without its
# error marks, which the code views remove), by `Theme.dark`.
CODE_THEMES = {True: "monokai", False: "xcode"}


_MUTED_COLOUR = Color.parse(MUTED)
_UNDIM = Style(dim=False)


@lru_cache(1024)
def _undimmed(style: Style) -> Style:
    colour = style.color if style.color is not None and not style.color.is_default else _MUTED_COLOUR
    return style + Style(color=colour) + _UNDIM


class NoDim(LineFilter):
    """Dim text drawn at full contrast: muted when it has no colour of its own (runs before Textual turns
    ANSI colours into the theme's RGB ones, so `MUTED` gets the theme's value)."""

    def apply(self, segments: list[Segment], background) -> list[Segment]:
        """Every line of every frame passes here: a segment that is not dim is kept as it is, not copied."""
        return [segment if segment.style is None or not segment.style.dim else
                Segment(segment.text, _undimmed(segment.style), segment.control) for segment in segments]
