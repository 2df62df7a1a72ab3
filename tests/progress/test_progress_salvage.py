"""A damaged progress database is salvaged row by row into a fresh file (the damaged one kept beside it,
the learner told how many answers were kept, in English and Japanese); a malformed value skips its row
with a warning instead of crashing `progress`, the app's resume or a served student's tutor."""
from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

from click.testing import CliRunner

from tutor.cli import main
from tutor.progress import ProgressStore

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _store_with_300_attempts(data_dir: Path) -> tuple[Path, list]:
    with ProgressStore(data_dir=data_dir) as store:
        for i in range(300):
            store.record_attempt(lesson_id=f"l{i % 7}", step_id=f"s{i}", concepts=["vjp", f"c{i % 5}"],
                                 answer=str(i), outcome="correct" if i % 3 else "wrong", at=START + timedelta(minutes=i))
        store.save_position("l1", "s1")
        attempts = store.attempts()
    return store.path, attempts


def _overwrite_page(path: Path, name: str, page: str = "root") -> int:
    """Overwrite one page of the table or index `name` with garbage (its root, or its last page)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root, = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    size, = conn.execute("PRAGMA page_size").fetchone()
    if page == "last":  # a leaf of the table: the last page the table uses
        root = max(n for n, in conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (name,)))
    conn.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * size:root * size] = bytes((i * 37 + 11) % 256 for i in range(size))
    path.write_bytes(bytes(data))
    return root


def test_a_damaged_index_page_loses_no_attempt(tmp_path):
    path, attempts = _store_with_300_attempts(tmp_path)
    _overwrite_page(path, "attempts_by_time")
    damaged = path.read_bytes()
    with ProgressStore(data_dir=tmp_path) as store:
        assert store.recovered_from is not None and store.recovered_from.read_bytes() == damaged  # kept beside
        assert store.salvaged == {"attempts": 300, "positions": 1, "cards": 0}
        assert store.attempts() == attempts and store.last_position().lesson_id == "l1"
        assert {c: sum(counts.values()) for c, counts in store.concept_counts().items()}["vjp"] == 300
        assert sqlite3.connect(store.path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_damaged_table_page_keeps_every_other_row(tmp_path):
    path, attempts = _store_with_300_attempts(tmp_path)
    _overwrite_page(path, "attempts", page="last")
    with ProgressStore(data_dir=tmp_path) as store:
        kept = store.attempts()
        assert 0 < len(kept) < 300 and store.salvaged["attempts"] == len(kept)
        assert all(attempt in attempts for attempt in kept)


def test_the_learner_is_told_how_many_answers_were_kept_in_english_and_japanese(tmp_path):
    for lang, expected, summary in (("en", "300 answers were saved into a fresh one", "Attempts: 300"),
                                    ("ja", "300 件の解答を新しいファイルに移しました", "解答 300 回")):
        data_dir = tmp_path / lang
        path, _ = _store_with_300_attempts(data_dir)
        _overwrite_page(path, "attempts_by_lesson")
        result = CliRunner().invoke(main, ["--lang", lang, "--data-dir", str(data_dir), "progress"])
        assert result.exit_code == 0 and expected in result.output, result.output
        assert "progress.sqlite3.damaged-" in result.output and summary in result.output


def _malformed(data_dir: Path) -> Path:
    """A store whose newest position and one attempt have a malformed timestamp, and one card is not JSON."""
    path, _ = _store_with_300_attempts(data_dir)
    with ProgressStore(data_dir=data_dir) as store:
        store.save_position("l2", "s2")
        store.put_card("vjp", '{"card_id": 1, "state": 1, "step": 0, "stability": null, "difficulty": null, '
                              '"due": "2024-01-01T00:00:00+00:00", "last_review": null}')
        store.put_card("broken", "{not json")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE attempts SET at = '2024-02-30T99:00:00+00:00' WHERE step_id = 's5'")
    conn.execute("UPDATE positions SET updated_at = 'the day after tomorrow~' WHERE lesson_id = 'l2'")
    conn.commit()
    conn.close()
    return path


def test_a_malformed_value_skips_its_row_with_a_warning(tmp_path):
    _malformed(tmp_path)
    with ProgressStore(data_dir=tmp_path) as store:
        assert len(store.attempts()) == 299 and "s5" not in {a.step_id for a in store.attempts()}
        assert store.last_position().lesson_id == "l1"  # the newest readable position
        assert set(store.cards()) == {"vjp"} and store.card("broken") is None
        snapshot = store.snapshot()
        assert len(snapshot.attempts) == 299 and [p.lesson_id for p in snapshot.positions] == ["l1"]
        assert len(store.skipped) == 3 and all(str(store.path) in str(note) for note in store.skipped)
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "progress"])
    assert result.exit_code == 0 and "Attempts: 299" in result.output, result.output
    assert "2 records in your progress file could not be read and were skipped" in result.output  # (no position read)
    assert "an attempt with a malformed value was skipped (day is out of range for month)" in result.output
    japanese = CliRunner().invoke(main, ["--lang", "ja", "--data-dir", str(tmp_path), "progress"]).output
    assert "値の壊れた解答を読み飛ばしました（day is out of range for month）" in japanese  # (Python's words, quoted)
    assert "with a malformed value" not in japanese


async def test_the_app_resumes_past_a_malformed_position(tmp_path, monkeypatch):
    from tutor.app import TutorApp
    from tutor.screens.lesson import LessonScreen

    data_dir = tmp_path / "data"
    monkeypatch.setenv("AUTOGRAD_TUTOR_DATA_DIR", str(data_dir))
    path, _ = _store_with_300_attempts(data_dir)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM positions")
    conn.execute("INSERT INTO positions VALUES ('trying-autograd', 'mean-grad', '2024-01-01T00:00:00+00:00')")
    conn.execute("INSERT INTO positions VALUES ('nowhere', 'x', 'not a time at all')")
    conn.commit()
    conn.close()
    app = TutorApp(lang="ja", data_dir=data_dir)
    told = []  # (a notification's timeout may pass while a loaded machine opens the lesson)
    notify = app.notify
    monkeypatch.setattr(app, "notify", lambda message, **options: told.append(message) or notify(message, **options))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.lesson.id == "trying-autograd"
        assert any("1 件が読めなかったため" in message for message in told)
