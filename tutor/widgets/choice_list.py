"""The answer editor for error and choice steps, True/False questions: a list of options."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.table import Table
from rich.text import Text
from textual.containers import ScrollableContainer
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tutor.untrusted import text


class _Choice:
    """An option's mark and label side by side, so a long label wraps under itself, not under the mark."""

    def __init__(self, mark: Text, label: Text) -> None:
        self.mark, self.label = mark, label

    def __rich_console__(self, console, options):
        grid = Table.grid(padding=(0, 1))
        grid.add_column(width=1)
        grid.add_column(ratio=1)
        grid.add_row(self.mark, self.label)
        yield grid

    def __str__(self) -> str:
        return f"{self.mark.plain} {self.label.plain}"


# Each mark on its own background, so it reads on the highlighted (blue) row as on a plain one.
MARK_STYLES = {"✓": "bold #ffffff on #2e7d32", "✗": "bold #ffffff on #c62828"}


class ChoiceList(OptionList):
    """Options (shown in any order; `ids` are the step's own indices) marked after a check:
    ✓ the correct one (once the step is over), ✗ each wrong one chosen."""

    def __init__(self, labels: list[Text | str], ids: Sequence[int] | None = None, **kwargs) -> None:
        self._labels = [text(label) for label in labels]  # a lesson's options and error names: cleaned
        self._ids = list(ids) if ids is not None else list(range(len(labels)))
        super().__init__(*self._build({}), **kwargs)
        self.highlighted = None  # nothing chosen yet: an Enter carried over from the last step answers nothing

    def _build(self, marks: dict[int, str]) -> list[Option]:
        options = []
        for option_id, label in zip(self._ids, self._labels):
            mark = marks.get(option_id, " ")
            style = MARK_STYLES.get(mark, "")
            options.append(Option(_Choice(Text.assemble((mark, style)), label), id=str(option_id)))
        return options

    def mark(self, correct: int | None, wrong: int | Iterable[int] | None = None) -> None:
        """Mark the right option (by id) and the learner's wrong choices."""
        marks = {}
        if wrong is not None:
            for chosen in ([wrong] if isinstance(wrong, int) else wrong):
                marks[chosen] = "✗"
        if correct is not None:
            marks[correct] = "✓"
        highlighted = self.highlighted
        self.set_options(self._build(marks))
        self.highlighted = highlighted

    def action_page_down(self) -> None:
        """The few options all show at once, so PageDown scrolls what holds them (the step's text and the
        feedback under the verdict) instead: at 80x24 that is the only way the keyboard reaches it."""
        self._scroll_container("scroll_page_down")

    def action_page_up(self) -> None:
        self._scroll_container("scroll_page_up")

    def _scroll_container(self, method: str) -> None:
        container = next((node for node in self.ancestors if isinstance(node, ScrollableContainer)), None)
        if container is not None:
            getattr(container, method)(animate=False)

    def position_of(self, option_id: int) -> int:
        """Where the option with the step's index `option_id` is shown."""
        return self._ids.index(option_id)
