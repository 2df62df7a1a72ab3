"""The Stats screen: accuracy per concept, what is due when, streaks and accuracy over time.

Numbers come from `tutor.progress.stats` (lessons and quizzes together: a concept is one FSRS
card whichever way it was practised); this screen lays them out and draws the picture. It is
composed from the store each time it is shown or the language changes.
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

from lessons.glossary import concept_label
from tutor.formatting import accuracy_bar
from tutor.i18n import t
from tutor.untrusted import text
from tutor.widgets.accuracy_plot import AccuracyPlot
from tutor.widgets.due_label import due_label
from tutor.widgets.footer import TutorFooter


class StatsScreen(Screen[None]):
    """Opened with F5 or from a quiz summary; Esc returns. `now`/`tz` are fixed in tests."""

    CSS_PATH = Path(__file__).parent.parent / "styles" / "stats.tcss"
    BINDINGS = [Binding("escape", "back", "back")]

    def __init__(self, *, now: Callable[[], datetime] | None = None, tz: tzinfo | None = None) -> None:
        super().__init__()
        from tutor.progress.model import utc_now

        self.now = now or utc_now
        self.tz = tz
        self._shown = False

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-body"):
            yield from self._content(self.app.lang)
        yield TutorFooter()

    def _content(self, lang: str):
        from tutor.progress.model import Outcome
        from tutor.progress.scheduler import ConceptScheduler
        from tutor.progress.stats import accuracy_over_time, concept_stats, streak

        now = self.now()
        attempts = self.app.with_store(lambda store: store.attempts(), [])
        if not attempts:
            yield Static(t("stats_empty", lang), id="stats-summary", classes="-empty")
            return
        concepts = self.app.with_store(lambda store: concept_stats(ConceptScheduler(store, now=self.now), now), [])
        run = streak(attempts, now.astimezone(self.tz).date(), self.tz)
        correct = sum(attempt.outcome == Outcome.CORRECT for attempt in attempts)
        yield Static(Text.assemble(
            (t("stats_streak", lang, current=run.current, longest=run.longest), "bold"),
            "   ",
            t("stats_overall", lang, attempts=len(attempts), accuracy=f"{correct / len(attempts):.0%}"),
        ), id="stats-summary")
        table = DataTable(id="stats-table", cursor_type="row", zebra_stripes=True)
        for key in ("col_concept", "col_attempts", "col_accuracy", "col_next_review"):
            table.add_column(t(key, lang), key=key)
        for item in concepts:
            table.add_row(text(concept_label(item.concept, lang)), str(item.attempts), accuracy_bar(item.accuracy),
                          due_label(item.due, now, lang), key=item.concept)
        yield table
        yield AccuracyPlot(accuracy_over_time(attempts, self.tz), lang, id="stats-plot")
        yield from _misconceptions(attempts, self.app.outline, lang)

    def on_mount(self) -> None:
        self.sub_title = t("stats_title", self.app.lang)

    async def on_screen_resume(self) -> None:
        """Coming back (from a quiz, say): read the store again."""
        if self._shown:
            await self.recompose()
        self._shown = True

    def apply_language(self) -> None:
        self.sub_title = t("stats_title", self.app.lang)
        self.call_later(self.recompose)

    def action_back(self) -> None:
        self.dismiss()


def _misconceptions(attempts, outline, lang: str):
    """What the diagnoses of the learner's wrong predictions found (branch diagnosis, #28), if any."""
    from lessons.misconceptions import CATALOGUE
    from tutor.progress.stats import misconception_stats

    rows = misconception_stats(attempts)
    if not rows:
        return
    lines = [Text(""), Text(t("stats_misconceptions", lang), style="bold")]  # a blank line below the plot
    for row in rows:
        entry = CATALOGUE.get(row.misconception)
        name = (entry.name.get(lang) or entry.name["en"]) if entry else row.misconception
        lines.append(text(t("stats_misconception_row", lang, name=name, count=row.count,
                            place=_place(outline, row.last_lesson, row.last_step, lang))))
    yield Static(Text("\n").join(lines), id="stats-misconceptions")


def _place(outline, lesson_id: str, step_id: str, lang: str) -> str:
    """A step as the learner knows it: its lesson's title and its number (from the course view's outline, so the
    lessons need not load); ids only for a lesson no longer in the course."""
    from tutor.progress.model import QUIZ_LESSON

    if lesson_id == QUIZ_LESSON:
        return t("stats_place_quiz", lang)
    entries = (entry for section in (outline.sections if outline else ()) for entry in section.lessons)
    entry = next((entry for entry in entries if entry.id == lesson_id), None)
    if entry is None:
        return f"{lesson_id}:{step_id}"
    number = next((number for number, step in enumerate(entry.steps, start=1) if step.id == step_id), None)
    title = entry.title.get(lang)
    return t("stats_place", lang, title=title, number=number) if number else title
