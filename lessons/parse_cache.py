"""Parsed lesson files kept between runs, so the tutor starts without re-parsing unchanged TOML.

Parsing the course (TOML plus the key-to-line map) is most of what the app does before its first
screen. Entries are keyed by a hash of the file's text, so an edited file is simply parsed again.
The cache is plain JSON, never pickle: a data folder may be shared in a classroom, and a JSON file
can be wrong but cannot run code. Anything unreadable is ignored and rebuilt; failing to write it
only costs the next start-up its speed.

Parses are also kept for the rest of the process (as JSON text, so no two loads ever share a mutable
dict): a classroom server's zygote loads the bundled course once, and every student's tutor it forks
then starts without parsing it, although each has a new data folder.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lessons.atomic_file import write_atomically

VERSION = 1
KEEP_IN_PROCESS = 128  # parsed files kept for the process (an author's every save is a new text)
_in_process: dict[str, str] = {}  # key -> the entry as JSON, oldest first


class ParseCache:
    """`get`/`put` parsed (data, line map) pairs by file text; `save` writes back what this run used
    (with no `path`, only the process keeps them)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict] = {}
        self.used: dict[str, dict] = {}
        if path is None:
            return
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored.get("version") == VERSION and isinstance(stored.get("entries"), dict):
                self.entries = stored["entries"]
        except (OSError, ValueError, AttributeError, RecursionError):  # RecursionError: a damaged, deep file
            pass

    @staticmethod
    def key(text: str) -> str:
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()

    def get(self, text: str) -> tuple[dict, dict[str, int]] | None:
        key = self.key(text)
        entry = self.entries.get(key)
        if entry is None and key in _in_process:
            entry = json.loads(_in_process[key])
        if not (isinstance(entry, dict) and isinstance(entry.get("data"), dict) and isinstance(entry.get("lines"), dict)):
            return None
        self.used[key] = entry
        return entry["data"], entry["lines"]

    def put(self, text: str, data: dict, lines: dict[str, int]) -> None:
        entry = {"data": data, "lines": lines}
        try:
            serialised = json.dumps(entry)  # TOML dates and times have no JSON form: such a file is parsed every time
        except (TypeError, ValueError):
            return
        key = self.key(text)
        self.used[key] = entry
        _in_process[key] = serialised
        while len(_in_process) > KEEP_IN_PROCESS:
            del _in_process[next(iter(_in_process))]

    def save(self) -> None:
        if self.path is None or self.used.keys() == self.entries.keys():
            return
        try:
            write_atomically(self.path, json.dumps({"version": VERSION, "entries": self.used}))
        except OSError:
            pass
