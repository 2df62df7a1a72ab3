"""The progress database schema, as an ordered list of migrations.

`MIGRATIONS[i]` takes a database from schema version `i` to `i + 1`; the
version lives in `PRAGMA user_version`. Steps are never edited once released
(a learner's file may be at any version): a change is a new step appended here.
"""
from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # v1: the first schema. Concepts are a JSON list on each attempt.
    """
    CREATE TABLE attempts (
        id          INTEGER PRIMARY KEY,
        uid         TEXT NOT NULL UNIQUE,
        lesson_id   TEXT NOT NULL,
        step_id     TEXT NOT NULL,
        concepts    TEXT NOT NULL DEFAULT '[]',
        answer      TEXT,
        outcome     TEXT NOT NULL CHECK (outcome IN ('correct', 'wrong', 'skipped')),
        hints_used  INTEGER NOT NULL DEFAULT 0,
        duration_ms INTEGER,
        at          TEXT NOT NULL
    );
    CREATE TABLE positions (
        lesson_id  TEXT PRIMARY KEY,
        step_id    TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE cards (
        key        TEXT PRIMARY KEY,
        card       TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    """,
    # v2: one row per (attempt, concept) so per-concept statistics are a plain
    # GROUP BY; existing attempts are back-filled from their JSON list.
    """
    CREATE TABLE attempt_concepts (
        attempt_id INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
        concept    TEXT NOT NULL,
        PRIMARY KEY (attempt_id, concept)
    );
    INSERT OR IGNORE INTO attempt_concepts (attempt_id, concept)
        SELECT attempts.id, json_each.value FROM attempts, json_each(attempts.concepts);
    CREATE INDEX attempts_by_lesson ON attempts (lesson_id, step_id);
    CREATE INDEX attempts_by_time ON attempts (at);
    CREATE INDEX attempt_concepts_by_concept ON attempt_concepts (concept);
    """,
    # v3: "show answer" is recorded as `revealed` (it was `skipped`, which read as "never tried"). SQLite
    # cannot change a CHECK in place: both tables are copied (ids kept) and renamed, the concepts table
    # dropped first so that dropping `attempts` has nothing to cascade to.
    """
    CREATE TABLE attempts_v3 (
        id          INTEGER PRIMARY KEY,
        uid         TEXT NOT NULL UNIQUE,
        lesson_id   TEXT NOT NULL,
        step_id     TEXT NOT NULL,
        concepts    TEXT NOT NULL DEFAULT '[]',
        answer      TEXT,
        outcome     TEXT NOT NULL CHECK (outcome IN ('correct', 'wrong', 'revealed')),
        hints_used  INTEGER NOT NULL DEFAULT 0,
        duration_ms INTEGER,
        at          TEXT NOT NULL
    );
    INSERT INTO attempts_v3 (id, uid, lesson_id, step_id, concepts, answer, outcome, hints_used, duration_ms, at)
        SELECT id, uid, lesson_id, step_id, concepts, answer,
               CASE outcome WHEN 'skipped' THEN 'revealed' ELSE outcome END, hints_used, duration_ms, at
        FROM attempts;
    CREATE TABLE attempt_concepts_v3 (
        attempt_id INTEGER NOT NULL REFERENCES attempts_v3(id) ON DELETE CASCADE,
        concept    TEXT NOT NULL,
        PRIMARY KEY (attempt_id, concept)
    );
    INSERT INTO attempt_concepts_v3 (attempt_id, concept) SELECT attempt_id, concept FROM attempt_concepts;
    DROP TABLE attempt_concepts;
    DROP TABLE attempts;
    ALTER TABLE attempts_v3 RENAME TO attempts;
    ALTER TABLE attempt_concepts_v3 RENAME TO attempt_concepts;
    CREATE INDEX attempts_by_lesson ON attempts (lesson_id, step_id);
    CREATE INDEX attempts_by_time ON attempts (at);
    CREATE INDEX attempt_concepts_by_concept ON attempt_concepts (concept);
    """,
    # v4: the misconception diagnosed behind a wrong prediction (an id of lessons/misconceptions.toml), NULL
    # where none was named (every attempt recorded before).
    """
    ALTER TABLE attempts ADD COLUMN misconception TEXT;
    CREATE INDEX attempts_by_misconception ON attempts (misconception) WHERE misconception IS NOT NULL;
    """,
)

LATEST_VERSION = len(MIGRATIONS)
