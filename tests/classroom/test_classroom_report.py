"""The teacher's report: per student and per step (hardest first), as tables, CSV and JSON; the Class screen."""
import csv
import json
import sqlite3

import pytest
from class_data import COURSE, LESSON
from click.testing import CliRunner
from textual.widgets import DataTable

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
    assert [row.unsolved for row in report.steps] == [("Bob",), (), (), (), ()]


def test_who_is_stuck_where(class_dir):
    """Dan is on step 4 after 3 wrong answers and 2 hints there, and asked to see another step's answer:
    he needs help, comes first, and every output names the step."""
    from datetime import timedelta

    from class_data import START

    from tutor.classroom.folder import ClassFolder
    from tutor.classroom.report import needing_help_first, student_cells
    from tutor.progress import ProgressStore

    dan = ClassFolder(class_dir).student("Dan", create=True)
    with ProgressStore(dan.database, now=lambda: START + timedelta(minutes=30)) as store:
        store.record_attempt(lesson_id=LESSON, step_id="predict-grad", concepts=[], answer="1", outcome="revealed",
                             hints_used=1, at=START)
        for minute, hints in ((1, 0), (2, 1), (3, 2)):
            store.record_attempt(lesson_id=LESSON, step_id="predict-flag", concepts=[], answer="1", outcome="wrong",
                                 hints_used=hints, at=START + timedelta(minutes=minute))
        store.save_position(LESSON, "predict-flag")
    report = build_report(class_dir, [COURSE], include_bundled=False, now=START + timedelta(minutes=10, seconds=5))
    row = next(row for row in report.students if row.name == "Dan")
    assert row.stuck and (row.current.step_id, row.current.step_number) == ("predict-flag", 4)
    assert (row.most_failed.step_id, row.most_failed_wrong, row.hints, row.answers_shown) == ("predict-flag", 3, 3, 1)
    assert row.minutes_since_answer(report.generated_at) == 7
    bob = next(row for row in report.students if row.name == "Bob")
    assert not bob.stuck and bob.most_failed.step_id == "predict-flag" and bob.answers_shown == 1  # solved later
    assert [row.name for row in needing_help_first(report.students)] == ["Dan", "Alice", "Bob", "Chloé"]
    flag = next(step for step in report.steps if step.step_id == "predict-flag")
    assert flag.unsolved == ("Dan",)
    cells = [cell.plain for cell in student_cells(row, report.generated_at, "en")]
    assert cells[:5] == ["Dan  needs help", "Squares and their gradients › 4. predict-flag",
                         "3× 4. predict-flag", "3 / 1", "7 min ago"]  # the lesson is the one he is on
    document = report.to_json()
    dan_json = next(student for student in document["students"] if student["name"] == "Dan")
    assert dan_json["stuck"] and dan_json["minutes_since_answer"] == 7 and dan_json["current"]["step_number"] == 4


def test_unreadable_database_is_one_row_not_a_crash(class_dir):
    (class_dir / "students" / "bob" / "progress.sqlite3").write_bytes(b"not a database at all" * 100)
    report = build_report(class_dir, [COURSE], include_bundled=False)
    bob = next(row for row in report.students if row.name == "Bob")
    assert bob.problem and bob.attempts == 0
    assert (class_dir / "students" / "bob" / "progress.sqlite3").read_bytes().startswith(b"not a database")


@pytest.mark.parametrize("lang, says", [
    ("en", ["Bob: {bob} cannot be read (file is not a database). Their tutor repairs it when they next join",
            "chloé: {chloe} cannot be read, so this student's name is unknown and their answers are left out. "
            "It is written again when they next join under their name."]),
    ("ja", ["Bob: {bob} を読み込めません（file is not a database）。次に参加したとき、その生徒のチューターが修復します。",
            "chloé: {chloe} を読み込めないため、この生徒の名前がわかりません。"]),
])
def test_each_file_the_report_cannot_read_is_named_with_its_fix(class_dir, lang, says):
    """A damaged progress file, and a damaged student.json (the student was left out without a word): each a
    row, and below the tables the file and what to do, in full (a table cell has no room for them)."""
    (class_dir / "students" / "bob" / "progress.sqlite3").write_bytes(b"not a database at all" * 100)
    (class_dir / "students" / "chloé" / "student.json").write_text('{"name": ', encoding="utf-8")
    rows = {row.name: row for row in build_report(class_dir, [COURSE], include_bundled=False).students}
    assert (rows["Bob"].problem_kind, rows["chloé"].problem_kind, rows["chloé"].attempts) == ("damaged", "record", 0)
    result = CliRunner(env={"COLUMNS": "400"}).invoke(main, ["--lang", lang, "class", "report", "--class-dir",
                                                             str(class_dir), "--lessons", str(COURSE)])
    assert result.exit_code == 0, result.output
    files = {"bob": class_dir / "students" / "bob" / "progress.sqlite3",
             "chloe": class_dir / "students" / "chloé" / "student.json"}
    for said in says:
        assert said.format(**files) in result.output, result.output


