"""The Class screen, for the teacher's own terminal: who is stuck where, the hardest steps, accuracy per lesson.

`autograd-tutor class view --class-dir DIR` opens it (or "Class" in the command palette of an app
opened that way). Numbers come from `tutor.classroom.report` (read-only on every student's database)
on the course the class was served (class.json, loaded once: `app.class_course`, not the app's own
course), and are read again every few seconds while students work, off the UI thread. Students who
need help come first.
"""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static
from textual_plotext import PlotextPlot

from tutor.formatting import accuracy_bar
from tutor.i18n import t
from tutor.themes import MUTED
from tutor.untrusted import plain, text
from tutor.widgets.footer import TutorFooter

REFRESH_SECONDS = 5.0
LABEL_WIDTH = 22  # lesson titles on the plot's axis


def short(text: str, width: int = LABEL_WIDTH) -> str:
    from rich.cells import cell_len

    if cell_len(text) <= width:
        return text
    while cell_len(text + "…") > width:
        text = text[:-1]
    return text + "…"


def _axis_label(row, lang: str) -> str:
    """The lesson's title, or its id where the title has wide (CJK) characters: plotext lays out one
    cell per character, so a Japanese title would push the bars out of line."""
    from rich.cells import cell_len

    title = plain(row.title.get(lang) or row.lesson_id)  # plotext draws it with ANSI codes: cleaned first
    return short(title if cell_len(title) == len(title) else row.lesson_id)


class ClassScreen(Screen[None]):
    CSS_PATH = Path(__file__).parent.parent / "styles" / "class.tcss"
    BINDINGS = [Binding("escape", "back", "back"), Binding("r", "refresh", "refresh")]

    def __init__(self, class_dir) -> None:
        super().__init__()
        self.class_dir = Path(class_dir)
        self.report = None
        self.course = None  # the class's course (class.json), resolved on mount

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="class-body"):
            yield Static("", id="class-summary")
            yield Static("", id="class-students-title", classes="class-heading")
            yield DataTable(id="class-students", cursor_type="row", zebra_stripes=True)
            yield Static("", id="class-steps-title", classes="class-heading")
            yield DataTable(id="class-steps", cursor_type="row", zebra_stripes=True)
            yield PlotextPlot(id="class-plot")
        yield TutorFooter()

    def on_mount(self) -> None:
        from tutor.classroom.folder import ClassFolder
        from tutor.classroom.report import class_course

        self.course = getattr(self.app, "class_course", None) or class_course(ClassFolder(self.class_dir))
        self.sub_title = t("class_title", self.app.lang)
        self.action_refresh()
        self.set_interval(REFRESH_SECONDS, self.action_refresh)

    @work(thread=True, exclusive=True, group="class-report")
    def action_refresh(self) -> None:
        from tutor.classroom.report import build_report

        report = build_report(self.class_dir, course=self.course)
        self.app.call_from_thread(self.show, report)

    def show(self, report) -> None:
        from tutor.classroom.report import (
            STEP_HEADINGS,
            STUDENT_HEADINGS,
            needing_help_first,
            step_cells,
            student_cells,
        )
        self.report = report
        lang = self.app.lang
        students, steps = self.query_one("#class-students", DataTable), self.query_one("#class-steps", DataTable)
        students.clear(columns=True)
        steps.clear(columns=True)
        summary = self.query_one("#class-summary", Static)
        self.query_one("#class-students-title", Static).update(t("class_students_title", lang))
        self.query_one("#class-steps-title", Static).update(t("class_steps_title", lang))
        if not report.students:
            summary.update(text(t("class_empty", lang, path=self.class_dir), MUTED))
        else:
            attempts = sum(row.attempts for row in report.students)
            correct = sum(row.correct for row in report.students)
            accuracy = f"{correct / attempts:.0%}" if attempts else "—"
            stuck = sum(row.stuck for row in report.students)
            summary.update(Text(t("class_summary", lang, students=len(report.students), attempts=attempts,
                                  accuracy=accuracy) + (t("class_summary_stuck", lang, n=stuck) if stuck else ""),
                                style="bold"))
        accuracy_column = STUDENT_HEADINGS.index("col_accuracy")
        for key in STUDENT_HEADINGS:
            students.add_column(t(key, lang), key=key)
        for row in needing_help_first(report.students):
            cells = student_cells(row, report.generated_at, lang)
            if not row.problem:
                cells[accuracy_column] = accuracy_bar(row.accuracy)
            for cell in cells[1:3]:  # where they are, what they failed: a lesson title can be long
                cell.truncate(40, overflow="ellipsis")
            students.add_row(*cells, key=row.folder)
        for key in STEP_HEADINGS:
            steps.add_column(t(key, lang), key=key)
        for index, row in enumerate(report.steps):
            cells = step_cells(row, lang)
            cells[0].truncate(28, overflow="ellipsis")
            steps.add_row(*cells, key=f"{index}")
        self._plot(report, lang)

    def _plot(self, report, lang: str) -> None:
        plot = self.query_one("#class-plot", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(t("class_plot_title", lang))
        lessons = [row for row in report.lessons if row.accuracy is not None]
        plot.display = bool(lessons)
        if lessons:
            labels = [_axis_label(row, lang) for row in lessons]
            plt.bar(labels, [round(100 * row.accuracy) for row in lessons], orientation="horizontal", width=0.6)
            plt.xlim(0, 100)
            plt.xticks([0, 25, 50, 75, 100])
        plot.refresh()

    def apply_language(self) -> None:
        self.sub_title = t("class_title", self.app.lang)
        if self.report is not None:
            self.show(self.report)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.dismiss()
