"""The teacher's numbers: who is stuck where — per student, per step (hardest first) and per lesson.

Per student: where they are (the lesson and step they were last on), the step they failed most, the
hints they used and the answers they had shown, and how long ago they last answered; a student *needs
help* when a step they have not solved yet has `STUCK_AFTER` wrong answers or more. Per step: who tried it
and has not solved it yet.

Each student's database is opened read-only (a report never migrates, repairs or locks a file a
student's tutor is writing). Only lesson attempts count here; quiz attempts are a student's own
self-study and show only in "last seen". A lesson is *done* by the store's rule: every gradable
step answered correctly at least once (a lesson without any: visited).
"""
from __future__ import annotations

import csv
import sqlite3
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from tutor.classroom.folder import ClassFolder, Student
from tutor.progress.model import QUIZ_LESSON, from_iso
from tutor.progress.schema import LATEST_VERSION
from tutor.progress.store import gradable_step_ids
from tutor.untrusted import csv_cell, json_dumps, plain, text

FORMAT = "autograd-tutor-class-report"
STUCK_AFTER = 2  # wrong answers on a step not solved yet: the student needs help


@dataclass(frozen=True)
class Place:
    """A step of a lesson, as the teacher reads it."""

    lesson_id: str
    lesson_title: dict[str, str]  # {"en": …, "ja": …}
    step_id: str
    step_number: int | None  # 1-based position in the lesson (None: no longer in the course)

    def label(self, lang: str, *, within: Place | None = None, width: int | None = None) -> str:
        """`Lesson title › 3. step-id`; just the step within the lesson of `within`. In at most `width` cells,
        the title is shortened first: the step is what the teacher looks for."""
        from rich.cells import cell_len

        step = f"{self.step_number}. {self.step_id}" if self.step_number else self.step_id
        if within is not None and within.lesson_id == self.lesson_id:
            return fit(step, width)
        title = self.lesson_title.get(lang) or self.lesson_id
        if width is not None:
            title = fit(title, max(MIN_TITLE, width - cell_len(f" › {step}")))
        return fit(f"{title} › {step}", width)


MIN_TITLE = 6  # cells of a lesson title shortened to leave room for its step
HELP_MARK = "! "  # before the name of a student who needs help, on a screen (the summary line says what it means)


def fit(value: str, width: int | None) -> str:
    """`value` made `plain` (it may be a student's or an author's text), in at most `width` terminal cells (None:
    whole), cut with an ellipsis. Plain first, so that the cut is measured on what the terminal will show."""
    from rich.text import Text

    if width is None:
        return plain(value)
    cut = Text(plain(value))
    cut.truncate(max(1, width), overflow="ellipsis")
    return cut.plain