def test_report_never_writes(class_dir):
    database = class_dir / "students" / "alice" / "progress.sqlite3"
    before = database.stat().st_mtime_ns
    with sqlite3.connect(database) as conn:  # a student's tutor holds a write lock meanwhile
        conn.execute("BEGIN IMMEDIATE")
        build_report(class_dir, [COURSE], include_bundled=False)
        conn.rollback()
    assert database.stat().st_mtime_ns == before


def test_cli_tables_json_and_csv(class_dir, tmp_path):
    runner = CliRunner(env={"COLUMNS": "200"})
    result = runner.invoke(main, ["class", "report", "--class-dir", str(class_dir), "--lessons", str(COURSE)])
    assert result.exit_code == 0, result.output
    assert "Alice" in result.output and "Chloé" in result.output and "First try" in result.output
    result = runner.invoke(main, ["class", "report", "--class-dir", str(class_dir), "--lessons", str(COURSE),
                                  "--json", "--lang", "ja", "--csv", str(tmp_path / "class.csv")])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["format"] == "autograd-tutor-class-report"
    assert [s["name"] for s in document["students"]] == ["Alice", "Bob", "Chloé"]
    assert document["students"][1]["accuracy"] == 0.5 and document["steps"][0]["step_id"] == "nonscalar"
    assert (tmp_path / "class.csv").read_bytes().startswith(b"\xef\xbb\xbfname,")  # Excel reads UTF-8 by its BOM
    assert (tmp_path / "class-steps.csv").read_bytes().startswith(b"\xef\xbb\xbflesson_id,")
    with open(tmp_path / "class.csv", encoding="utf-8-sig") as handle:
        students = list(csv.DictReader(handle))
    with open(tmp_path / "class-steps.csv", encoding="utf-8-sig") as handle:
        steps = list(csv.DictReader(handle))
    assert [row["name"] for row in students] == ["Alice", "Bob", "Chloé"] and students[0]["accuracy"] == "1.000"
    assert steps[0]["step_id"] == "nonscalar" and steps[0]["first_try_rate"] == "0.500" and steps[0]["unsolved"] == "Bob"
    assert steps[0]["lesson_title"] == "二乗とその勾配"  # --lang ja
    assert students[1]["current_lesson"] == "" and students[1]["most_failed_step"] == "4. predict-flag"
    result = runner.invoke(main, ["class", "report", "--class-dir", str(class_dir), "--lessons", str(COURSE),
                                  "--lang", "ja"])
    assert "生徒" in result.output and "初回正解" in result.output


