"""`check`, `new` and `paths` from the command line: exit codes, messages, never a traceback."""
from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

MALFORMED = Path(__file__).parent / "malformed"
BUNDLED = Path(__file__).resolve().parents[2] / "lessons" / "bundled"


def test_the_bundled_course_passes_check(cli):
    files = sorted(BUNDLED.glob("*.toml"))
    assert len(files) >= 8, "the bundled course needs the three seed lessons and at least five more"
    result = cli("check", BUNDLED)
    assert result.output.splitlines()[-1].startswith(f"{len(files)} lessons checked, 0 problems"), result.output
    assert result.exit_code == 0


@pytest.mark.parametrize("name, expected", [
    ("rejected_snippet.toml", ":13: steps[0].snippet: the snippet runner refuses the program: SnippetRejected:"),
    ("expect_disagrees.toml", ":18: steps[0].expect: the engine computes `inp.grad` = tensor [4., 2.]"),
    ("no_matching_choice.toml", ":16: steps[0].choices: no choice matches what the program does (RuntimeError: "
                                "grad can be implicitly created only for scalar outputs)"),
    ("failing_snippet.toml", ":14: steps[0].snippet: the program fails: RuntimeError: grad can be implicitly"),
    ("bad_expression.toml", ":15: steps[0].expression: `y.grad` fails after the program: NameError"),
    ("bad_toml.toml", ":3: TOML syntax error at column 32"),
    ("unknown_key.toml", ":18: steps[1].expresion: unknown key 'expresion' — did you mean 'expression'?"),
    ("invalid_utf8.toml", ":3: not valid UTF-8"),
    ("empty.toml", ": the file is empty"),
])
def test_each_malformed_file_fails_check_with_its_message(cli, name, expected):
    result = cli("check", MALFORMED / name)
    assert result.exit_code == 1
    first, summary = result.output.splitlines()[0], result.output.splitlines()[-1]
    assert first.startswith(f"{MALFORMED / name}{expected}"), result.output
    assert re.fullmatch(r"1 lesson checked, \d+ problems?(, \d+ warnings? \(--strict lists them\))?", summary), summary


def test_the_whole_malformed_corpus_reports_every_file(cli):
    files = sorted(MALFORMED.glob("*.toml"))
    result = cli("check", MALFORMED)
    assert result.exit_code == 1
    reported = {line.split(":")[0] for line in result.output.splitlines()[:-1]}
    assert reported == {str(f) for f in files}


def test_a_10_mb_file_is_refused(cli, tmp_path):
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"x" * 10_000_000)
    result = cli("check", huge)
    assert result.exit_code == 1
    assert "the file is 10.0 MB; a lesson file may be at most 1 MB" in result.output


def test_usage_errors_exit_2(cli, tmp_path):
    assert cli("check", tmp_path / "missing.toml").exit_code == 2
    assert cli("check").exit_code == 2
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    result = cli("check", empty)
    assert result.exit_code == 1 and "no lesson files (*.toml) in this folder" in result.output


def test_check_without_torch_installed_exits_2(cli, monkeypatch):
    monkeypatch.setattr("lessons.against_torch.torch_available", lambda: False)
    result = cli("check", "--against-torch", BUNDLED)
    assert result.exit_code == 2 and "needs PyTorch" in result.output


def test_duplicate_lesson_ids_across_files(cli, tmp_path):
    assert cli("new", "one", "--dir", tmp_path).exit_code == 0
    (tmp_path / "two.toml").write_text((tmp_path / "one.toml").read_text(encoding="utf-8"), encoding="utf-8")
    result = cli("check", tmp_path)
    assert result.exit_code == 1
    assert f"{tmp_path / 'two.toml'}:7: id: duplicate lesson id 'one' (also in {tmp_path / 'one.toml'})" in result.output


def test_new_writes_a_template_that_passes_check_and_refuses_to_overwrite(cli, tmp_path):
    result = cli("new", "My First Lesson!", "--dir", tmp_path)
    assert result.exit_code == 0
    path = tmp_path / "my-first-lesson.toml"  # named after its id: no space or punctuation in a file name
    text = path.read_text(encoding="utf-8")
    assert 'id = "my-first-lesson"' in text and "ja =" in text and "#" in text
    check = cli("check", path)
    assert check.exit_code == 0, check.output
    assert check.output.strip() == "1 lesson checked, 0 problems"
    again = cli("new", "my first lesson", "--dir", tmp_path)
    assert again.exit_code == 1 and "already exists" in again.output
    assert path.read_text(encoding="utf-8") == text


def test_new_defaults_to_the_user_lesson_folder_and_the_course_loads_it(cli, tmp_path):
    from lessons.course import load_course
    from tutor.paths import lessons_dir

    assert cli("new", "chain").exit_code == 0
    assert (lessons_dir() / "chain.toml").is_file()
    assert "chain" in [lesson.id for lesson in load_course(user_dir=lessons_dir(), include_bundled=False).lessons]
    assert cli("new", "???").exit_code == 2


