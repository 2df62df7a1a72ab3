"""The teacher's numbers: per student, per step (hardest first) and per lesson.

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

from rich.text import Text

from tutor.classroom.folder import ClassFolder, Student
from tutor.progress.model import QUIZ_LESSON, from_iso
from tutor.progress.schema import LATEST_VERSION
from tutor.progress.store import gradable_step_ids
from tutor.untrusted import csv_cell, json_dumps, text

FORMAT = "autograd-tutor-class-report"


@dataclass(frozen=True)
class StudentRow:
    name: str
    folder: str
    lessons_done: int
    lessons_total: int
    attempts: int
    correct: int
    last_seen: datetime | None
    problem: str | None = None  # the database could not be read

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.attempts if self.attempts else None


@dataclass(frozen=True)
class StepRow:
    lesson_id: str
    lesson_title: dict[str, str]  # {"en": …, "ja": …}
    step_id: str
    step_number: int | None  # 1-based position in the lesson (None: no longer in the course)
    students: int  # students who answered it
    first_try_right: int  # … and got it right on their first attempt
    right_eventually: int  # … and got it right at some point

    @property
    def first_try_rate(self) -> float:
        return self.first_try_right / self.students if self.students else 0.0


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

    def to_json(self) -> dict:
        def student(row: StudentRow) -> dict:
            data = asdict(row)
            data["last_seen"] = row.last_seen.isoformat(timespec="seconds") if row.last_seen else None
            data["accuracy"] = row.accuracy
            return data

        return {
            "format": FORMAT, "version": 1,
            "class_dir": str(self.class_dir),
            "generated_at": self.generated_at.isoformat(timespec="seconds"),
            "students": [student(row) for row in self.students],
            "steps": [{**asdict(row), "first_try_rate": row.first_try_rate} for row in self.steps],
            "lessons": [{**asdict(row), "accuracy": row.accuracy} for row in self.lessons],
        }


@dataclass
class _Record:
    attempts: list[tuple[str, str, str]]  # (lesson, step, outcome) in order, lessons only
    visited: set[str]  # lessons with a saved position
    last_seen: datetime | None


def build_report(class_dir, lesson_dirs=None, *, include_bundled: bool = True, course=None,
                 now: datetime | None = None) -> ClassReport:
    """The report for a class folder. The course is the bundled one plus `lesson_dirs`, which default to
    the folders the server recorded in class.json; the app passes the course it has loaded instead."""
    folder = ClassFolder(class_dir)
    if course is None:
        from lessons.course import load_course

        if lesson_dirs is None:
            lesson_dirs = [d for d in folder.settings().get("lessons", []) if isinstance(d, str) and Path(d).is_dir()]
        course = load_course(lesson_dirs, user_dir=folder.path / ".no-user-lessons", include_bundled=include_bundled)
    lessons = {lesson.id: lesson for lesson in course.lessons}
    report = ClassReport(folder.path, now or datetime.now(timezone.utc))

    per_step: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    per_lesson: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for student in folder.students():
        try:
            record = _read(student)
        except (sqlite3.Error, ValueError) as error:
            report.students.append(StudentRow(student.name, student.folder.name, 0, len(lessons), 0, 0, None, str(error)))
            continue
        first: dict[tuple[str, str], str] = {}
        solved: dict[tuple[str, str], bool] = {}
        for lesson_id, step_id, outcome in record.attempts:
            first.setdefault((lesson_id, step_id), outcome)
            solved[(lesson_id, step_id)] = solved.get((lesson_id, step_id), False) or outcome == "correct"
            tally = per_lesson[lesson_id]
            tally[0] += 1
            tally[1] += outcome == "correct"
        for key, outcome in first.items():
            tally = per_step[key]
            tally[0] += 1
            tally[1] += outcome == "correct"
            tally[2] += solved[key]
        done = 0
        for lesson in course.lessons:
            gradable = gradable_step_ids(lesson.steps)
            touched = lesson.id in record.visited or any(key[0] == lesson.id for key in first)
            if touched and all(solved.get((lesson.id, step), False) for step in gradable):
                done += 1
                per_lesson[lesson.id][2] += 1
        seen = [moment for moment in (record.last_seen, folder.last_connected(student)) if moment is not None]
        report.students.append(StudentRow(
            student.name, student.folder.name, done, len(lessons), len(record.attempts),
            sum(outcome == "correct" for _, _, outcome in record.attempts), max(seen, default=None)))

    for (lesson_id, step_id), (students, right_first, right) in per_step.items():
        lesson = lessons.get(lesson_id)
        number = next((i + 1 for i, step in enumerate(lesson.steps) if step.id == step_id), None) if lesson else None
        report.steps.append(StepRow(lesson_id, _title(lesson, lesson_id), step_id, number, students, right_first, right))
    order = {lesson.id: index for index, lesson in enumerate(course.lessons)}
    report.steps.sort(key=lambda row: (row.first_try_rate, row.right_eventually / row.students, -row.students, order.get(row.lesson_id, len(order)),
                                       row.lesson_id, row.step_number or 0, row.step_id))
    for lesson_id in sorted(per_lesson, key=lambda lesson_id: (order.get(lesson_id, len(order)), lesson_id)):
        attempts, correct, done = per_lesson[lesson_id]
        if attempts or done:
            report.lessons.append(LessonRow(lesson_id, _title(lessons.get(lesson_id), lesson_id), attempts, correct, done))
    return report


def _title(lesson, lesson_id: str) -> dict[str, str]:
    if lesson is None:
        return {"en": lesson_id, "ja": lesson_id}
    return {"en": lesson.title.en, "ja": lesson.title.ja or lesson.title.en}


def _read(student: Student) -> _Record:
    """A student's attempts and last activity, read-only (a missing database: nothing yet)."""
    if not student.database.exists():
        return _Record([], set(), None)
    conn = sqlite3.connect(f"{student.database.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > LATEST_VERSION:
            raise ValueError(f"written by a newer autograd-tutor (schema {version})")
        if version == 0:
            return _Record([], set(), None)
        rows = conn.execute("SELECT lesson_id, step_id, outcome, at FROM attempts ORDER BY at, id").fetchall()
        positions = conn.execute("SELECT lesson_id, updated_at FROM positions").fetchall()
    finally:
        conn.close()
    moments = [from_iso(at) for *_, at in rows] + [from_iso(updated) for _, updated in positions]
    attempts = [(lesson, step, outcome) for lesson, step, outcome, _ in rows if lesson != QUIZ_LESSON]
    return _Record(attempts, {lesson for lesson, _ in positions}, max(moments, default=None))


# ---------------------------------------------------------------------- output

STUDENT_COLUMNS = ("name", "lessons_done", "lessons_total", "accuracy", "attempts", "correct", "last_seen", "problem")
STEP_COLUMNS = ("lesson_id", "step_number", "step_id", "students", "first_try_right", "first_try_rate", "right_eventually")


def write_csv(report: ClassReport, path: Path) -> tuple[Path, Path]:
    """Two files: `path` (one row per student) and `<stem>-steps<suffix>` (one row per step, hardest first)."""
    steps_path = path.with_name(f"{path.stem}-steps{path.suffix or '.csv'}")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(STUDENT_COLUMNS)
        for row in report.students:
            writer.writerow([csv_cell(row.name), row.lessons_done, row.lessons_total,
                             "" if row.accuracy is None else f"{row.accuracy:.3f}", row.attempts, row.correct,
                             row.last_seen.isoformat(timespec="seconds") if row.last_seen else "", csv_cell(row.problem or "")])
    with open(steps_path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(STEP_COLUMNS)
        for row in report.steps:
            writer.writerow([csv_cell(row.lesson_id), row.step_number or "", csv_cell(row.step_id), row.students, row.first_try_right,
                             f"{row.first_try_rate:.3f}", row.right_eventually])
    return path, steps_path


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


def student_table(report: ClassReport, lang: str):
    """The per-student table as rich renderables (the CLI prints it; the Class screen has its own DataTable)."""
    from rich.table import Table

    from tutor.i18n import t

    table = Table(title=t("class_students_title", lang), title_justify="left")
    for key, justify in (("class_col_student", "left"), ("class_col_lessons", "right"), ("col_accuracy", "right"),
                         ("col_attempts", "right"), ("class_col_last_seen", "left")):
        table.add_column(t(key, lang), justify=justify)
    for row in report.students:
        table.add_row(*student_cells(row, report.generated_at, lang))
    return table


def student_cells(row: StudentRow, now: datetime, lang: str) -> list[Text]:
    """A student's row as plain `Text` cells (a name is typed by the student: never markup)."""
    from tutor.i18n import t

    if row.problem:
        return [text(row.name), text("—"), text("—"), text("—"), text(t("class_unreadable", lang, reason=row.problem))]
    return [text(cell) for cell in (row.name, f"{row.lessons_done}/{row.lessons_total}",
                                    "—" if row.accuracy is None else f"{row.accuracy:.0%}", str(row.attempts),
                                    last_seen_label(row.last_seen, now, lang))]


def step_cells(row: StepRow, lang: str) -> list[Text]:
    """A step's row as plain `Text` cells (titles and ids come from lesson files: never markup)."""
    step = f"{row.step_number}. {row.step_id}" if row.step_number else row.step_id
    return [text(cell) for cell in (row.lesson_title.get(lang) or row.lesson_id, step,
                                    f"{row.first_try_right}/{row.students}", f"{row.first_try_rate:.0%}",
                                    f"{row.right_eventually}/{row.students}")]


def step_table(report: ClassReport, lang: str):
    from rich.table import Table

    from tutor.i18n import t

    table = Table(title=t("class_steps_title", lang), title_justify="left")
    for key, justify in (("class_col_lesson", "left"), ("class_col_step", "left"), ("class_col_first_try", "right"),
                         ("class_col_first_try_rate", "right"), ("class_col_eventually", "right")):
        table.add_column(t(key, lang), justify=justify)
    for row in report.steps:
        table.add_row(*step_cells(row, lang))
    return table