def test_cli_empty_and_missing_folder(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["class", "report", "--class-dir", str(tmp_path), "--lang", "en"])
    assert result.exit_code == 0 and "No students yet" in result.output
    result = runner.invoke(main, ["class", "report", "--class-dir", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "not a folder" in result.output


async def test_class_screen_table_plot_and_language(class_dir, data_dir):
    from lessons.course import load_course
    from tutor.app import TutorApp
    from tutor.screens.class_screen import ClassScreen

    app = TutorApp(lang="en", data_dir=data_dir, start="class")  # the app's own course is the bundled one …
    app.class_dir = class_dir
    app.class_course = load_course([COURSE], user_dir=None, include_bundled=False)  # … the class's is not
    async with app.run_test(size=(100, 40)) as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if isinstance(app.screen, ClassScreen) and app.screen.report is not None:
                break
        screen = app.screen
        assert isinstance(screen, ClassScreen)
        students = screen.query_one("#class-students", DataTable)
        assert [str(students.get_row_at(i)[0]) for i in range(students.row_count)] == ["Alice", "Bob", "Chloé"]
        assert str(students.get_row_at(0)[5]) == "1/1"  # the class's one lesson, not the app's bundled course
        steps = screen.query_one("#class-steps", DataTable)
        assert str(steps.get_row_at(0)[1]) == "5. nonscalar" and str(steps.get_row_at(0)[5]) == "Bob"
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


async def test_class_view_reads_the_course_serve_recorded(class_dir, data_dir):
    """`class view` with no --lessons: the lessons of class.json (as `serve` wrote them), those who need help
    first, and a name that is markup shown as it is typed."""
    from class_data import answer

    from tutor.classroom.folder import ClassFolder
    from tutor.screens.class_screen import ClassScreen

    folder = ClassFolder(class_dir)
    folder.save_settings(lessons=[str(COURSE)], bundled=False)
    answer(folder, "[b]Zoë[/b]", [("predict-matrix", "wrong"), ("predict-matrix", "wrong")])
    result = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["class", "report", "--class-dir", str(class_dir),
                                                             "--json"])
    rows = {row["name"]: row for row in json.loads(result.stdout)["students"]}
    assert rows["[b]Zoë[/b]"]["stuck"] and rows["Alice"]["lessons_total"] == 1
    from tutor.app import TutorApp

    app = TutorApp(lang="en", data_dir=data_dir, start="class")
    app.class_dir = class_dir
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if isinstance(app.screen, ClassScreen) and app.screen.report is not None:
                break
        students = app.screen.query_one("#class-students", DataTable)
        first = students.get_row_at(0)
        assert str(first[0]) == "! [b]Zoë[/b]" and str(first[5]) == "0/1"
        assert str(first[2]).startswith("2× Squ") and str(first[2]).endswith(" › 3. predict-matrix")
        assert [str(students.get_row_at(i)[0]) for i in range(1, 4)] == ["Alice", "Bob", "Chloé"]
        assert "1 need help (marked !)" in str(app.screen.query_one("#class-summary").render())


@pytest.mark.parametrize("lang", ["en", "ja"])
async def test_the_class_screen_fits_120_columns_and_reads_at_80(class_dir, data_dir, lang):
    """At 120×40 both tables fit the screen: long names and lesson titles are shortened, never the step a
    student is on. At 80×24 who and where still show whole; the rest scrolls sideways."""
    from class_data import answer

    from lessons.course import load_course
    from tutor.app import TutorApp
    from tutor.classroom.folder import ClassFolder
    from tutor.progress import ProgressStore
    from tutor.screens.class_screen import ClassScreen

    folder = ClassFolder(class_dir)
    answer(folder, "Maximilian Alexander Wolfgang", [("predict-grad", "wrong")] * 3)
    answer(folder, "山田 花子", [("predict-matrix", "wrong"), ("predict-matrix", "wrong")])
    for name, step in [("Maximilian Alexander Wolfgang", "predict-grad"), ("山田 花子", "predict-matrix"),
                       ("Bob", "nonscalar"), ("Alice", "why-argument")]:
        with ProgressStore(folder.student(name).database) as store:
            store.save_position(LESSON, step)
    for size in ((120, 40), (80, 24)):
        app = TutorApp(lang=lang, data_dir=data_dir, start="class")
        app.class_dir = class_dir
        app.class_course = load_course([COURSE], user_dir=None, include_bundled=False)
        async with app.run_test(size=size) as pilot:
            for _ in range(100):
                await pilot.pause(0.05)
                if isinstance(app.screen, ClassScreen) and app.screen.report is not None:
                    break
            await pilot.pause()
            students, steps = (app.screen.query_one(f"#class-{name}", DataTable) for name in ("students", "steps"))
            now_on = [str(students.get_row_at(i)[1]) for i in range(4)]
            assert all(cell.endswith(step) for cell, step in zip(now_on, (
                "› 2. predict-grad", "› 3. predict-matrix", "› 6. why-argument", "› 5. nonscalar"))), now_on
            assert str(students.get_row_at(0)[0]).startswith("! Maxim")  # needs help: first, marked
            if size == (120, 40):
                assert students.virtual_size.width <= students.region.width
                assert steps.virtual_size.width <= steps.region.width
            else:
                columns = list(students.columns.values())[:2]
                assert sum(column.get_render_width(students) for column in columns) <= students.region.width


@pytest.mark.parametrize("arguments", [["class", "view", "--theme", "light"], ["--theme", "light", "class", "view"]])
def test_class_view_takes_the_theme(class_dir, data_dir, monkeypatch, arguments):
    from tutor.app import TutorApp

    opened = {}
    monkeypatch.setattr(TutorApp, "run", lambda app, **options: opened.update(theme=app.theme, start=app.start))
    result = CliRunner().invoke(main, [*arguments, "--class-dir", str(class_dir)])
    assert result.exit_code == 0, result.output
    assert opened == {"theme": "tutor-light", "start": "class"}
