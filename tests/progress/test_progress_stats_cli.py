"""Statistics for the Stats screen, and the `autograd-tutor progress` command."""
from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from click.testing import CliRunner

from tutor.cli import main
from tutor.progress import ProgressStore
from tutor.progress.scheduler import CardState, ConceptScheduler
from tutor.progress.stats import accuracy_over_time, concept_stats, streak

UTC = timezone.utc
JST = timezone(timedelta(hours=9))


def store_with_history(tmp_path: Path) -> ProgressStore:
    store = ProgressStore(data_dir=tmp_path)
    history = [  # (day of June 2024, hour UTC, concept, outcome)
        (1, 10, "vjp", "correct"), (1, 11, "vjp", "wrong"), (2, 10, "matmul", "correct"),
        (3, 16, "vjp", "correct"),  # 01:00 on the 4th in Japan
        (6, 10, "vjp", "revealed"), (7, 10, "matmul", "correct"),
    ]
    for day, hour, concept, outcome in history:
        store.record_attempt(lesson_id="quiz", step_id=f"{concept}#{day}", concepts=[concept, "chain-rule"],
                             answer="1", outcome=outcome, at=datetime(2024, 6, day, hour, tzinfo=UTC))
    return store


def test_streaks_count_local_days(tmp_path: Path) -> None:
    attempts = store_with_history(tmp_path).attempts()
    assert streak(attempts, date(2024, 6, 7), UTC) == streak(attempts, date(2024, 6, 8), UTC)
    assert (streak(attempts, date(2024, 6, 7), UTC).current, streak(attempts, date(2024, 6, 7), UTC).longest) == (2, 3)
    assert streak(attempts, date(2024, 6, 9), UTC).current == 0
    in_japan = streak(attempts, date(2024, 6, 7), JST)  # 1, 2, 4 | 6, 7
    assert (in_japan.current, in_japan.longest) == (2, 2)


def test_accuracy_over_time(tmp_path: Path) -> None:
    attempts = store_with_history(tmp_path).attempts()
    series = accuracy_over_time(attempts, UTC)
    assert [(p.day.day, p.attempts, p.correct) for p in series] == [(1, 2, 1), (2, 1, 1), (3, 1, 1), (6, 1, 0), (7, 1, 1)]
    assert series[0].accuracy == 0.5
    assert [p.day.day for p in accuracy_over_time(attempts, UTC, concept="matmul")] == [2, 7]


def test_concept_stats_in_review_order(tmp_path: Path) -> None:
    clock = lambda: datetime(2024, 6, 10, tzinfo=UTC)  # noqa: E731
    store = store_with_history(tmp_path)
    scheduler = ConceptScheduler(store, now=clock, enable_fuzzing=False)
    scheduler.record(lesson_id="l", step_id="s", concepts=["softmax"], answer="1", outcome="correct")
    stats = {s.concept: s for s in concept_stats(scheduler)}
    vjp = stats["vjp"]
    assert (vjp.correct, vjp.wrong, vjp.revealed, vjp.attempts) == (2, 1, 1, 4) and vjp.accuracy == 0.5
    assert stats["chain-rule"].attempts == 6
    assert vjp.state is CardState.NEW and vjp.due is None  # recorded without the scheduler: no card
    assert stats["softmax"].state is CardState.SCHEDULED and stats["softmax"].due > clock()
    assert [s.concept for s in concept_stats(scheduler)][-1] == "softmax"


def test_progress_command_summary_export_import(tmp_path: Path) -> None:
    store_with_history(tmp_path / "a").close()
    runner = CliRunner()
    result = runner.invoke(main, ["progress", "--data-dir", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert "Attempts: 6, 4 correct (67%)" in result.output
    assert "vjp" in result.output and "Lessons:" in result.output

    export = tmp_path / "progress.json"
    result = runner.invoke(main, ["--data-dir", str(tmp_path / "a"), "progress", "--export", str(export)])
    assert result.exit_code == 0 and "Exported 6 attempts" in result.output
    assert len(json.loads(export.read_text(encoding="utf-8"))["attempts"]) == 6

    for expected in ("6 new attempts", "0 new attempts"):
        result = runner.invoke(main, ["progress", "--data-dir", str(tmp_path / "b"), "--import", str(export)])
        assert result.exit_code == 0 and expected in result.output
    with ProgressStore(data_dir=tmp_path / "b") as copy:
        assert len(copy.attempts()) == 6


def test_progress_command_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    result = runner.invoke(main, ["progress", "--data-dir", str(tmp_path), "--import", str(bad)])
    assert result.exit_code == 1 and "not valid JSON" in result.output and "Traceback" not in result.output
    result = runner.invoke(main, ["progress", "--data-dir", str(tmp_path), "--import", "a.json", "--export", "b.json"])
    assert result.exit_code == 2 and "not both" in result.output


def test_progress_command_reports_a_recovered_file(tmp_path: Path) -> None:
    (tmp_path / "progress.sqlite3").write_bytes(b"\x00garbage" * 500)
    result = CliRunner().invoke(main, ["progress", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0
    assert "was damaged: 0 answers were saved into a fresh one. The damaged file is kept as" in result.output
    assert list(tmp_path.glob("progress.sqlite3.damaged-*"))


def test_progress_data_dir_reads_that_folders_lessons(tmp_path: Path, monkeypatch) -> None:
    """`progress --data-dir D` counts D/lessons, whatever $AUTOGRAD_TUTOR_DATA_DIR says."""
    monkeypatch.setenv("AUTOGRAD_TUTOR_DATA_DIR", str(tmp_path / "elsewhere"))
    folder = tmp_path / "class"
    (folder / "lessons").mkdir(parents=True)
    fixture = Path(__file__).parents[1] / "app" / "fixtures" / "course" / "squares.toml"
    (folder / "lessons" / "squares.toml").write_text(fixture.read_text(encoding="utf-8"), encoding="utf-8")
    with ProgressStore(data_dir=folder) as store:
        store.record_attempt(lesson_id="fixture-squares", step_id="predict-grad", concepts=["vjp"], answer="1",
                             outcome="correct")
    result = CliRunner().invoke(main, ["progress", "--data-dir", str(folder)])
    assert result.exit_code == 0, result.output
    assert "fixture-squares: Squares and their gradients" in result.output
    assert "not in the course" not in result.output
