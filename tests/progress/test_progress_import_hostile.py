"""Hostile `progress --import` files: each gets a clear message naming the file and the problem (exit 1),
never a traceback, a hang or unbounded memory, and nothing is imported."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tutor.cli import main
from tutor.progress import ProgressStore

REPO = Path(__file__).resolve().parents[2]
AT = "2024-01-01T00:00:00+00:00"


def _export(attempt: dict | None = None, card: dict | None = None, position: dict | None = None) -> str:
    document = {"format": "autograd-tutor-progress", "version": 1, "attempts": [], "positions": [], "cards": []}
    if attempt is not None:
        document["attempts"] = [{"uid": "u1", "lesson_id": "l", "step_id": "s", "concepts": ["vjp"], "answer": "1",
                                 "outcome": "correct", "hints_used": 0, "duration_ms": 5, "at": AT, **attempt}]
    if card is not None:
        document["cards"] = [{"key": "vjp", "updated_at": AT,
                              "card": {"card_id": 1, "state": 1, "step": 0, "stability": None, "difficulty": None,
                                       "due": AT, "last_review": None, **card}}]
    if position is not None:
        document["positions"] = [{"lesson_id": "l", "step_id": "s", "updated_at": AT, **position}]
    return json.dumps(document)


HOSTILE = {
    # name: (file text, fragment of the message after "<file>: ")
    "deep_nesting": ('{"format": "autograd-tutor-progress", "version": 1, "attempts": ' + "[" * 100_000,
                     "nests far deeper than an export does"),
    "moderately_deep": (_export({"answer": 7}).replace('"answer": 7', '"answer": ' + "[" * 500 + "]" * 500),
                        "its JSON nests more than 8 deep"),
    "5000_digit_int": (_export({"hints_used": 7}).replace('"hints_used": 7', '"hints_used": ' + "9" * 5000),
                       "a number in it is far too long"),
    "2_to_the_70": (_export({"hints_used": 2**70}), "attempts[0].hints_used: expected a count from 0 to 2**53"),
    "negative_duration": (_export({"duration_ms": -5}), "attempts[0].duration_ms: expected a count"),
    "lone_surrogate": (_export({"lesson_id": "a\ud800b"}), "attempts[0].lesson_id: not valid Unicode"),
    "surrogate_concept": (_export({"concepts": ["\udfff"]}), "attempts[0].concepts[0]: not valid Unicode"),
    "month_13": (_export({"at": "2024-13-01T00:00:00+00:00"}), "attempts[0].at: not a timezone-aware ISO 8601"),
    "no_timezone": (_export(position={"updated_at": "2024-01-01T00:00:00"}),
                    "positions[0].updated_at: not a timezone-aware ISO 8601"),
    "year_1_overflow": (_export({"at": "0001-01-01T00:00:00+14:00"}), "attempts[0].at: not a timezone-aware"),
    "year_9999": (_export({"at": "9999-12-31T23:59:59+00:00"}), "attempts[0].at: the time 9999-12-31"),
    "nan_stability": (_export(card={"stability": float("nan")}), "cards[0].card: not a scheduler card: stability"),
    "naive_due": (_export(card={"due": "2024-01-01T00:00:00"}), "cards[0].card: not a scheduler card: due"),
    "step_list": (_export(card={"step": [[1]]}), "cards[0].card: not a scheduler card: step"),
    "huge_answer": (_export({"answer": "1" * 200_000}), "attempts[0].answer: a text of 200000 characters"),
    "not_utf8": ("\udcff", "not UTF-8 text"),
}


def _import(data_dir: Path, path: Path):
    result = CliRunner().invoke(main, ["--data-dir", str(data_dir), "progress", "--import", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_import_has_its_message_and_imports_nothing(tmp_path, name):
    text, fragment = HOSTILE[name]
    path = tmp_path / f"{name}.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    result = _import(tmp_path / "data", path)
    assert result.exit_code == 1 and f"{path}: " in result.output and fragment in result.output, result.output
    with ProgressStore(data_dir=tmp_path / "data") as store:
        assert store.attempts() == [] and store.cards() == {} and store.last_position() is None


def test_a_good_export_still_imports(tmp_path):
    path = tmp_path / "good.json"
    path.write_text(_export({}, card={}, position={}), encoding="utf-8")
    result = _import(tmp_path / "data", path)
    assert result.exit_code == 0 and "1 new attempts, 1 lesson positions, 1 review cards" in result.output


def test_devices_and_folders_are_refused_unread(tmp_path):
    for path in (Path("/dev/zero"), Path("/dev/null")):
        result = _import(tmp_path / "data", path)
        assert result.exit_code == 1 and f"{path}: not a regular file" in result.output, result.output


def test_an_oversized_file_is_refused_unread(tmp_path, monkeypatch):
    from tutor.progress import exchange

    monkeypatch.setattr(exchange, "MAX_IMPORT_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_text(_export({"answer": "1" * 2000}), encoding="utf-8")
    result = _import(tmp_path / "data", path)
    assert result.exit_code == 1 and "an export is at most" in result.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_by_the_real_command_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "progress.json"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "tutor", "--data-dir", str(tmp_path / "data"), "progress",
                           "--import", str(fifo)], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 1 and f"{fifo}: not a regular file" in done.stderr, done.stderr
