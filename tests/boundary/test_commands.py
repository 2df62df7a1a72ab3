"""The command line on the hostile lessons, pack and class folder: `check`, `explain` (lesson steps, a quiz
template, `--json`), `run`, `class report` (tables, CSV, JSON) and `class view`. What each prints must carry
no escape sequence, control character or payload from the content, and markup from the content must be
printed as written, never parsed (and never crash the command)."""
import csv
import json
import sys
from pathlib import Path

import pytest
from boundary_checks import HOSTILE, assert_inert, visible
from click.testing import CliRunner

from tutor.cli import main

PACK = Path(__file__).parent / "hostile_pack"
NAMES = ["[@click=app.quit]Eve[/]", "[/]", "[link=https://evil.example/PWNED-LINK]Bob[/]",
         '=HYPERLINK("https://evil.example/PWNED-LINK","Carol")', "\x1b]0;PWNED-NAME\x07Zed", "+1+1", "@SUM(1)",
         "-2+3", "Dan\\"]
FORMULAS = {name for name in NAMES if name[0] in "=+-@"}


def invoke(*args: str):
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        main, [*args, "--trust-lessons"] if args[0] in ("check", "explain", "run") else args, catch_exceptions=False)
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    return result, output


def test_check_prints_pack_values_and_problems_cleaned():
    result, output = invoke("check", str(PACK), str(HOSTILE))
    assert result.exit_code == 1  # the pack's problems
    assert_inert(output, "check")
    assert "␛]0;PWNED-PACK-LANG␇" in output and "␛]52;c;UFdORUQ=␇.toml" in output


@pytest.mark.parametrize("lesson, step, shown", [
    ("explanation.toml", "predict", "PWNED-BACKWARD-SOURCE"),
    ("expression.toml", "predict", "[@click=app.quit]e[/]"),
    ("printed.toml", "predict", "␛]0;PWNED-PRINT-2␇"),
    ("printed.toml", "quiz:printed-quiz", "␛]0;PWNED-QUIZ-PRINT␇"),
])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_explain_prints_program_text_cleaned_and_literal(lesson, step, shown, lang):
    result, output = invoke("explain", str(HOSTILE / lesson), "--step", step, "--lang", lang, "--no-symbolic")
    assert result.exit_code == 0, output
    assert_inert(output, f"explain {lesson} {step}")
    assert shown in output


def test_explain_json_and_a_failing_program():
    result, output = invoke("explain", str(HOSTILE / "explanation.toml"), "--step", "predict", "--json")
    assert_inert(output, "explain --json")
    assert json.loads(result.stdout)["ok"]
    assert "\\u001b]0;PWNED-BACKWARD-SOURCE\\u0007" in result.stdout  # the program's text kept, as JSON escapes
    result, output = invoke("explain", str(HOSTILE / "error_choice.toml"), "--step", "error")
    assert_inert(output, "explain of a program that raises")


def test_run_prints_what_the_program_printed_cleaned(tmp_path):
    snippet = tmp_path / "s.py"
    snippet.write_text('import torch\nprint("\\x1b]0;PWNED-RUN\\x07\\x9b2J\\u202e")\n'
                       'x = torch.tensor([1.])\nraise RuntimeError("\\x1b]52;c;UFdORUQ=\\x07")\n')
    for options in ((), ("--json",)):
        result, output = invoke("run", str(snippet), *options)
        assert result.exit_code == 1
        assert_inert(output, f"run {options}")
    assert json.loads(result.stdout)["stdout"] == "\x1b]0;PWNED-RUN\x07\x9b2J\u202e\n"


def hostile_class(path: Path) -> Path:
    """A class folder whose student records hold hostile names (as a tampered or foreign folder would)."""
    from tutor.classroom.folder import STUDENT_FILE, ClassFolder
    from tutor.progress import ProgressStore

    folder = ClassFolder(path)
    for number, name in enumerate(NAMES):
        student = folder.student(f"student{number}", create=True)
        record_file = student.folder / STUDENT_FILE
        record = json.loads(record_file.read_text(encoding="utf-8"))
        record["name"] = name
        record_file.write_text(json.dumps(record), encoding="utf-8")
        with ProgressStore(student.database) as store:
            store.record_attempt(lesson_id="hostile-printed", step_id="predict", concepts=["vjp"], answer="1",
                                 outcome="correct")
    return folder.path


def test_class_report_tables_csv_and_json(tmp_path):
    class_dir = hostile_class(tmp_path / "class")
    result, output = invoke("class", "report", "--class-dir", str(class_dir), "--lessons", str(HOSTILE),
                            "--csv", str(tmp_path / "report.csv"))
    assert result.exit_code == 0, output
    assert_inert(output, "class report")
    for name in ["[@click=app.quit]Eve[/]", "[/]", "[link=https://evil.example/PWNED-LINK]Bob[/]", "Dan\\"]:
        assert name in output, name
    with open(tmp_path / "report.csv", newline="", encoding="utf-8-sig") as handle:  # written with a BOM for Excel
        names = [row["name"] for row in csv.DictReader(handle)]
    assert sorted(names) == sorted("'" + name if name in FORMULAS else name.replace("\x1b", "␛").replace("\x07", "␇")
                                   for name in NAMES)
    result, output = invoke("class", "report", "--class-dir", str(class_dir), "--lessons", str(HOSTILE), "--json")
    assert_inert(output, "class report --json")
    assert sorted(student["name"] for student in json.loads(result.stdout)["students"]) == sorted(NAMES)


async def test_class_view_shows_names_as_written_and_no_action_runs(tmp_path, data_dir, monkeypatch):
    sys.path.insert(0, str(Path(__file__).parent))
    from test_app_pilot import terminal_output

    from tutor.app import TutorApp

    class_dir = hostile_class(tmp_path / "class")
    app = TutorApp(lang="en", extra_dirs=[HOSTILE], data_dir=data_dir, include_bundled=False, start="class")
    app.class_dir = class_dir
    app.class_lesson_dirs = [str(HOSTILE)]
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if getattr(app.screen, "report", None) is not None:
                break
        await pilot.pause()
        output = terminal_output(app)
        assert_inert(output, "class view")
        shown = visible(output)
        # a long name is shortened to its column (with …): its start is shown as written, never parsed as markup
        for name in ["[@click=app.quit]Eve[/]", "[/]", "[link=https://evil.example/PWNED-LINK]Bob[/]", "␛]0;PWNED-NAME␇Zed"]:
            assert name[:14] in shown, name
        for row in range(len(NAMES)):  # clicking a name runs nothing
            await pilot.click("#class-students", offset=(3, 2 + row))
        await pilot.pause()
        assert app.is_running
