"""The Class screen, for the teacher's own terminal: who is stuck where, the hardest steps, accuracy per lesson.

`autograd-tutor class view --class-dir DIR` opens it (or "Class" in the command palette of an app
opened that way). Numbers come from `tutor.classroom.report` (read-only on every student's database)
on the course the class was served (class.json, loaded once: `app.class_course`, not the app's own
course), and are read again every few seconds while students work, off the UI thread. Students who
need help come first.
"""
from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
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
CELL_PADDING = 1  # DataTable's, each side of every column
LEAST_WIDTH = 8  # a shortened column keeps at least this many cells (and its heading)
STUDENT_FLEXIBLE = (0, 1, 2)  # name, where they are, what they failed: shortened to fit the screen
STEP_FLEXIBLE = (0, 1, 5)  # lesson, step, who has not solved it


def fit_widths(natural: list[int], flexible: tuple[int, ...], room: int, least: list[int]) -> list[int]:
    """Column widths within `room` cells: the other columns keep their natural width; the flexible ones share
    what is left, none wider than its natural width, none narrower than `least` (the narrowest get theirs
    first, their leftovers go to the others; the least of those still waiting is kept for them). Past that,
    the table scrolls sideways."""
    widths = list(natural)
    left = room - sum(width for column, width in enumerate(natural) if column not in flexible)
    waiting = sorted(flexible, key=lambda column: natural[column])
    while waiting:
        column = waiting.pop(0)
        share = min(left // (len(waiting) + 1), left - sum(least[other] for other in waiting))
        widths[column] = max(least[column], min(natural[column], share))
        left -= widths[column]
    return widths


def _axis_label(row, lang: str) -> str:
    """The lesson's title, or its id where the title has wide (CJK) characters: plotext lays out one
    cell per character, so a Japanese title would push the bars out of line."""
    from tutor.classroom.report import fit

    title = plain(row.title.get(lang) or row.lesson_id)  # plotext draws it with ANSI codes: cleaned first
    return fit(title if cell_len(title) == len(title) else row.lesson_id, LABEL_WIDTH)


def _table(table_id: str) -> DataTable:
    """A table of rows, highlighted row by row; the highlight keeps each cell's own colour (a struggling
    student's red stays red under the cursor: the themes keep it at 4.5:1 on the highlight too)."""
    return DataTable(id=table_id, cursor_type="row", zebra_stripes=True, cursor_foreground_priority="renderable")


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
            yield _table("class-students")
            yield Static("", id="class-steps-title", classes="class-heading")
            yield _table("class-steps")
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
            MIN_TITLE,
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
        rows = needing_help_first(report.students)
        room = self.query_one("#class-body").scrollable_content_region.width
        headings = [t(key, lang) for key in STUDENT_HEADINGS]
        natural = self._natural(headings, [student_cells(row, report.generated_at, lang, [None] * len(headings))
                                           for row in rows])
        accuracy_column = STUDENT_HEADINGS.index("col_accuracy")
        bar = cell_len(accuracy_bar(1.0).plain)  # the accuracy as a bar too, when the screen is wide enough
        with_bar = [max(width, bar) if column == accuracy_column else width for column, width in enumerate(natural)]
        fits_with_bar = sum(with_bar) + 2 * CELL_PADDING * len(with_bar) <= room
        whole_steps = max((cell_len(row.current.label(lang, within=row.current)) + cell_len(" › ") + MIN_TITLE
                           for row in rows if row.current), default=0)  # "where they are": the step whole
        widths = self._widths(headings, with_bar if fits_with_bar else natural, STUDENT_FLEXIBLE, room,
                              {1: whole_steps})
        for key, heading, width in zip(STUDENT_HEADINGS, headings, widths):
            students.add_column(heading, key=key, width=width)
        cut = [width if column in STUDENT_FLEXIBLE else None for column, width in enumerate(widths)]
        for row in rows:
            cells = student_cells(row, report.generated_at, lang, cut)
            if fits_with_bar and not row.problem:
                cells[accuracy_column] = accuracy_bar(row.accuracy)
            students.add_row(*cells, key=row.folder)
        headings = [t(key, lang) for key in STEP_HEADINGS]
        natural = self._natural(headings, [step_cells(row, lang) for row in report.steps])
        widths = self._widths(headings, natural, STEP_FLEXIBLE, room, {1: natural[1]})  # the step whole
        for key, heading, width in zip(STEP_HEADINGS, headings, widths):
            steps.add_column(heading, key=key, width=width)
        cut = [width if column in STEP_FLEXIBLE else None for column, width in enumerate(widths)]
        for index, row in enumerate(report.steps):
            steps.add_row(*step_cells(row, lang, cut), key=f"{index}")
        self._plot(report, lang)

    @staticmethod
    def _natural(headings: list[str], rows: list[list]) -> list[int]:
        """Each column's width with nothing shortened: its heading or its widest cell."""
        return [max([cell_len(heading), *(cell.cell_len for cell in column)])
                for heading, *column in zip(headings, *rows)] if rows else [cell_len(h) for h in headings]

    @staticmethod
    def _widths(headings: list[str], natural: list[int], flexible: tuple[int, ...], room: int,
                wanted: dict[int, int] | None = None) -> list[int]:
        """Every column's width (given to the table: measuring its cells again, it sometimes kept only the
        headings' widths when refilled) so that the table fits `room` cells; the flexible columns none narrower
        than its heading, `LEAST_WIDTH` or (up to its natural width) what `wanted` says."""
        least = [max(LEAST_WIDTH, cell_len(heading), min(natural[column], (wanted or {}).get(column, 0)))
                 for column, heading in enumerate(headings)]
        return fit_widths(natural, flexible, room - 2 * CELL_PADDING * len(natural), least)

    def on_resize(self) -> None:
        """Fitted to the new width: the report on screen drawn again once the layout is done (the tables are never
        refilled during a layout), without reading the class folder again."""
        if self.report is not None:
            self.call_after_refresh(self.show, self.report)

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
        if len(self.app.screen_stack) > 1:
            self.dismiss()