@pytest.mark.parametrize("options, folder", [((), "data"), (("--data-dir", "elsewhere"), "elsewhere")])
def test_paths_prints_the_data_locations(cli, tmp_path, options, folder):
    data = tmp_path / folder
    result = cli(*(option.replace("elsewhere", str(data)) for option in options), "paths")
    assert result.output.splitlines() == [
        f"data folder:       {data}",
        f"lesson folder:     {data / 'lessons'}",
        f"progress database: {data / 'progress.sqlite3'}",
    ]


def test_new_follows_the_global_data_dir(cli, tmp_path):
    assert cli("--data-dir", tmp_path / "mine", "new", "chain").exit_code == 0
    assert (tmp_path / "mine" / "lessons" / "chain.toml").is_file()


def test_check_runs_as_a_real_command_without_traceback():
    done = subprocess.run([sys.executable, "-m", "tutor", "check", str(MALFORMED / "wrong_types.toml")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [f"{MALFORMED / 'wrong_types.toml'}:3: order: expected an integer, got a string",
                                        "1 lesson checked, 1 problem"]
    assert "Traceback" not in done.stderr


def test_every_complete_lesson_in_the_authoring_guide_passes_check(cli, tmp_path):
    guide = (Path(__file__).resolve().parents[2] / "docs" / "authoring.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in guide.split("```toml\n")[1:]]
    lessons = [block for block in blocks if block.startswith("format_version")]
    assert len(lessons) == 2  # the worked example, in the English and the Japanese half
    for number, text in enumerate(lessons):
        (tmp_path / f"guide-{number}").mkdir()
        (tmp_path / f"guide-{number}" / "example.toml").write_text(text, encoding="utf-8")
        result = cli("check", tmp_path / f"guide-{number}")
        assert result.exit_code == 0, result.output
    mistaken = lessons[0].replace('expect = "w"', 'expect = "2 * w"')
    (tmp_path / "mistake.toml").write_text(mistaken, encoding="utf-8")
    result = cli("check", tmp_path / "mistake.toml")
    assert result.exit_code == 1 and "steps[1].expect: the engine computes `x.grad` = tensor [4., 5., 6.]" in result.output


def test_check_speaks_the_authors_language(tmp_path):
    """`--lang ja`: the summary, the warnings' count and the PyTorch line are Japanese like the problems."""
    from click.testing import CliRunner

    from tutor.cli import main
    from tutor.commands.check import Report, print_report

    bundled = Path(__file__).resolve().parents[2] / "lessons" / "bundled"
    result = CliRunner().invoke(main, ["--lang", "ja", "check", str(next(bundled.glob("010*.toml")))])
    assert result.exit_code == 0 and result.output.strip() == "1 個のレッスンを確認、問題 0 件", result.output
    report = Report(checked=2, warnings=["w1", "w2"], torch="2.13.0")
    with contextlib.redirect_stdout(io.StringIO()) as shown:
        print_report(report, strict=False, lang="ja")
    assert shown.getvalue().splitlines() == [
        "答えを PyTorch 2.13.0 と比べました（プログラムはサンドボックスで実行しました）",
        "2 個のレッスンを確認、問題 0 件、警告 2 件（--strict で一覧を表示します）"]



def test_a_matrix_in_a_problem_stays_on_the_problem_s_one_line(cli, tmp_path):
    """Each problem is one `file:line: …` line (editors and grep read them so): a matrix's rows too."""
    lesson = tmp_path / "matrix.toml"
    lesson.write_text((MALFORMED / "expect_disagrees.toml").read_text(encoding="utf-8")
                      .replace("torch.tensor([4., 3.])", "torch.ones(3, 2)")
                      .replace('expression = "inp.grad"', 'expression = "inp.grad.expand(3, 2)"'),
                      encoding="utf-8")
    for lang in ("en", "ja"):
        result = cli("--lang", lang, "check", lesson)
        problems = result.output.splitlines()[:-1]
        assert len(problems) == 1 and problems[0].startswith(f"{lesson}:18: steps[0].expect"), result.output
        assert "tensor [[4., 2.], [4., 2.], [4., 2.]] (shape [3, 2])" in problems[0]
        assert "tensor [[1., 1.], [1., 1.], [1., 1.]] (shape [3, 2])" in problems[0]


@pytest.mark.parametrize("lang, says", [
    ("en", "AttributeError: 'Tensor' object has no attribute 'median'; if PyTorch has that name, the tutor's engine "
           "does not: write the step with what it provides (docs/api.md lists it)"),
    ("ja", "AttributeError: 'Tensor' object has no attribute 'median'。PyTorch にその名前があるなら、チューターの"
           "エンジンにはありません。"),
])
def test_a_torch_name_the_engine_lacks_points_the_author_to_the_api_list(cli, tmp_path, lang, says):
    """`x.median()` fails with PyTorch's own AttributeError: the author is told where to see what the engine has."""
    lesson = tmp_path / "median.toml"
    lesson.write_text((MALFORMED / "expect_disagrees.toml").read_text(encoding="utf-8")
                      .replace("out.backward(torch.tensor([1., 1.]))", "out.median().backward()")
                      .replace('expect = "torch.tensor([4., 3.])"\n', ""), encoding="utf-8")
    result = cli("--lang", lang, "check", lesson)
    assert result.exit_code == 1 and f"{lesson}:15: steps[0].snippet: " in result.output
    assert says in result.output, result.output
