"""Diagnosed misconceptions are remembered: stored with the attempt (an old database migrates), exported
and imported, counted for the stats screen, reviewed by the quiz scheduler, aggregated in `class report`."""
from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tutor.progress import ProgressStore
from tutor.progress.exchange import export_json, import_json
from tutor.progress.model import Outcome
from tutor.progress.schema import LATEST_VERSION, MIGRATIONS
from tutor.progress.stats import misconception_stats

AT = datetime(2025, 5, 1, 9, 0, tzinfo=timezone.utc)


def _record(store, step="mean-grad", misconception="mean-without-n", minutes=0, lesson="trying-autograd"):
    return store.record_attempt(lesson_id=lesson, step_id=step, concepts=["mean-gradient"], answer="[[7, 8, 9]]",
                                outcome="wrong", at=AT + timedelta(minutes=minutes), misconception=misconception)


def test_a_version_3_database_migrates_and_keeps_its_attempts(tmp_path: Path) -> None:
    path = tmp_path / "progress.sqlite3"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:3]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 3")
    conn.execute("INSERT INTO attempts (uid, lesson_id, step_id, concepts, answer, outcome, hints_used, duration_ms, at) "
                 "VALUES ('u1', 'l', 's', '[]', '1', 'wrong', 0, NULL, '2024-05-01T10:00:00.000000+00:00')")
    conn.commit()
    conn.close()
    with ProgressStore(path) as store:
        [old] = store.attempts()
        assert old.uid == "u1" and old.misconception is None
        _record(store)
        assert [a.misconception for a in store.attempts()] == [None, "mean-without-n"]
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION >= 4


def test_export_and_import_carry_the_diagnosis_and_old_files_still_import(tmp_path: Path) -> None:
    with ProgressStore(tmp_path / "a.sqlite3") as store:
        _record(store)
        store.record_attempt(lesson_id="l", step_id="s", concepts=[], answer="1", outcome="correct", at=AT)
        export_json(store, tmp_path / "out.json")
    document = json.loads((tmp_path / "out.json").read_text())
    assert sorted(str(a["misconception"]) for a in document["attempts"]) == ["None", "mean-without-n"]
    with ProgressStore(tmp_path / "b.sqlite3") as store:
        import_json(store, tmp_path / "out.json")
        assert sorted(str(a.misconception) for a in store.attempts()) == ["None", "mean-without-n"]
    for attempt in document["attempts"]:  # a file written before the field existed
        del attempt["misconception"]
        attempt["uid"] += "-old"
    (tmp_path / "old.json").write_text(json.dumps(document))
    with ProgressStore(tmp_path / "c.sqlite3") as store:
        import_json(store, tmp_path / "old.json")
        assert {a.misconception for a in store.attempts()} == {None}


def test_stats_count_each_misconception_and_where_it_was_seen_last(tmp_path: Path) -> None:
    with ProgressStore(tmp_path / "p.sqlite3") as store:
        _record(store, minutes=0)
        _record(store, step="bias-mean", lesson="broadcasting-gradients", minutes=5)
        _record(store, misconception="wrong-dim", step="column-means", lesson="reduction-gradients", minutes=1)
        store.record_attempt(lesson_id="l", step_id="s", concepts=[], answer="1", outcome="wrong", at=AT)
        rows = misconception_stats(store.attempts())
    assert [(r.misconception, r.count, r.last_lesson, r.last_step) for r in rows] == [
        ("mean-without-n", 2, "broadcasting-gradients", "bias-mean"), ("wrong-dim", 1, "reduction-gradients", "column-means")]


def test_the_scheduler_brings_back_the_concepts_that_practise_a_diagnosed_misconception(tmp_path: Path) -> None:
    from lessons.misconceptions import CATALOGUE
    from tutor.progress.scheduler import ConceptScheduler

    with ProgressStore(tmp_path / "p.sqlite3") as store:
        scheduler = ConceptScheduler(store, now=lambda: AT)
        attempt = scheduler.record(lesson_id="quiz", step_id="t#1", concepts=["vjp"], answer="1", outcome=Outcome.WRONG,
                                   misconception="wrong-dim")
        assert attempt.misconception == "wrong-dim"
        reviewed = {key for key, _ in store.snapshot().cards.items()}
    assert reviewed == {"vjp", *CATALOGUE["wrong-dim"].concepts}


def test_class_report_says_how_many_students_hold_each_misconception_where(tmp_path: Path) -> None:
    from lessons.course import load_course
    from tutor.classroom.folder import ClassFolder
    from tutor.classroom.report import build_report

    folder = ClassFolder(tmp_path / "class")
    for name, misconception in (("Alice", "mean-without-n"), ("Bob", "mean-without-n"), ("Chloé", None)):
        with ProgressStore(folder.student(name, create=True).database) as store:
            _record(store, misconception=misconception)
            _record(store, misconception=misconception, minutes=1)  # twice: still one student
    report = build_report(folder.path, course=load_course((), user_dir=None))
    assert [(row.misconception, row.students) for row in report.misconceptions] == [("mean-without-n", ("Alice", "Bob"))]
    assert report.misconception_lines("en") == ["2 of 3 students: mean without 1/n, on Trying autograd › 6. mean-grad"]
    assert report.misconception_lines("ja") == ["3 人中 2 人: 1/n を忘れた平均（Autograd を試す › 6. mean-grad）"]
    assert report.to_json()["misconceptions"][0]["misconception"] == "mean-without-n"
