"""The Stats screen: accuracy per concept, what is due when, streaks and accuracy over time.

Numbers come from `tutor.progress.stats` (lessons and quizzes together: a concept is one FSRS
card whichever way it was practised); this screen lays them out and draws the picture.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, tzinfo
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from tutor.i18n import t
from tutor.widgets.accuracy_plot import AccuracyPlot
from tutor.widgets.due_label import due_label
from tutor.widgets.footer import TutorFooter

BAR_WIDTH = 10


def accuracy_bar(accuracy: float | None) -> Text:
    """`███████░░░  70%`, green from 80 %, yellow from 50 %, red below; a dash without attempts."""
    if accuracy is None:
        return Text("—", style="dim")
    filled = round(accuracy * BAR_WIDTH)
    style = "green" if accuracy >= 0.8 else "yellow" if accuracy >= 0.5 else "red"
    return Text.assemble(("█" * filled, style), ("░" * (BAR_WIDTH - filled), "dim"), f" {accuracy:4.0%}")


class StatsScreen(Screen[None]):
    """Opened with F5 or from a quiz summary; Esc returns. `now`/`tz` are fixed in tests."""

    CSS_PATH = Path(__file__).parent.parent / "styles" / "stats.tcss"
    BINDINGS = [Binding("escape", "back", "back")]

    def __init__(self, *, now: Callable[[], datetime] | None = None, tz: tzinfo | None = None) -> None:
        super().__init__()
        from tutor.progress.model import utc_now

        self.now = now or utc_now
        self.tz = tz

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-body"):
            yield Static(id="stats-summary")
            yield DataTable(id="stats-table", cursor_type="row", zebra_stripes=True)
            yield AccuracyPlot(id="stats-plot")
        yield TutorFooter()

    def on_mount(self) -> None:
        self.apply_language()

    def on_screen_resume(self) -> None:
        self.apply_language()

    def apply_language(self) -> None:
        """Read the store afresh and redraw everything in the current language."""
        from tutor.progress.scheduler import ConceptScheduler
        from tutor.progress.stats import accuracy_over_time, concept_stats, streak

        lang = self.app.lang
        self.sub_title = t("stats_title", lang)
        now = self.now()
        store = self.app.store
        attempts = self.app._progress(lambda s: s.attempts(), [])
        concepts = self.app._progress(lambda s: concept_stats(ConceptScheduler(s, now=self.now), now), [])
        summary = self.query_one("#stats-summary", Static)
        table = self.query_one("#stats-table", DataTable)
        plot = self.query_one("#stats-plot", AccuracyPlot)
        table.display = plot.display = bool(attempts)
        summary.set_class(not attempts, "-empty")
        if store is None or not attempts:
            summary.update(t("stats_empty", lang))
            return
        run = streak(attempts, now.astimezone(self.tz).date(), self.tz)
        correct = sum(str(a.outcome) == "correct" for a in attempts)
        summary.update(Text.assemble(
            (t("stats_streak", lang, current=run.current, longest=run.longest), "bold"),
            "   ",
            t("stats_overall", lang, attempts=len(attempts), accuracy=f"{correct / len(attempts):.0%}"),
        ))
        table.clear(columns=True)
        for key in ("col_concept", "col_attempts", "col_accuracy", "col_next_review"):
            table.add_column(t(key, lang), key=key)
        for item in concepts:
            table.add_row(item.concept, str(item.attempts), accuracy_bar(item.accuracy),
                          due_label(item.due, now, lang), key=item.concept)
        plot.show(accuracy_over_time(attempts, self.tz), lang)

    def action_back(self) -> None:
        self.dismiss()