@dataclass(frozen=True)
class StudentRow:
    name: str
    folder: str
    lessons_done: int
    lessons_total: int
    attempts: int
    correct: int
    last_seen: datetime | None
    problem: str | None = None  # why the student's files could not be read
    problem_kind: str | None = None  # "damaged" progress file, "newer" (a newer tutor's), "record" (student.json)
    current: Place | None = None  # the step the student was last on
    most_failed: Place | None = None  # the step with the most wrong answers (None: no wrong answer)
    most_failed_wrong: int = 0
    stuck: bool = False  # `most_failed` is not solved yet and has STUCK_AFTER wrong answers or more
    hints: int = 0  # hints shown, over the lesson steps
    answers_shown: int = 0  # answers the student asked to see
    last_answer: datetime | None = None

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.attempts if self.attempts else None

    def minutes_since_answer(self, now: datetime) -> int | None:
        return None if self.last_answer is None else max(0, int((now - self.last_answer).total_seconds() // 60))


@dataclass(frozen=True)
class StepRow(Place):
    students: int  # students who answered it
    first_try_right: int  # … and got it right on their first attempt
    right_eventually: int  # … and got it right at some point
    unsolved: tuple[str, ...] = ()  # the names of those who answered it and have not got it right yet

    @property
    def first_try_rate(self) -> float:
        return self.first_try_right / self.students if self.students else 0.0


@dataclass(frozen=True)
class MisconceptionRow(Place):
    """A misconception diagnosed behind wrong predictions on one step (`lessons/misconceptions.toml`)."""

    misconception: str  # its id
    students: tuple[str, ...]  # the names of the students it was diagnosed in there

    def label(self, lang: str, *, within: Place | None = None, total: int = 0) -> str:
        """`12 of 30 students: mean without 1/n, on Trying autograd › 3. mean-grad`."""
        from lessons.misconceptions import CATALOGUE
        from tutor.i18n import t

        entry = CATALOGUE.get(self.misconception)
        name = (entry.name.get(lang) or entry.name["en"]) if entry else self.misconception
        return t("class_misconception", lang, count=len(self.students), total=total, name=name,
                 place=super().label(lang))


@dataclass(frozen=True)
class LessonRow:
    lesson_id: str
    title: dict[str, str]
    attempts: int
    correct: int
    students_done: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.attempts if self.attempts else None


@dataclass
class ClassReport:
    class_dir: Path
    generated_at: datetime
    students: list[StudentRow] = field(default_factory=list)
    steps: list[StepRow] = field(default_factory=list)  # hardest first
    lessons: list[LessonRow] = field(default_factory=list)  # course order, lessons someone attempted
    misconceptions: list[MisconceptionRow] = field(default_factory=list)  # the most students first

    def to_json(self) -> dict:
        def student(row: StudentRow) -> dict:
            data = asdict(row)
            data["last_seen"] = _iso(row.last_seen)
            data["last_answer"] = _iso(row.last_answer)
            data["minutes_since_answer"] = row.minutes_since_answer(self.generated_at)
            data["accuracy"] = row.accuracy
            return data

        return {
            "format": FORMAT, "version": 2,
            "class_dir": str(self.class_dir),
            "generated_at": self.generated_at.isoformat(timespec="seconds"),
            "students": [student(row) for row in self.students],
            "steps": [{**asdict(row), "unsolved": list(row.unsolved), "first_try_rate": row.first_try_rate}
                      for row in self.steps],
            "lessons": [{**asdict(row), "accuracy": row.accuracy} for row in self.lessons],
            "misconceptions": [{**asdict(row), "students": list(row.students)} for row in self.misconceptions],
        }

    def misconception_lines(self, lang: str) -> list[str]:
        """One line per misconception and step: how many of the class's students it was diagnosed in."""
        return [row.label(lang, total=len(self.students)) for row in self.misconceptions]


@dataclass
class _Record:
    attempts: list[tuple[str, str, str, int]]  # (lesson, step, outcome, hints used) in order, lessons only
    visited: dict[str, str]  # lesson -> the step the student was last on, most recent last
    last_seen: datetime | None
    last_answer: datetime | None
    misconceptions: set[tuple[str, str, str]] = field(default_factory=set)  # (misconception, lesson, step) diagnosed


def class_course(folder: ClassFolder):
    """The course the class was served, as `serve` recorded it in class.json (`offer.Offer.settings`):
    its lesson folders that still exist, with or without the bundled course."""
    from lessons.course import load_course

    settings = folder.settings()
    lesson_dirs = [d for d in settings.get("lessons", []) if isinstance(d, str) and Path(d).is_dir()]
    return load_course(lesson_dirs, user_dir=None, include_bundled=settings.get("bundled", True) is not False)


def build_report(class_dir, lesson_dirs=None, *, include_bundled: bool = True, course=None,
                 now: datetime | None = None) -> ClassReport:
    """The report for a class folder, on `course`; without one, on the bundled course (`include_bundled`)
    plus `lesson_dirs`, or, when those are None too, on the course recorded in class.json."""
    folder = ClassFolder(class_dir)
    if course is None and lesson_dirs is None:
        course = class_course(folder)
    elif course is None:
        from lessons.course import load_course

        course = load_course(lesson_dirs, user_dir=None, include_bundled=include_bundled)
    lessons = {lesson.id: lesson for lesson in course.lessons}
    report = ClassReport(folder.path, now or datetime.now(timezone.utc))

    def place(lesson_id: str, step_id: str) -> Place:
        lesson = lessons.get(lesson_id)
        number = next((i + 1 for i, step in enumerate(lesson.steps) if step.id == step_id), None) if lesson else None
        return Place(lesson_id, _title(lesson, lesson_id), step_id, number)

    per_step: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    unsolved_by: dict[tuple[str, str], list[str]] = defaultdict(list)
    per_lesson: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    diagnosed: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for student in folder.students():
        try:
            record = _read(student)
        except (sqlite3.Error, ValueError) as error:
            report.students.append(StudentRow(student.name, student.folder.name, 0, len(lessons), 0, 0, None, str(error),
                                              "newer" if isinstance(error, _Newer) else "damaged"))
            continue
        for key in record.misconceptions:
            diagnosed[key].append(student.name)
        first: dict[tuple[str, str], str] = {}
        solved: dict[tuple[str, str], bool] = {}
        wrong: dict[tuple[str, str], int] = defaultdict(int)
        hints: dict[tuple[str, str], int] = defaultdict(int)
        latest: dict[tuple[str, str], int] = {}
        for index, (lesson_id, step_id, outcome, hints_used) in enumerate(record.attempts):
            key = (lesson_id, step_id)
            latest[key] = index
            first.setdefault(key, outcome)
            solved[key] = solved.get(key, False) or outcome == "correct"
            wrong[key] += outcome == "wrong"
            hints[key] = max(hints[key], hints_used)  # hints shown so far on the step, at each attempt
            tally = per_lesson[lesson_id]
            tally[0] += 1
            tally[1] += outcome == "correct"
        for key, outcome in first.items():
            tally = per_step[key]
            tally[0] += 1
            tally[1] += outcome == "correct"
            tally[2] += solved[key]
            if not solved[key]:
                unsolved_by[key].append(student.name)
        # the step failed most: most wrong answers, an unsolved one before a solved one, the latest on a tie
        failed = max((key for key in wrong if wrong[key]), default=None,
                     key=lambda key: (wrong[key], not solved[key], latest[key]))
        done = 0
        for lesson in course.lessons:
            gradable = gradable_step_ids(lesson.steps)
            touched = lesson.id in record.visited or any(key[0] == lesson.id for key in first)
            if touched and all(solved.get((lesson.id, step), False) for step in gradable):
                done += 1
                per_lesson[lesson.id][2] += 1
        seen = [moment for moment in (record.last_seen, folder.last_connected(student)) if moment is not None]
        current = next(reversed(record.visited.items()), None)
        report.students.append(StudentRow(
            student.name, student.folder.name, done, len(lessons), len(record.attempts),
            sum(outcome == "correct" for _, _, outcome, _ in record.attempts), max(seen, default=None),
            current=place(*current) if current else None,
            most_failed=place(*failed) if failed else None, most_failed_wrong=wrong[failed] if failed else 0,
            stuck=failed is not None and not solved[failed] and wrong[failed] >= STUCK_AFTER,
            hints=sum(hints.values()), answers_shown=sum(outcome == "revealed" for _, _, outcome, _ in record.attempts),
            last_answer=record.last_answer))
    for damaged in folder.damaged_records():  # the folder's name stands for the student's, unknown
        report.students.append(StudentRow(damaged.name, damaged.name, 0, len(lessons), 0, 0, None,
                                          "student.json cannot be read", "record"))

    for (lesson_id, step_id), (students, right_first, right) in per_step.items():
        where = place(lesson_id, step_id)
        report.steps.append(StepRow(lesson_id, where.lesson_title, step_id, where.step_number, students, right_first,
                                    right, tuple(unsolved_by[(lesson_id, step_id)])))
    order = {lesson.id: index for index, lesson in enumerate(course.lessons)}
    report.steps.sort(key=lambda row: (row.first_try_rate, row.right_eventually / row.students, -row.students, order.get(row.lesson_id, len(order)),
                                       row.lesson_id, row.step_number or 0, row.step_id))
    for (misconception, lesson_id, step_id), names in diagnosed.items():
        where = place(lesson_id, step_id)
        report.misconceptions.append(MisconceptionRow(lesson_id, where.lesson_title, step_id, where.step_number,
                                                      misconception, tuple(names)))
    report.misconceptions.sort(key=lambda row: (-len(row.students), order.get(row.lesson_id, len(order)),
                                                row.step_number or 0, row.misconception))
    for lesson_id in sorted(per_lesson, key=lambda lesson_id: (order.get(lesson_id, len(order)), lesson_id)):
        attempts, correct, done = per_lesson[lesson_id]
        if attempts or done:
            report.lessons.append(LessonRow(lesson_id, _title(lessons.get(lesson_id), lesson_id), attempts, correct, done))
    return report


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="seconds") if moment else None


def _title(lesson, lesson_id: str) -> dict[str, str]:
    if lesson is None:
        return {"en": lesson_id, "ja": lesson_id}
    return {"en": lesson.title.en, "ja": lesson.title.ja or lesson.title.en}


class _Newer(ValueError):
    """A progress file of a schema this tutor does not know."""


def _read(student: Student) -> _Record:
    """A student's attempts and last activity, read-only (a missing database: nothing yet)."""
    if not student.database.exists():
        return _Record([], {}, None, None)
    conn = sqlite3.connect(f"{student.database.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > LATEST_VERSION:
            raise _Newer(f"written by a newer autograd-tutor (schema {version})")
        if version == 0:
            return _Record([], {}, None, None)
        rows = conn.execute("SELECT lesson_id, step_id, outcome, hints_used, at FROM attempts ORDER BY at, id").fetchall()
        positions = conn.execute("SELECT lesson_id, step_id, updated_at FROM positions ORDER BY updated_at").fetchall()
        misconceptions = set(conn.execute(  # schema v4 on (a report reads older files as they are)
            "SELECT DISTINCT misconception, lesson_id, step_id FROM attempts WHERE misconception IS NOT NULL "
            f"AND lesson_id != '{QUIZ_LESSON}'").fetchall()) if version >= 4 else set()
    finally:
        conn.close()
    answered = [from_iso(at) for *_, at in rows]
    moments = answered + [from_iso(updated) for *_, updated in positions]
    attempts = [(lesson, step, outcome, int(hints or 0)) for lesson, step, outcome, hints, _ in rows
                if lesson != QUIZ_LESSON]
    return _Record(attempts, {lesson: step for lesson, step, _ in positions}, max(moments, default=None),
                   max(answered, default=None), {tuple(str(v) for v in row) for row in misconceptions})


# ---------------------------------------------------------------------- output

STUDENT_COLUMNS = ("name", "needs_help", "current_lesson", "current_step", "most_failed_lesson", "most_failed_step",
                   "most_failed_wrong", "hints", "answers_shown", "minutes_since_answer", "lessons_done",
                   "lessons_total", "accuracy", "attempts", "correct", "last_seen", "problem")
STEP_COLUMNS = ("lesson_id", "lesson_title", "step_number", "step_id", "students", "first_try_right", "first_try_rate",
                "right_eventually", "unsolved")


def steps_csv_path(path: Path) -> Path:
    """The second CSV file beside `path`: `report.csv` -> `report-steps.csv`."""
    return path.with_name(f"{path.stem}-steps{path.suffix or '.csv'}")


def write_csv(report: ClassReport, path: Path, lang: str = "en") -> tuple[Path, Path]:
    """Two files a spreadsheet opens as they are (UTF-8 with a byte-order mark, so Excel reads 山田 花子;
    every text cell through `csv_cell`): `path`, one row per student, and `steps_csv_path(path)`, one row
    per step, hardest first. Lesson titles in `lang`."""
    def where(place: Place | None) -> list[str]:
        return ["", ""] if place is None else [csv_cell(place.lesson_id), _step_label(place)]

    with open(path, "w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(STUDENT_COLUMNS)
        for row in report.students:
            minutes = row.minutes_since_answer(report.generated_at)
            writer.writerow([csv_cell(row.name), "yes" if row.stuck else "", *where(row.current), *where(row.most_failed),
                             row.most_failed_wrong, row.hints, row.answers_shown, "" if minutes is None else minutes,
                             row.lessons_done, row.lessons_total,
                             "" if row.accuracy is None else f"{row.accuracy:.3f}", row.attempts, row.correct,
                             _iso(row.last_seen) or "", csv_cell(row.problem or "")])
    steps_path = steps_csv_path(path)
    with open(steps_path, "w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(STEP_COLUMNS)
        for row in report.steps:
            writer.writerow([csv_cell(row.lesson_id), csv_cell(row.lesson_title.get(lang) or row.lesson_id),
                             row.step_number or "", csv_cell(row.step_id), row.students, row.first_try_right,
                             f"{row.first_try_rate:.3f}", row.right_eventually, csv_cell("; ".join(row.unsolved))])
    return path, steps_path


def _step_label(place: Place) -> str:
    return csv_cell(place.label("en", within=place))


def write_json(report: ClassReport) -> str:
    return json_dumps(report.to_json(), indent=2)


def last_seen_label(moment: datetime | None, now: datetime, lang: str) -> str:
    from tutor.i18n import t

    if moment is None:
        return t("class_never", lang)
    seconds = (now - moment).total_seconds()
    if seconds < 90:
        return t("class_just_now", lang)
    if seconds < 90 * 60:
        return t("class_minutes_ago", lang, n=round(seconds / 60))
    if seconds < 36 * 3600:
        return t("class_hours_ago", lang, n=round(seconds / 3600))
    return moment.astimezone().strftime("%Y-%m-%d")


def needing_help_first(rows: list[StudentRow]) -> list[StudentRow]:
    """Students who need help first (most wrong answers first), then the others by name."""
    return sorted(rows, key=lambda row: (not row.stuck, -row.most_failed_wrong if row.stuck else 0))


STUDENT_HEADINGS = ("class_col_student", "class_col_now_on", "class_col_failed_most", "class_col_hints",
                    "class_col_last_answer", "class_col_lessons", "col_accuracy", "class_col_last_seen")
STEP_HEADINGS = ("class_col_lesson", "class_col_step", "class_col_first_try", "class_col_first_try_rate",
                 "class_col_eventually", "class_col_unsolved")


def student_cells(row: StudentRow, now: datetime, lang: str, widths: list[int | None] | None = None) -> list:
    """One student's cells, as `Text` (names and titles are untrusted: never parsed as markup). With `widths`
    (a screen), each in at most that many cells (None: as it is), the step kept after a shortened lesson title,
    and a student who needs help marked `HELP_MARK` (said in words otherwise)."""
    from rich.cells import cell_len

    from tutor.i18n import t

    width = (lambda column: widths[column]) if widths is not None else (lambda column: None)
    name = text("", "bold red")
    if row.stuck and widths is not None:
        name.append(HELP_MARK)
    name.append(fit(row.name, None if width(0) is None else width(0) - name.cell_len), "bold red" if row.stuck else "")
    if row.stuck and widths is None:
        name.append(f"  {t('class_needs_help', lang)}", style="red")
    if row.problem:
        return [name, *(text("—") for _ in STUDENT_HEADINGS[1:-1]),
                text(fit(t("class_unreadable", lang, reason=row.problem), width(len(STUDENT_HEADINGS) - 1)))]
    failed = "—"
    if row.most_failed is not None:
        times = t("class_failed_times", lang, n=row.most_failed_wrong, step="")
        room = width(2)
        failed = times + row.most_failed.label(lang, within=row.current,
                                               width=None if room is None else max(MIN_TITLE, room - cell_len(times)))
    cells = [row.current.label(lang, width=width(1)) if row.current else "—", failed,
             t("class_hints_shown", lang, hints=row.hints, shown=row.answers_shown),
             "—" if row.last_answer is None else last_seen_label(row.last_answer, now, lang),
             f"{row.lessons_done}/{row.lessons_total}", "—" if row.accuracy is None else f"{row.accuracy:.0%}",
             last_seen_label(row.last_seen, now, lang)]
    return [name, *(text(fit(cell, width(column)), "red" if column == 2 and row.stuck else "")
                    for column, cell in enumerate(cells, start=1))]


def student_table(report: ClassReport, lang: str):
    """The per-student table as a rich renderable (the CLI prints it; the Class screen has its own DataTable)."""
    from rich.table import Table

    from tutor.i18n import t

    table = Table(title=t("class_students_title", lang), title_justify="left")
    for key in STUDENT_HEADINGS:
        table.add_column(t(key, lang))
    for row in needing_help_first(report.students):
        table.add_row(*student_cells(row, report.generated_at, lang))
    return table


def step_cells(row: StepRow, lang: str, widths: list[int | None] | None = None) -> list:
    """One step's cells (with `widths`: each in at most that many cells, as `student_cells`)."""
    cells = [row.lesson_title.get(lang) or row.lesson_id, row.label(lang, within=row),
             f"{row.first_try_right}/{row.students}", f"{row.first_try_rate:.0%}",
             f"{row.right_eventually}/{row.students}", ", ".join(row.unsolved)]
    return [text(fit(cell, widths[column] if widths is not None else None),
                 "red" if column == len(cells) - 1 and row.unsolved else "")
            for column, cell in enumerate(cells)]


def step_table(report: ClassReport, lang: str):
    from rich.table import Table

    from tutor.i18n import t

    table = Table(title=t("class_steps_title", lang), title_justify="left")
    for key in STEP_HEADINGS:
        table.add_column(t(key, lang))
    for row in report.steps:
        table.add_row(*step_cells(row, lang))
    return table
