"""The class folder: one ordinary progress store per student, the roster, the class settings.

```
CLASS/
  class.json                      lesson folders the server used (the report reads them)
  roster.txt                      optional: one student name per line (# comments); students pick from it
  students/<folder>/student.json  {"name": "Alice", "key": "alice", "skeleton": "…", "joined": "…", "seen": "…",
                                   "secret": {"cookie": "<sha-256>", "code": "<sha-256>"}}
  students/<folder>/progress.sqlite3   the store `autograd-tutor` uses (crash-safe, one per student)
```

A student is a person, not a name: on first join the server gives them a secret (`new_secret`: a token
kept in their browser's cookie and a short personal code, for another computer); only hashes are kept
here. `reset_secret` (the teacher's `class reset-student`) lets the next to join under that name claim it.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from lessons.atomic_file import write_atomically
from tutor.classroom.names import InvalidName, display_name, folder_name, skeleton, student_key

ROSTER = "roster.txt"
SETTINGS = "class.json"
STUDENTS = "students"
STUDENT_FILE = "student.json"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
PERSONAL_CODE_LENGTH = 8  # 32**8: guessing one is hopeless


@dataclass(frozen=True)
class Student:
    name: str  # as first typed (normalised)
    key: str  # what identifies the student (case-folded)
    folder: Path  # the student's data folder (progress.sqlite3 inside)

    @property
    def database(self) -> Path:
        return self.folder / "progress.sqlite3"


class ClassFolder:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self._index: tuple[tuple[int, int], dict[str, Student]] | None = None  # see _skeletons

    @property
    def students_dir(self) -> Path:
        return self.path / STUDENTS

    def roster(self) -> list[str]:
        """The names in roster.txt (normalised, first spelling of each student kept), or [] without one."""
        path = self.path / ROSTER
        try:
            lines = path.read_text(encoding="utf-8-sig").splitlines()
        except (FileNotFoundError, UnicodeDecodeError):
            return []
        names, seen = [], set()
        for line in lines:
            line = line.split("#", 1)[0]
            try:
                name, key = display_name(line), student_key(line)
            except InvalidName:
                continue
            if key not in seen:
                seen.add(key)
                names.append(name)
        return names

    def student(self, name: str, *, create: bool = False) -> Student:
        """The student called `name` (raises `InvalidName`); with `create`, make their folder.

        The first spelling is kept: "alice" or "Аlice" (Cyrillic А) joining after "Alice" is Alice.
        """
        key, folder = student_key(name), self.students_dir / folder_name(name)
        record = _read_record(folder)
        if record is not None and record.get("key") == key:
            return Student(str(record.get("name") or display_name(name)), key, folder)
        same = self._by_skeleton(skeleton(name))
        if same is not None:
            return same
        student = Student(display_name(name), key, folder)
        if create:
            index = self._skeletons()
            folder.mkdir(parents=True, exist_ok=True)
            _write_record(folder, {"name": student.name, "key": key, "skeleton": skeleton(name),
                                   "joined": datetime.now(timezone.utc).isoformat(timespec="seconds")})
            index.setdefault(skeleton(name), student)
            self._index = self._stamp(), index  # (this folder's own change: no need to read every record again)
        return student

    def exists(self, student: Student) -> bool:
        return _read_record(student.folder) is not None

    def _by_skeleton(self, wanted: str) -> Student | None:
        return self._skeletons().get(wanted)

    def _skeletons(self) -> dict[str, Student]:
        """Every student by the skeleton of their name. Read again only when the students folder changes (a
        folder added or removed, here or by hand): reading every record on each join made a join cost as much
        as the class is large, and a flood of joins quadratic."""
        stamp = self._stamp()
        if self._index is None or self._index[0] != stamp:
            index: dict[str, Student] = {}
            for student in self.students():
                try:
                    index.setdefault(skeleton(student.name), student)
                except InvalidName:  # a record written by hand
                    continue
            self._index = stamp, index
        return self._index[1]

    def _stamp(self) -> tuple[int, int]:
        try:
            return self.students_dir.stat().st_mtime_ns, len(os.listdir(self.students_dir))
        except OSError:
            return 0, 0

    # ---------------------------------------------------------------- secrets

    def has_secret(self, student: Student) -> bool:
        return isinstance((_read_record(student.folder) or {}).get("secret"), dict)

    def new_secret(self, student: Student) -> tuple[str, str]:
        """Give the student a new secret: (browser token, personal code); only their hashes are kept."""
        token = secrets.token_urlsafe(32)
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(PERSONAL_CODE_LENGTH))
        record = _read_record(student.folder) or {"name": student.name, "key": student.key}
        record["secret"] = {"cookie": _hash(token), "code": _hash(normalise_personal_code(code))}
        _write_record(student.folder, record)
        return token, f"{code[:4]}-{code[4:]}"

    def check_secret(self, student: Student, *, token: str = "", code: str = "") -> bool:
        """Whether `token` (the browser's) or `code` (typed) is this student's secret (constant time)."""
        secret = (_read_record(student.folder) or {}).get("secret")
        if not isinstance(secret, dict):
            return False
        right = False
        for given, kept in ((token, secret.get("cookie")), (normalise_personal_code(code), secret.get("code"))):
            if given and isinstance(kept, str):
                right |= hmac.compare_digest(_hash(given), kept)
        return right

    def reset_secret(self, student: Student) -> bool:
        """Forget the student's secret (their progress stays): whoever joins next under the name claims it."""
        record = _read_record(student.folder)
        if record is None or "secret" not in record:
            return False
        del record["secret"]
        _write_record(student.folder, record)
        return True

    def mark_seen(self, student: Student) -> None:
        """Note that the student connected now (the report's "last seen" before any answer)."""
        record = _read_record(student.folder) or {"name": student.name, "key": student.key}
        record["seen"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            _write_record(student.folder, record)
        except OSError:
            pass

    def last_connected(self, student: Student) -> datetime | None:
        record = _read_record(student.folder) or {}
        try:
            return datetime.fromisoformat(record["seen"]).astimezone(timezone.utc)
        except (KeyError, TypeError, ValueError):
            return None

    def students(self) -> list[Student]:
        """Every student with a folder, by name."""
        found = []
        if not self.students_dir.is_dir():
            return found
        for folder in self.students_dir.iterdir():
            record = _read_record(folder) if folder.is_dir() else None
            if record is not None and isinstance(record.get("name"), str):
                found.append(Student(record["name"], str(record.get("key", "")), folder))
        return sorted(found, key=lambda student: (student.key, student.name))

    def damaged_records(self) -> list[Path]:
        """Student folders whose student.json cannot be read (so whose name is unknown): left out of
        `students`, listed here for the report to say so. A folder with neither file is nobody's yet."""
        if not self.students_dir.is_dir():
            return []
        return sorted(folder for folder in self.students_dir.iterdir() if folder.is_dir()
                      and ((folder / STUDENT_FILE).exists() or (folder / "progress.sqlite3").exists())
                      and not isinstance((_read_record(folder) or {}).get("name"), str))

    def settings(self) -> dict:
        try:
            data = json.loads((self.path / SETTINGS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_settings(self, **settings: object) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path / SETTINGS, json.dumps(settings, ensure_ascii=False, indent=2) + "\n")


def normalise_personal_code(code: str) -> str:
    return "".join(char for char in code.upper() if char.isalnum())


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


def _read_record(folder: Path) -> dict | None:
    try:
        data = json.loads((folder / STUDENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_record(folder: Path, record: dict) -> None:
    write_atomically(folder / STUDENT_FILE, json.dumps(record, ensure_ascii=False, indent=2) + "\n")
