"""The teacher's report: per student and per step (hardest first), as tables, CSV and JSON; the Class screen."""
import csv
import json
import sqlite3

from click.testing import CliRunner
from textual.widgets import DataTable

from class_data import COURSE, LESSON
from tutor.classroom.report import build_report
from tutor.cli import main


def test_students_and_steps(class_dir):
    report = build_report(class_dir, [COURSE], include_bundled=False)
    rows = {row.name: row for row in report.students}
    assert list(rows) == ["Alice", "Bob", "Chloé"]
    alice, bob, chloe = rows["Alice"], rows["Bob"], rows["Chloé"]
    assert (alice.lessons_done, alice.lessons_total, alice.attempts, alice.correct) == (1, 1, 5, 5)  # quizzes not counted
    assert (bob.lessons_done, bob.attempts, bob.correct) == (0, 4, 2)
    assert (chloe.attempts, chloe.accuracy, chloe.last_seen) == (0, None, None)
    assert alice.last_seen.hour == 10  # the quiz an hour later still counts as "seen"
    steps = [(row.step_id, row.students, row.first_try_right, row.right_eventually) for row in report.steps]
    # hardest first: fewest right first try, then fewest right in the end, then most answered, then lesson order
    assert steps == [("nonscalar", 2, 1, 1), ("predict-flag", 2, 1, 2), ("predict-grad", 2, 2, 2),
                     ("predict-matrix", 1, 1, 1), ("why-argument", 1, 1, 1)]
    assert report.steps[0].step_number == 5 and report.steps[0].lesson_title["en"] == "Squares and their gradients"
    (lesson,) = report.lessons
    assert (lesson.lesson_id, lesson.attempts, lesson.correct, lesson.students_done) == (LESSON, 9, 7, 1)


def test_unreadable_database_is_one_row_not_a_crash(class_dir):
    (class_dir / "students" / "bob" / "progress.sqlite3").write_bytes(b"not a database at all" * 100)
    report = build_report(class_dir, [COURSE], include_bundled=False)
    bob = next(row for row in report.students if row.name == "Bob")
    assert bob.problem and bob.attempts == 0
    assert (class_dir / "students" / "bob" / "progress.sqlite3").read_bytes().startswith(b"not a database")


def test_report_never_writes(class_dir):
    database = class_dir / "students" / "alice" / "progress.sqlite3"
    before = database.stat().st_mtime_ns
    with sqlite3.connect(database) as conn:  # a student's tutor holds a write lock meanwhile
        conn.execute("BEGIN IMMEDIATE")
        build_report(class_dir, [COURSE], include_bundled=False)
        conn.rollback()
    assert database.stat().st_mtime_ns == before


def test_cli_tables_json_and_csv(class_dir, tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["class", "report", "--class-dir", str(class_dir), "--lessons", str(COURSE)])
    assert result.exit_code == 0, result.output
    assert "Alice" in result.output and "Chloé" in result.output and "Right first try" in result.output
    result = runner.invoke(main, ["class", "report", "--class-dir", str(class_dir), "--lessons", str(COURSE),
                                  "--json", "--lang", "ja", "--csv", str(tmp_path / "class.csv")])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["format"] == "autograd-tutor-class-report"
    assert [s["name"] for s in document["students"]] == ["Alice", "Bob", "Chloé"]
    assert document["students"][1]["accuracy"] == 0.5 and document["steps"][0]["step_id"] == "nonscalar"
    with open(tmp_path / "class.csv", encoding="utf-8") as handle:
        students = list(csv.DictReader(handle))
    with open(tmp_path / "class-steps.csv", encoding="utf-8") as handle:
        steps = list(csv.DictReader(handle))
    assert [row["name"] for row in students] == ["Alice", "Bob", "Chloé"] and students[0]["accuracy"] == "1.000"
    assert steps[0]["step_id"] == "nonscalar" and steps[0]["first_try_rate"] == "0.500"
    result = runner.invoke(main, ["class", "report", "--class-dir", str(class_dir), "--lessons", str(COURSE),
                                  "--lang", "ja"])
    assert "生徒" in result.output and "1 回目で正解" in result.output


def test_cli_empty_and_missing_folder(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["class", "report", "--class-dir", str(tmp_path), "--lang", "en"])
    assert result.exit_code == 0 and "No students yet" in result.output
    result = runner.invoke(main, ["class", "report", "--class-dir", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "not a folder" in result.output


async def test_class_screen_table_plot_and_language(class_dir, data_dir):
    from tutor.app import TutorApp
    from tutor.screens.class_screen import ClassScreen

    app = TutorApp(lang="en", extra_dirs=[COURSE], data_dir=data_dir, include_bundled=False, start="class")
    app.class_dir = class_dir
    async with app.run_test(size=(100, 40)) as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if isinstance(app.screen, ClassScreen) and app.screen.report is not None:
                break
        screen = app.screen
        assert isinstance(screen, ClassScreen)
        students = screen.query_one("#class-students", DataTable)
        assert [str(students.get_row_at(i)[0]) for i in range(students.row_count)] == ["Alice", "Bob", "Chloé"]
        steps = screen.query_one("#class-steps", DataTable)
        assert str(steps.get_row_at(0)[1]) == "5. nonscalar"
        assert "3 students, 9 answers, 78% right" in str(screen.query_one("#class-summary").render())
        assert screen.query_one("#class-plot").display
        await pilot.press("f2")
        await pilot.pause()
        assert "生徒 3 人" in str(screen.query_one("#class-summary").render())
        assert str(students.columns["class_col_student"].label) == "生徒"
        await pilot.press("escape")
        assert not isinstance(app.screen, ClassScreen)


async def test_student_app_resumes_where_the_student_left(tmp_path):
    from tutor.classroom.student_app import make_app
    from tutor.progress import ProgressStore
    from tutor.screens.lesson import LessonScreen

    folder = tmp_path / "students" / "alice"
    with ProgressStore(data_dir=folder) as store:
        store.save_position(LESSON, "predict-flag")
    app = make_app({"AUTOGRAD_TUTOR_DATA_DIR": str(folder), "AUTOGRAD_TUTOR_STUDENT": "Alice",
                    "AUTOGRAD_TUTOR_LANG": "ja", "AUTOGRAD_TUTOR_CLASS_LESSONS": str(COURSE)})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen)
        assert app.screen.step.id == "predict-flag" and app.lang == "ja"
        assert app.title == "autograd-tutor — Alice"
