"""The SQLite progress store: attempts, lesson positions and scheduler cards.

Durability rules, because learners come back over weeks:
- every attempt is committed in its own transaction the moment it is recorded
  (WAL journal, synchronous=FULL), so quitting, a crash or `kill -9` loses
  nothing already answered;
- WAL mode plus a busy timeout lets two tutor processes write at once;
- a damaged file is never overwritten: it is renamed to
  `progress.sqlite3.damaged-<UTC timestamp>` (with its -wal/-shm), a fresh
  database is started, every row still readable in the damaged one is salvaged
  into it (table by table in rowid order, jumping past damaged pages), and
  `recovered_from` and `salvaged` tell the app where the old one is and what was kept;
- a row with a malformed value (a timestamp, an outcome, a card) is skipped, never
  a crash: `skipped` lists each one, for the learner to be told;
- a file written by a newer tutor (a schema we don't know) is refused with a
  clear `ProgressError` instead of being "repaired".
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from tutor.paths import database_path
from tutor.progress.model import (
    Attempt,
    LessonProgress,
    LessonStatus,
    Outcome,
    Position,
    ProgressError,
    Snapshot,
    from_iso,
    to_iso,
    utc_now,
)
from tutor.progress.schema import LATEST_VERSION, MIGRATIONS

BUSY_TIMEOUT_MS = 10_000
GRADABLE_KINDS = ("predict", "error", "choice")
_ATTEMPT_COLUMNS = "uid, lesson_id, step_id, concepts, answer, outcome, hints_used, duration_ms, at, misconception"
_ATTEMPT_COLUMNS_V3 = _ATTEMPT_COLUMNS.rsplit(", ", 1)[0]  # a damaged file from before schema v4
_OLD_OUTCOMES = {"skipped": Outcome.REVEALED.value}  # schema v1 and v2 called "show answer" `skipped`
_log = logging.getLogger(__name__)

# Called with (card key, stored card JSON or None), returns the new card JSON.
CardUpdate = Callable[[str, str | None], str]


class _Damaged(Exception):
    """The file is not a readable progress database (internal: triggers recovery)."""


def _is_damage(error: sqlite3.DatabaseError) -> bool:
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


class ProgressStore:
    """A learner's progress, in one SQLite file.

    Open it with `ProgressStore(data_dir=...)` (the `--data-dir` override, else
    $AUTOGRAD_TUTOR_DATA_DIR, else the platform's data directory) or with an
    explicit `path`. Check `recovered_from` after opening and tell the learner.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        self.path = Path(path) if path is not None else database_path(data_dir)
        self.now = now
        self.recovered_from: Path | None = None
        self.salvaged: dict[str, int] | None = None  # rows kept from the damaged file, by table
        self.skipped: list[ProgressError] = []  # rows left out because a value in them is malformed (`said`)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ProgressError("store_no_folder", folder=self.path.parent, reason=error.strerror) from error
        self._conn = self._open()

    # ----------------------------------------------------------------- opening

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect_and_migrate()
        except _Damaged:
            self.recovered_from = self._move_aside()
            try:
                conn = self._connect_and_migrate()
            except _Damaged as error:  # a fresh file cannot be damaged; the folder is the problem
                raise ProgressError("store_cannot_start", path=self.path, reason=error) from error
            try:
                self.salvaged = _salvage(self.recovered_from, conn)
            except BaseException:
                conn.close()
                raise
            return conn

    def _connect_and_migrate(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as error:
            raise ProgressError("store_cannot_open", path=self.path, reason=error) from error
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise _Damaged("integrity check failed")
            self._migrate(conn)
        except sqlite3.DatabaseError as error:
            conn.close()
            if _is_damage(error):
                raise _Damaged(str(error)) from error
            raise ProgressError("store_cannot_use", path=self.path, reason=error) from error
        except BaseException:
            conn.close()
            raise
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        with _immediate(conn):
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > LATEST_VERSION:
                raise ProgressError("store_newer", path=self.path, version=version, latest=LATEST_VERSION)
            if version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise _Damaged("an SQLite file that is not an autograd-tutor progress database")
            for step in range(version, LATEST_VERSION):
                for statement in _statements(MIGRATIONS[step]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {step + 1}")

    def _move_aside(self) -> Path:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        target = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        counter = 1
        while target.exists():
            counter += 1
            target = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{counter}")
        try:
            for suffix in ("-wal", "-shm", ""):  # the main file last: it is what marks "damaged"
                source = Path(f"{self.path}{suffix}")
                if source.exists():
                    source.replace(f"{target}{suffix}")
        except OSError as error:
            raise ProgressError("store_damaged_stuck", path=self.path, reason=error.strerror) from error
        return target

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ProgressStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        try:
            with _immediate(self._conn):
                yield self._conn
        except sqlite3.Error as error:
            raise ProgressError("store_cannot_save", path=self.path, reason=error) from error

    def _read(self, sql: str, params: Iterable[object] = ()) -> list[tuple]:
        try:
            return self._conn.execute(sql, tuple(params)).fetchall()
        except sqlite3.Error as error:
            raise ProgressError("store_cannot_read", path=self.path, reason=error) from error

    # ----------------------------------------------------------------- attempts

    def record_attempt(
        self,
        *,
        lesson_id: str,
        step_id: str,
        concepts: Iterable[str],
        answer: str | None,
        outcome: Outcome | str,
        hints_used: int = 0,
        duration_ms: int | None = None,
        at: datetime | None = None,
        update_cards: CardUpdate | None = None,
        card_keys: Iterable[str] | None = None,
        misconception: str | None = None,
    ) -> Attempt:
        """Record one attempt, committed before this returns.

        `update_cards`, if given, is applied to each of `card_keys` (default: the
        concepts) inside the same transaction, so an attempt and the scheduling
        it causes are saved together or not at all, even with two processes.
        """
        attempt = Attempt(
            uid=uuid.uuid4().hex,
            lesson_id=lesson_id,
            step_id=step_id,
            concepts=tuple(dict.fromkeys(concepts)),
            answer=answer,
            outcome=Outcome(outcome),
            hints_used=int(hints_used),
            duration_ms=None if duration_ms is None else int(duration_ms),
            at=(at or self.now()).astimezone(timezone.utc),
            misconception=misconception,
        )
        with self._write() as conn:
            _insert_attempt(conn, attempt)
            if update_cards is not None:
                keys = attempt.concepts if card_keys is None else tuple(card_keys)
                for key in keys:
                    row = conn.execute("SELECT card FROM cards WHERE key = ?", (key,)).fetchone()
                    _put_card(conn, key, update_cards(key, row[0] if row else None), attempt.at)
        return attempt

    def attempts(self, lesson_id: str | None = None) -> list[Attempt]:
        """Attempts in the order they were made (all, or one lesson's)."""
        where, params = ("WHERE lesson_id = ?", (lesson_id,)) if lesson_id is not None else ("", ())
        rows = self._read(f"SELECT {_ATTEMPT_COLUMNS} FROM attempts {where} ORDER BY at, id", params)
        return self._decoded(rows, _attempt, "store_what_attempt")

    def concept_counts(self) -> dict[str, dict[Outcome, int]]:
        """For each concept, how many attempts ended in each outcome."""
        counts: dict[str, dict[Outcome, int]] = {}
        rows = self._read(
            "SELECT concept, outcome, count(*) FROM attempt_concepts "
            "JOIN attempts ON attempts.id = attempt_id GROUP BY concept, outcome ORDER BY concept"
        )
        for concept, outcome, count in rows:
            if outcome in {o.value for o in Outcome}:  # another is skipped, like its rows in `attempts()`
                counts.setdefault(concept, {o: 0 for o in Outcome})[Outcome(outcome)] = count
        return counts

    # ----------------------------------------------------------------- lessons

    def save_position(self, lesson_id: str, step_id: str) -> None:
        """Remember the step the learner is on, to resume there."""
        with self._write() as conn:
            _put_position(conn, lesson_id, step_id, self.now())

    def position(self, lesson_id: str) -> str | None:
        rows = self._read("SELECT step_id FROM positions WHERE lesson_id = ?", (lesson_id,))
        return rows[0][0] if rows and isinstance(rows[0][0], str) else None

    def last_position(self) -> Position | None:
        """The lesson and step the learner visited most recently, to resume the course."""
        rows = self._read("SELECT lesson_id, step_id, updated_at FROM positions ORDER BY updated_at DESC")
        for position in self._decoded(rows, _position, "store_what_position"):  # the newest readable one
            return position
        return None

    def lesson_progress(self, lesson_id: str, gradable_step_ids: Iterable[str]) -> LessonProgress:
        """New / in progress / done for one lesson.

        Done means every gradable (predict, error, choice) step was answered
        correctly at least once; a lesson with no gradable step is done once
        visited. The app passes the lesson's gradable step ids.
        """
        gradable = frozenset(gradable_step_ids)
        solved = frozenset(
            step for (step,) in self._read(
                "SELECT DISTINCT step_id FROM attempts WHERE lesson_id = ? AND outcome = 'correct'", (lesson_id,)
            )
        ) & gradable
        touched = bool(
            self._read("SELECT 1 FROM attempts WHERE lesson_id = ? LIMIT 1", (lesson_id,))
            or self.position(lesson_id) is not None
        )
        if touched and solved == gradable:
            status = LessonStatus.DONE
        elif touched:
            status = LessonStatus.IN_PROGRESS
        else:
            status = LessonStatus.NEW
        return LessonProgress(status, solved, len(gradable))

    def lesson_ids(self) -> list[str]:
        """Every lesson with an attempt or a saved position (quiz attempts excluded by the caller)."""
        rows = self._read("SELECT lesson_id FROM attempts UNION SELECT lesson_id FROM positions ORDER BY 1")
        return [lesson for (lesson,) in rows]

    def reset_lesson(self, lesson_id: str) -> int:
        """Forget a lesson's attempts and position (the app confirms first); returns attempts deleted.

        Concept cards are kept: they summarise every lesson and quiz that used the concept.
        """
        with self._write() as conn:
            deleted = conn.execute("DELETE FROM attempts WHERE lesson_id = ?", (lesson_id,)).rowcount
            conn.execute("DELETE FROM positions WHERE lesson_id = ?", (lesson_id,))
        return deleted

    def rename_lesson(self, old_id: str, new_id: str) -> int:
        """Move a lesson's attempts and position to its new id (its author changed the id in the file),
        in one transaction; returns the attempts moved. A position already saved under the new id is
        replaced only by a newer one, as an import would."""
        if old_id == new_id:
            return 0
        with self._write() as conn:
            moved = conn.execute("UPDATE attempts SET lesson_id = ? WHERE lesson_id = ?", (new_id, old_id)).rowcount
            row = conn.execute("SELECT step_id, updated_at FROM positions WHERE lesson_id = ?", (old_id,)).fetchone()
            if row is not None:
                try:
                    moved_at = from_iso(row[1])
                except (TypeError, ValueError, OverflowError):  # a malformed time: the move happens now
                    moved_at = self.now()
                _put_position(conn, new_id, row[0], moved_at, only_if_newer=True)
                conn.execute("DELETE FROM positions WHERE lesson_id = ?", (old_id,))
        return moved

    # ----------------------------------------------------------------- cards

    def card(self, key: str) -> str | None:
        """The stored scheduler card (fsrs `Card.to_json()`) for a concept, if any (a malformed one counts
        as none: the concept starts again)."""
        rows = self._read("SELECT key, card, updated_at FROM cards WHERE key = ?", (key,))
        return next((card for _, (card, _) in self._decoded(rows, _card, "store_what_card")), None)

    def cards(self) -> dict[str, str]:
        rows = self._read("SELECT key, card, updated_at FROM cards ORDER BY key")
        return {key: card for key, (card, _) in self._decoded(rows, _card, "store_what_card")}

    def put_card(self, key: str, card_json: str) -> None:
        with self._write() as conn:
            _put_card(conn, key, card_json, self.now())

    # ----------------------------------------------------------------- moving between machines

    def snapshot(self) -> Snapshot:
        """Everything in the store, as plain records (`tutor.progress.exchange` writes it to a file)."""
        positions = self._decoded(self._read("SELECT lesson_id, step_id, updated_at FROM positions ORDER BY 1"),
                                  _position, "store_what_position")
        cards = dict(self._decoded(self._read("SELECT key, card, updated_at FROM cards ORDER BY key"),
                                   _card, "store_what_card"))
        return Snapshot(self.attempts(), positions, cards)

    def _decoded(self, rows: list[tuple], decode: Callable[[tuple], object], what: str) -> list:
        """`decode` of each row; a row it refuses is left out and noted in `skipped` (once), not a crash."""
        found = []
        for row in rows:
            try:
                found.append(decode(row))
            except _ROW_ERRORS as error:
                note = ProgressError("store_row_skipped", path=self.path, what=(what, {}), error=error)
                if str(note) not in map(str, self.skipped):
                    self.skipped.append(note)
                    _log.warning(str(note))
        return found

    def merge(self, snapshot: Snapshot) -> dict[str, int]:
        """Merge a snapshot (read from another machine's export) into this store, all or nothing.

        Idempotent: attempts are matched by their uid, positions and cards are replaced only by
        newer ones. Returns counts of what changed.
        """
        changed = {"attempts": 0, "positions": 0, "cards": 0}
        with self._write() as conn:
            for attempt in snapshot.attempts:
                changed["attempts"] += _insert_attempt(conn, attempt)
            for position in snapshot.positions:
                changed["positions"] += _put_position(
                    conn, position.lesson_id, position.step_id, position.updated_at, only_if_newer=True
                )
            for key, (card_json, updated_at) in snapshot.cards.items():
                changed["cards"] += _put_card(conn, key, card_json, updated_at, only_if_newer=True)
        return changed


# Reading rows: each decoder raises one of _ROW_ERRORS for a row it cannot use.

_ROW_ERRORS = (ValueError, TypeError, OverflowError, RecursionError)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, found {type(value).__name__}")
    return value


def _count(value: object) -> int:
    if not isinstance(value, int) or not 0 <= value < 2**63:
        raise ValueError(f"expected a count, found {value!r}")
    return value


def _attempt(row: tuple) -> Attempt:
    uid, lesson, step, concepts, answer, outcome, hints, duration, at, *misconception = row
    concepts = json.loads(_text(concepts))
    if not isinstance(concepts, list):
        raise TypeError("concepts is not a list")
    return Attempt(_text(uid), _text(lesson), _text(step), tuple(_text(c) for c in concepts),
                   None if answer is None else _text(answer), Outcome(_OLD_OUTCOMES.get(outcome, outcome)),
                   _count(hints), None if duration is None else _count(duration), from_iso(_text(at)),
                   None if not misconception or misconception[0] is None else _text(misconception[0]))


def _position(row: tuple) -> Position:
    lesson, step, updated = row
    return Position(_text(lesson), _text(step), from_iso(_text(updated)))


def _card(row: tuple) -> tuple[str, tuple[str, datetime]]:
    """(key, (card JSON, updated_at)); the card JSON is checked as far as the scheduler reads it."""
    key, card, updated = row
    data = json.loads(_text(card))
    if not isinstance(data, dict):
        raise ValueError("not a scheduler card")
    from_iso(_text(data.get("due")))
    if data.get("last_review") is not None:
        from_iso(_text(data["last_review"]))
    return _text(key), (card, from_iso(_text(updated)))


def _salvage(damaged: Path, conn: sqlite3.Connection) -> dict[str, int]:
    """Copy every row still readable in the damaged database (and its -wal) into the fresh `conn`, each
    row checked like a read; returns how many rows of each table were kept. Read from a temporary copy,
    so that the damaged file is kept exactly as it was."""
    kept = {"attempts": 0, "positions": 0, "cards": 0}
    with tempfile.TemporaryDirectory(prefix="autograd-tutor-salvage-") as folder:
        copy = Path(folder) / "damaged.sqlite3"
        try:
            for suffix in ("", "-wal"):
                if Path(f"{damaged}{suffix}").exists():
                    shutil.copyfile(f"{damaged}{suffix}", f"{copy}{suffix}")
            source = sqlite3.connect(copy, isolation_level=None)
        except (OSError, sqlite3.Error) as error:
            _log.warning("%s: nothing could be salvaged (%s)", damaged, error)
            return kept
        try:
            with _immediate(conn):
                columns = _ATTEMPT_COLUMNS if _has_column(source, "attempts", "misconception") else _ATTEMPT_COLUMNS_V3
                for row in _readable_rows(source, "attempts", columns):
                    try:
                        kept["attempts"] += _insert_attempt(conn, _attempt(row))
                    except _ROW_ERRORS:
                        continue
                for row in _readable_rows(source, "positions", "lesson_id, step_id, updated_at"):
                    try:
                        position = _position(row)
                    except _ROW_ERRORS:
                        continue
                    kept["positions"] += _put_position(conn, position.lesson_id, position.step_id,
                                                       position.updated_at, only_if_newer=True)
                for row in _readable_rows(source, "cards", "key, card, updated_at"):
                    try:
                        key, (card, updated_at) = _card(row)
                    except _ROW_ERRORS:
                        continue
                    kept["cards"] += _put_card(conn, key, card, updated_at, only_if_newer=True)
        finally:
            source.close()
    return kept


def _has_column(source: sqlite3.Connection, table: str, column: str) -> bool:
    try:
        return any(row[1] == column for row in source.execute(f"PRAGMA table_info({table})"))
    except sqlite3.DatabaseError:
        return False


def _readable_rows(source: sqlite3.Connection, table: str, columns: str) -> Iterator[tuple]:
    """The rows of `table` (one of this module's) in rowid order, read from its own pages only (NOT
    INDEXED: a damaged index is never consulted); where the table's pages are damaged, the scan jumps
    ahead past the damage (doubling the jump) and goes on, giving up after `_MAX_JUMPS` failures."""
    try:
        if not source.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone():
            return
    except sqlite3.DatabaseError:
        return
    last, jump, failures = -(2**63), 1, 0
    while failures < _MAX_JUMPS:
        try:
            cursor = source.execute(f"SELECT rowid, {columns} FROM {table} NOT INDEXED WHERE rowid > ? ORDER BY rowid",
                                    (last,))
            for row in cursor:
                last, jump = row[0], 1
                yield row[1:]
            return
        except sqlite3.DatabaseError:
            failures += 1
            if last >= 2**62:
                return
            last = max(last, 0) + jump
            jump *= 2


_MAX_JUMPS = 64


# Writes shared by live recording and import. The "newer wins" rules make
# importing the same file twice change nothing.

def _insert_attempt(conn: sqlite3.Connection, attempt: Attempt) -> int:
    cursor = conn.execute(
        f"INSERT OR IGNORE INTO attempts ({_ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            attempt.uid,
            attempt.lesson_id,
            attempt.step_id,
            json.dumps(list(attempt.concepts)),
            attempt.answer,
            attempt.outcome.value,
            attempt.hints_used,
            attempt.duration_ms,
            to_iso(attempt.at),
            attempt.misconception,
        ),
    )
    if cursor.rowcount:
        conn.executemany(
            "INSERT OR IGNORE INTO attempt_concepts (attempt_id, concept) VALUES (?, ?)",
            [(cursor.lastrowid, concept) for concept in attempt.concepts],
        )
    return cursor.rowcount


def _upsert(conn: sqlite3.Connection, table: str, key: tuple[str, str], value: tuple[str, str],
            updated_at: datetime, *, only_if_newer: bool = False) -> int:
    """Insert or replace one keyed row (`table` and column names are this module's constants);
    with `only_if_newer`, an existing row wins unless the new one is more recent (importing)."""
    (key_column, key_value), (value_column, stored) = key, value
    return conn.execute(
        f"INSERT INTO {table} ({key_column}, {value_column}, updated_at) VALUES (?, ?, ?) "
        f"ON CONFLICT ({key_column}) DO UPDATE SET {value_column} = excluded.{value_column}, "
        "updated_at = excluded.updated_at "
        + (f"WHERE excluded.updated_at > {table}.updated_at" if only_if_newer else ""),
        (key_value, stored, to_iso(updated_at)),
    ).rowcount


def _put_position(conn: sqlite3.Connection, lesson_id: str, step_id: str, updated_at: datetime, **options) -> int:
    return _upsert(conn, "positions", ("lesson_id", lesson_id), ("step_id", step_id), updated_at, **options)


def _put_card(conn: sqlite3.Connection, key: str, card_json: str, updated_at: datetime, **options) -> int:
    return _upsert(conn, "cards", ("key", key), ("card", card_json), updated_at, **options)


@contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """A write transaction that takes the lock up front (no deadlock between two writers)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (executescript would commit our transaction)."""
    return [statement.strip() for statement in script.split(";") if statement.strip()]


def gradable_step_ids(steps: Iterable[object]) -> list[str]:
    """The ids of the steps that count towards "done" (any object with `id` and `kind`)."""
    return [step.id for step in steps if str(getattr(step, "kind", "")) in GRADABLE_KINDS]


