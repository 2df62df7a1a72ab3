"""The course view's list of lessons: an `OptionList` that lays its lessons out once per width.

`OptionList` forgets every option's wrapped lines and rendered strips on each `Resize`. The first one reaches
the list after the first frame was already rendered at that very width (the frame is drawn as the screen lays
out; the event is handled after it), so every lesson's title, summary and concepts were wrapped and rendered
twice before the course view first appeared: about 6 ms of the tutor's start-up. Here a `Resize` keeps them
when every line the list holds was laid out at the width it has now; any other width clears them as before.
"""
from __future__ import annotations

from textual import events
from textual.widgets import OptionList


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
