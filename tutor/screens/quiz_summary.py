"""The end of a quiz: how each concept went and when the scheduler brings it back."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from lessons.glossary import concept_label
from tutor.i18n import t
from tutor.themes import MUTED
from tutor.untrusted import text
from tutor.widgets.due_label import due_label
from tutor.widgets.footer import TutorFooter


class QuizSummaryScreen(Screen[None]):
    """Replaces the quiz screen when the last question is answered; Esc returns to the course."""

    CSS_PATH = Path(__file__).parent.parent / "styles" / "quiz.tcss"
    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("n", "quiz_again", "quiz_again"),
        Binding("t", "stats", "stats"),
    ]

    def __init__(self, summary, *, count: int, now: Callable[[], datetime]) -> None:
        super().__init__()
        self.summary = summary
        self.count = count
        self.now = now

    def compose(self) -> ComposeResult:
        lang = self.app.lang
        total = self.summary.total
        yield Header()
        with VerticalScroll(id="summary-body"):
            yield Static(Text.assemble(
                (t("quiz_summary_title", lang) + ": ", "bold"),
                t("quiz_total", lang, correct=total.correct, wrong=total.wrong, revealed=total.revealed, asked=total.asked),
            ), id="summary-total")
            table = DataTable(id="summary-table", cursor_type="row", zebra_stripes=True)
            for key in ("col_concept", "col_correct", "col_wrong", "col_revealed", "col_next_review"):
                table.add_column(t(key, lang), key=key)
            now = self.now()
            for concept, tally in sorted(self.summary.concepts.items()):
                table.add_row(
                    text(concept_label(concept, lang)),
                    Text.assemble((str(tally.correct), "green" if tally.correct else MUTED)),
                    Text.assemble((str(tally.wrong), "red" if tally.wrong else MUTED)),
                    Text.assemble((str(tally.revealed), "yellow" if tally.revealed else MUTED)),
                    due_label(self.summary.next_due.get(concept), now, lang),
                    key=concept,
                )
            yield table
        yield TutorFooter()

    def on_mount(self) -> None:
        self.sub_title = t("quiz_summary_title", self.app.lang)
        self.query_one("#summary-table").focus()

    def apply_language(self) -> None:
        self.sub_title = t("quiz_summary_title", self.app.lang)
        self.call_later(self.recompose)

    def action_back(self) -> None:
        self.dismiss()

    def action_quiz_again(self) -> None:
        app = self.app
        self.dismiss()
        app.call_later(lambda: app.open_quiz(count=self.count, now=self.now))

    def action_stats(self) -> None:
        self.app.open_stats(now=self.now, replace=True)
