"""The course view's list of lessons: an `OptionList` that lays its lessons out once per width, and its entries,
whose height is counted from where their lines break.

`OptionList` forgets every option's wrapped lines and rendered strips on each `Resize`. The first one reaches
the list after the first frame was already rendered at that very width (the frame is drawn as the screen lays
out; the event is handled after it), so every lesson's title, summary and concepts were wrapped and rendered
twice before the course view first appeared: about 6 ms of the tutor's start-up. Here a `Resize` keeps them
when every line the list holds was laid out at the width it has now; any other width clears them as before.
"""
from __future__ import annotations

from rich._wrap import divide_line
from textual import events
from textual.content import Content
from textual.visual import RulesMap
from textual.widgets import OptionList


class LessonPrompt(Content):
    """A lesson's entry in the list: its title line, summary and concepts, wrapped. `OptionList` asks every entry
    its height before the first frame (the scroll bar needs them all; a screen shows a third of the bundled course),
    and `Content.get_height` formats each line in full to count them (divides its spans, truncates, pads): about 1%
    of the tutor's start-up for the bundled course's 22 lessons. Here the lines are counted where they break, with
    the `divide_line` that Content's own wrapping breaks them with (the Japanese units included: tutor.widgets.
    japanese_wrap). Text or rules this count does not cover (tabs, blank lines, padded lines, other overflow or
    wrapping) are measured by Content's own."""

    def get_height(self, rules: RulesMap, width: int) -> int:
        plain = self.plain
        if (rules.get("line_pad", 0) or rules.get("text_overflow", "fold") != "fold"
                or rules.get("text_wrap", "wrap") != "wrap"
                or "\t" in plain or "\n\n" in plain or plain.startswith("\n") or plain.endswith("\n")):
            return super().get_height(rules, width)
        return sum(len(divide_line(line, width, fold=True)) + 1 for line in plain.split("\n"))


class LessonList(OptionList):
    """An `OptionList` whose `Resize` clears the laid-out lines only when the width they were laid out at changed."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._laid_out_at: set[int] = set()  # the widths lines were laid out at since OptionList last cleared them

    def _update_lines(self) -> None:
        """OptionList lays out any option not laid out yet here, at the current width (its rendering of an option
        follows this in `render_lines`, at the same width)."""
        super()._update_lines()
        if self.scrollable_content_region:
            self._laid_out_at.add(self.scrollable_content_region.width)

    def _on_resize(self, event: events.Resize) -> None:
        if self._laid_out_at == {self.scrollable_content_region.width}:
            event.prevent_default()  # OptionList's own handler would clear them
        else:
            self._laid_out_at = set()
