"""The progress store: durability, concurrency, recovery, migrations, export/import."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tutor.progress import LessonStatus, Outcome, ProgressError, ProgressStore
from tutor.progress.exchange import export_json, import_json
from tutor.progress.scheduler import ConceptScheduler
from tutor.progress.schema import LATEST_VERSION, MIGRATIONS

REPO = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent(
    """
    import sys
    from tutor.progress import ProgressStore
    from tutor.progress.scheduler import ConceptScheduler
    store = ProgressStore(data_dir=sys.argv[1])
    scheduler = ConceptScheduler(store)
    name, count = sys.argv[2], int(sys.argv[3])
    for i in range(count):
        attempt = scheduler.record(lesson_id=name, step_id=f"step-{i}", concepts=["shared", name],
                                   answer=str(i), outcome="correct" if i % 3 else "wrong")
        print(attempt.uid, flush=True)
    """
)


def spawn_writer(data_dir: Path, name: str, count: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(data_dir), name, str(count)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )


def test_attempts_survive_kill_9(tmp_path: Path) -> None:
    child = spawn_writer(tmp_path, "killed", 1_000_000)
    reported = [child.stdout.readline().strip() for _ in range(40)]
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
    with ProgressStore(data_dir=tmp_path) as store:
        assert store.recovered_from is None
        stored = {attempt.uid for attempt in store.attempts("killed")}
        assert set(reported) <= stored
        assert store.card("killed") is not None


def test_two_processes_write_at_once(tmp_path: Path) -> None:
    ProgressStore(data_dir=tmp_path).close()  # both children open an existing, migrated file
    children = [spawn_writer(tmp_path, name, 60) for name in ("left", "right")]
    outputs = [child.communicate(timeout=120)[0].split() for child in children]
    assert [child.returncode for child in children] == [0, 0]
    with ProgressStore(data_dir=tmp_path) as store:
        assert store.recovered_from is None
        for name, uids in zip(("left", "right"), outputs):
            assert {a.uid for a in store.attempts(name)} == set(uids) and len(uids) == 60
        counts = store.concept_counts()
        assert sum(counts["shared"].values()) == 120
        assert counts["left"] == {Outcome.CORRECT: 40, Outcome.WRONG: 20, Outcome.REVEALED: 0}
    conn = sqlite3.connect(tmp_path / "progress.sqlite3")
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def filled_store(data_dir: Path, attempts: int = 200) -> Path:
    with ProgressStore(data_dir=data_dir) as store:
        for i in range(attempts):
            store.record_attempt(lesson_id="l", step_id=f"s{i}", concepts=["sum"], answer="x" * 60, outcome="correct")
        return store.path


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: os.urandom(8192), id="garbage-bytes"),
        pytest.param(lambda data: data[: len(data) // 2], id="truncated-half"),
        pytest.param(lambda data: data[:60], id="truncated-header"),
        pytest.param(lambda data: b"SQLite format 3\x00" + b"\xff" * 4000, id="bad-header"),
    ],
)
def test_damaged_file_is_moved_aside_and_a_fresh_one_started(tmp_path: Path, damage) -> None:
    path = filled_store(tmp_path)
    damaged = damage(path.read_bytes())
    path.write_bytes(damaged)
    with ProgressStore(data_dir=tmp_path) as store:
        assert store.recovered_from is not None
        assert store.recovered_from.name.startswith("progress.sqlite3.damaged-")
        assert store.recovered_from.read_bytes() == damaged  # nothing lost: the old bytes are kept
        salvaged = store.attempts()  # what could still be read (tests/progress/test_progress_salvage.py)
        assert len(salvaged) == store.salvaged["attempts"] and {a.step_id for a in salvaged} <= {f"s{i}" for i in range(200)}
        store.record_attempt(lesson_id="l", step_id="s", concepts=[], answer=None, outcome="revealed")
    with ProgressStore(data_dir=tmp_path) as store:
        assert store.recovered_from is None and len(store.attempts()) == len(salvaged) + 1


def test_foreign_sqlite_file_is_moved_aside_not_modified(tmp_path: Path) -> None:
    path = tmp_path / "progress.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.commit()
    conn.close()
    with ProgressStore(data_dir=tmp_path) as store:
        assert store.recovered_from is not None
    assert sqlite3.connect(store.recovered_from).execute("SELECT text FROM notes").fetchall() == [("keep me",)]


def test_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = filled_store(tmp_path, attempts=3)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(ProgressError, match="newer autograd-tutor"):
        ProgressStore(data_dir=tmp_path)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.damaged-*"))


def test_unwritable_folder_gives_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ProgressError, match="--data-dir"):
        ProgressStore(data_dir=blocker / "data")


def test_migrates_a_version_1_database(tmp_path: Path) -> None:
    path = tmp_path / "progress.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0])
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO attempts (uid, lesson_id, step_id, concepts, answer, outcome, hints_used, duration_ms, at) "
        "VALUES ('u1', 'lesson', 'step', '[\"jacobian\", \"vjp\"]', '[1, 2]', 'wrong', 1, 2500, "
        "'2024-05-01T10:00:00.000000+00:00')"
    )
    conn.execute("INSERT INTO positions VALUES ('lesson', 'step', '2024-05-01T10:00:00.000000+00:00')")
    conn.commit()
    conn.close()
    with ProgressStore(path) as store:
        assert store.recovered_from is None
        [attempt] = store.attempts()
        assert attempt.concepts == ("jacobian", "vjp") and attempt.outcome is Outcome.WRONG
        assert attempt.at == datetime(2024, 5, 1, 10, tzinfo=timezone.utc)
        assert store.concept_counts()["vjp"][Outcome.WRONG] == 1  # back-filled by migration 2
        assert store.position("lesson") == "step"
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION


def test_migration_3_renames_skipped_to_revealed_and_keeps_every_row(tmp_path: Path) -> None:
    path = tmp_path / "progress.sqlite3"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:2]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 2")
    for i, outcome in enumerate(("correct", "skipped", "wrong")):
        conn.execute(
            "INSERT INTO attempts (id, uid, lesson_id, step_id, concepts, answer, outcome, hints_used, duration_ms, at) "
            f"VALUES ({10 + i}, 'u{i}', 'lesson', 's{i}', '[\"vjp\"]', NULL, '{outcome}', 0, NULL, "
            f"'2024-05-01T10:0{i}:00.000000+00:00')")
        conn.execute(f"INSERT INTO attempt_concepts VALUES ({10 + i}, 'vjp')")
    conn.commit()
    conn.close()
    with ProgressStore(path) as store:
        assert [a.outcome for a in store.attempts()] == [Outcome.CORRECT, Outcome.REVEALED, Outcome.WRONG]
        assert store.concept_counts()["vjp"] == {Outcome.CORRECT: 1, Outcome.REVEALED: 1, Outcome.WRONG: 1}
        store.record_attempt(lesson_id="lesson", step_id="s3", concepts=["vjp"], answer=None, outcome="revealed")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert [r[0] for r in conn.execute("SELECT id FROM attempts ORDER BY id")][:3] == [10, 11, 12]
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("DELETE FROM attempts WHERE id = 10")  # the cascade still points at the new table
    assert conn.execute("SELECT count(*) FROM attempt_concepts WHERE attempt_id = 10").fetchone()[0] == 0
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO attempts (uid, lesson_id, step_id, outcome, at) VALUES ('x', 'l', 's', 'skipped', 'now')")


def test_import_reads_skipped_from_files_exported_before_v3(tmp_path: Path) -> None:
    source = ProgressStore(data_dir=tmp_path / "a")
    source.record_attempt(lesson_id="l", step_id="s", concepts=["vjp"], answer=None, outcome="revealed")
    exported = tmp_path / "old.json"
    export_json(source, exported)
    source.close()
    data = json.loads(exported.read_text())
    data["attempts"][0]["outcome"] = "skipped"
    exported.write_text(json.dumps(data))
    with ProgressStore(data_dir=tmp_path / "b") as target:
        import_json(target, exported)
        assert [a.outcome for a in target.attempts()] == [Outcome.REVEALED]


def test_lesson_progress_positions_and_reset(tmp_path: Path) -> None:
    clock = iter(datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=i) for i in range(100))
    store = ProgressStore(data_dir=tmp_path, now=lambda: next(clock))
    steps = ["predict-a", "error-b"]
    assert store.lesson_progress("one", steps).status is LessonStatus.NEW
    store.save_position("one", "intro")
    assert store.lesson_progress("one", steps).status is LessonStatus.IN_PROGRESS
    store.record_attempt(lesson_id="one", step_id="predict-a", concepts=[], answer="1", outcome="wrong")
    store.record_attempt(lesson_id="one", step_id="predict-a", concepts=[], answer="2", outcome="correct")
    store.record_attempt(lesson_id="one", step_id="error-b", concepts=[], answer=None, outcome="revealed")
    progress = store.lesson_progress("one", steps)
    assert (progress.status, progress.solved, progress.total) == (LessonStatus.IN_PROGRESS, {"predict-a"}, 2)
    store.record_attempt(lesson_id="one", step_id="error-b", concepts=[], answer="none", outcome="correct")
    assert store.lesson_progress("one", steps).status is LessonStatus.DONE
    store.save_position("two", "start")
    store.save_position("one", "error-b")
    last = store.last_position()
    assert (last.lesson_id, last.step_id) == ("one", "error-b")
    assert store.reset_lesson("one") == 4
    assert store.lesson_progress("one", steps).status is LessonStatus.NEW
    assert store.attempts("one") == [] and store.position("two") == "start"


def test_renamed_lesson_keeps_its_progress_on_disk(tmp_path: Path) -> None:
    """A lesson whose id changed in its file: attempts, position and concept counts move to the new id,
    in the SQLite file itself (a fresh connection sees them); other lessons are untouched."""
    clock = iter(datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=i) for i in range(100))
    with ProgressStore(data_dir=tmp_path, now=lambda: next(clock)) as store:
        store.record_attempt(lesson_id="old", step_id="a", concepts=["vjp"], answer="1", outcome="correct")
        store.record_attempt(lesson_id="old", step_id="b", concepts=["vjp"], answer="2", outcome="wrong")
        store.record_attempt(lesson_id="other", step_id="a", concepts=[], answer="3", outcome="correct")
        store.save_position("old", "b")
        assert store.rename_lesson("old", "new") == 2
        assert store.rename_lesson("new", "new") == 0
    with ProgressStore(data_dir=tmp_path) as store:
        assert [a.step_id for a in store.attempts("new")] == ["a", "b"] and store.attempts("old") == []
        assert store.position("new") == "b" and store.position("old") is None
        assert store.lesson_progress("new", ["a", "b"]).solved == {"a"}
        assert [a.lesson_id for a in store.attempts("other")] == ["other"]
        assert store.concept_counts()["vjp"] == {Outcome.CORRECT: 1, Outcome.WRONG: 1, Outcome.REVEALED: 0}
        assert store.lesson_ids() == ["new", "other"]
    rows = sqlite3.connect(tmp_path / "progress.sqlite3").execute("SELECT DISTINCT lesson_id FROM attempts ORDER BY 1")
    assert rows.fetchall() == [("new",), ("other",)]


def test_renaming_onto_a_newer_position_keeps_the_newer_one(tmp_path: Path) -> None:
    clock = iter(datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=i) for i in range(100))
    with ProgressStore(data_dir=tmp_path, now=lambda: next(clock)) as store:
        store.save_position("old", "a")
        store.save_position("new", "c")  # later
        store.rename_lesson("old", "new")
        assert store.position("new") == "c" and store.position("old") is None


def test_export_import_round_trip_is_idempotent(tmp_path: Path) -> None:
    clock = [datetime(2024, 3, 1, 9, tzinfo=timezone.utc)]
    source = ProgressStore(tmp_path / "a.sqlite3", now=lambda: clock[0])
    scheduler = ConceptScheduler(source, now=lambda: clock[0], enable_fuzzing=False)
    scheduler.record(lesson_id="l", step_id="s1", concepts=["sum", "mean"], answer="[1, 1]", outcome="correct")
    scheduler.record(lesson_id="quiz", step_id="mean-scale#7", concepts=["mean"], answer="ほげ", outcome="wrong",
                     hints_used=2, duration_ms=4100)
    source.save_position("l", "s2")
    export = tmp_path / "out" / "progress.json"
    assert export_json(source, export) == 2

    target = ProgressStore(tmp_path / "b.sqlite3")
    target.record_attempt(lesson_id="other", step_id="x", concepts=["matmul"], answer=None, outcome="revealed")
    assert import_json(target, export) == {"attempts": 2, "positions": 1, "cards": 2}
    assert import_json(target, export) == {"attempts": 0, "positions": 0, "cards": 0}
    assert {a.uid for a in target.attempts()} >= {a.uid for a in source.attempts()}
    assert len(target.attempts()) == 3
    assert [a for a in target.attempts() if a.lesson_id != "other"] == source.attempts()
    assert target.cards() == source.cards()
    assert target.position("l") == "s2"
    assert target.concept_counts()["mean"] == {Outcome.CORRECT: 1, Outcome.WRONG: 1, Outcome.REVEALED: 0}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", r"not valid JSON \(line 1, column 2"),
        ('{"format": "something-else", "version": 1}', "not an autograd-tutor progress export"),
        ('{"format": "autograd-tutor-progress", "version": 99}', "export version 99"),
        ('{"format": "autograd-tutor-progress", "version": 1, "attempts": {}}', "attempts: expected a list"),
        (
            '{"format": "autograd-tutor-progress", "version": 1, "attempts": [{"uid": "u", "lesson_id": "l", '
            '"step_id": "s", "concepts": [], "outcome": "maybe", "hints_used": 0, "at": "2024-01-01T00:00:00+00:00"}]}',
            r"attempts\[0\]\.outcome: expected one of correct, wrong, revealed",
        ),
        (
            '{"format": "autograd-tutor-progress", "version": 1, "positions": [{"lesson_id": "l", "step_id": "s", '
            '"updated_at": "yesterday"}]}',
            r"positions\[0\]\.updated_at: not a timezone-aware ISO 8601 time",
        ),
        (
            '{"format": "autograd-tutor-progress", "version": 1, "cards": [{"key": "k", "card": {"due": 1}, '
            '"updated_at": "2024-01-01T00:00:00+00:00"}]}',
            r"cards\[0\]\.card: not a scheduler card",
        ),
    ],
)
def test_import_rejects_bad_files_without_changing_anything(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    with ProgressStore(data_dir=tmp_path) as store:
        with pytest.raises(ProgressError, match=message) as caught:
            import_json(store, bad)
        assert str(bad) in str(caught.value)
        assert store.attempts() == [] and store.cards() == {}


def test_import_of_a_missing_file(tmp_path: Path) -> None:
    with ProgressStore(data_dir=tmp_path) as store, pytest.raises(ProgressError, match="no such file"):
        import_json(store, tmp_path / "missing.json")


def test_export_is_plain_json_with_utc_times(tmp_path: Path) -> None:
    with ProgressStore(data_dir=tmp_path) as store:
        store.record_attempt(lesson_id="l", step_id="s", concepts=["sum"], answer="1", outcome="correct",
                             at=datetime(2024, 6, 1, 12, tzinfo=timezone(timedelta(hours=9))))
        export_json(store, tmp_path / "e.json")
    data = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    assert data["format"] == "autograd-tutor-progress" and data["version"] == 1
    assert data["attempts"][0]["at"] == "2024-06-01T03:00:00.000000+00:00"
