"""The class folder: one ordinary progress store per student, the roster, the class settings.

```
CLASS/
  class.json                      lesson folders the server used (the report reads them)
  roster.txt                      optional: one student name per line (# comments); students pick from it
  students/<folder>/student.json  {"name": "Alice", "key": "alice", "joined": "…", "seen": "…"}
  students/<folder>/progress.sqlite3   the store `autograd-tutor` uses (crash-safe, one per student)
```
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from lessons.atomic_file import write_atomically
from tutor.classroom.names import InvalidName, display_name, folder_name, student_key

ROSTER = "roster.txt"
SETTINGS = "class.json"
STUDENTS = "students"
STUDENT_FILE = "student.json"


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

        The first spelling is kept: "alice" joining after "Alice" is Alice.
        """
        key, folder = student_key(name), self.students_dir / folder_name(name)
        record = _read_record(folder)
        if record is not None and record.get("key") == key:
            return Student(str(record.get("name") or display_name(name)), key, folder)
        student = Student(display_name(name), key, folder)
        if create:
            folder.mkdir(parents=True, exist_ok=True)
            _write_record(folder, {"name": student.name, "key": key,
                                   "joined": datetime.now(timezone.utc).isoformat(timespec="seconds")})
        return student

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

    def settings(self) -> dict:
        try:
            data = json.loads((self.path / SETTINGS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_settings(self, **settings: object) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path / SETTINGS, json.dumps(settings, ensure_ascii=False, indent=2) + "\n")


def _read_record(folder: Path) -> dict | None:
    try:
        data = json.loads((folder / STUDENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_record(folder: Path, record: dict) -> None:
    write_atomically(folder / STUDENT_FILE, json.dumps(record, ensure_ascii=False, indent=2) + "\n")
