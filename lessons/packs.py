"""Lesson packs: a folder of lessons with a `pack.toml`, shared as one archive.

```toml
name = "intro-autograd"          # the pack's id; its lessons' ids become "intro-autograd/<id>"
version = "1.0.0"
authors = ["Ada Lovelace <ada@example.org>"]
languages = ["en", "ja"]         # "ja" here means every text must have Japanese (check enforces it)
licence = "CC-BY-4.0"
lessons = ["first.toml", "second.toml"]   # in course order
[glossary]                        # optional: concept tags this pack introduces
my-new-concept = { en = "…", ja = "…" }
```

`write_archive` builds a reproducible zip (`<name>-<version>.zip`, every member under `<name>/`);
`read_archive` vets one in memory, refusing anything but that layout: no absolute, `..`, `.` or empty
paths, no links, nothing but `pack.toml` (naming the folder exactly) and the lessons it lists, each at
most a lesson file's size and compression ratio; `Archive.unpack` then writes it.
"""
from __future__ import annotations

import os
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lessons.errors import LessonError
from lessons.folders import MAX_LESSON_BYTES, PACK_FILE
from lessons.linemap import build_line_map
from lessons.messages import say, term
from lessons.model import LocalText
from lessons.schema import Fields, Problems, read_text
from lessons.tomlhelp import TomlError, loads

PACK_FORMAT_VERSION = 1
LANGUAGES = ("en", "ja")
MAX_MEMBERS = 200
MAX_ARCHIVE_BYTES = 50_000_000  # the archive file, and all its members unpacked
MAX_RATIO = 100  # unpacked / packed size of a member: lesson text packs ~5x, a deflate bomb ~1000x
_RATIO_FLOOR = 65_536  # smaller members are not worth a ratio check (a blank template packs ~50x)
_END_RECORD = b"PK\x05\x06"
_END_RECORD_REACH = 22 + 65_535  # the end record and the longest archive comment
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_VERSION = re.compile(r"^\d+(\.\d+){0,2}([-+][0-9A-Za-z.-]+)?$")
PACK_KEYS = ["format_version", "name", "version", "title", "description", "authors", "languages", "licence",
             "license", "lessons", "glossary"]  # licence or license: either spelling, as pyproject and SPDX write it
_ARCHIVE_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Pack:
    folder: Path
    name: str
    version: str
    authors: tuple[str, ...]
    languages: tuple[str, ...]
    licence: str
    lessons: tuple[str, ...]  # file names relative to the folder, in course order
    glossary: frozenset[str] = frozenset()
    title: LocalText | None = None  # the heading of the pack's lessons in the course view
    lines: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    def lesson_paths(self) -> list[Path]:
        return [self.folder / name for name in self.lessons]


def read_pack(folder: str | os.PathLike[str]) -> tuple[Pack | None, list[LessonError]]:
    """Read `folder/pack.toml`: the pack (None when unusable) and every problem found."""
    folder = Path(folder)
    path = folder / PACK_FILE
    from lessons.loader import read_source

    try:
        text = read_source(path)
        data = loads(text)
    except LessonError as error:
        return None, [error]
    except TomlError as error:
        return None, [LessonError(path, "", error.line, error.message, error.ja)]
    problems = Problems(str(path), build_line_map(text))
    top = Fields(data, "", problems, PACK_KEYS)
    version = top.integer("format_version")
    if version is not None and version != PACK_FORMAT_VERSION:
        top.error("format_version", say("pack_format", version=version, reads=PACK_FORMAT_VERSION))
    name = top.identifier("name")
    if name is not None and len(name) > 64:
        top.error("name", say("pack_name_long"))
    pack_version = top.string("version", required=True)
    if pack_version is not None and not _VERSION.match(pack_version):
        top.error("version", say("pack_version", version=pack_version))
    title = top.text("title")
    top.text("description")
    authors = _strings(top, "authors", term("authors"))
    languages = _strings(top, "languages", term("languages"))
    for i, lang in enumerate(languages):
        if lang not in LANGUAGES:
            problems.add(f"languages[{i}]", say("pack_language", lang=lang, langs=LocalText(" or ".join(LANGUAGES), " か ".join(LANGUAGES))))
    if languages and "en" not in languages:
        top.error("languages", say("pack_needs_english"))
    if "licence" in data and "license" in data:
        top.error("license", say("pack_licence_twice"))
    licence = top.string("license") if "license" in data else top.string("licence", required=True)
    lessons = _strings(top, "lessons", term("lesson_files"))
    if "lessons" in data and not lessons and isinstance(data["lessons"], list):
        top.error("lessons", say("pack_no_lessons"))
    _check_lesson_names(folder, lessons, problems)
    glossary = _glossary(top, data, problems)
    if problems.found:
        return None, problems.found
    return Pack(folder, name, pack_version, tuple(authors), tuple(languages), licence, tuple(lessons),
                frozenset(glossary), title, problems.lines), []


def _strings(fields: Fields, key: str, expected: LocalText) -> list[str]:
    value = fields.raw(key, expected, (list,), True)
    if value is None:
        return []
    good = []
    for i, item in enumerate(value):
        if isinstance(item, str) and item.strip():
            good.append(item)
        else:
            fields.problems.add(f"{key}[{i}]", say("pack_empty_string", key=key))
    if len(set(good)) != len(good):
        fields.error(key, say("pack_twice", key=key))
    return good


def _check_lesson_names(folder: Path, lessons: list[str], problems: Problems) -> None:
    for i, name in enumerate(lessons):
        where = f"lessons[{i}]"
        pure = PurePosixPath(name)
        if pure.is_absolute() or ".." in pure.parts or "\\" in name or not name.endswith(".toml") \
                or name == PACK_FILE or any(part.startswith(".") for part in pure.parts):
            problems.add(where, say("pack_lesson_path", name=name))
        elif not (folder / name).is_file():
            problems.add(where, say("pack_lesson_missing", name=name, folder=folder))
    listed = set(lessons)
    for path in sorted(folder.rglob("*.toml")):
        relative = path.relative_to(folder).as_posix()
        if relative != PACK_FILE and relative not in listed and not relative.startswith("."):
            problems.add("lessons", say("pack_lesson_unlisted", name=relative))


def _glossary(top: Fields, data: dict, problems: Problems) -> set[str]:
    table = top.raw("glossary", term("glossary"), (dict,), False)
    if table is None:
        return set()
    from lessons.schema import ID_PATTERN

    found = set()
    for tag, text in table.items():
        if not ID_PATTERN.match(tag):
            problems.add(f"glossary.{tag}", say("pack_tag", tag=tag))
            continue
        if read_text(text, f"glossary.{tag}", problems) is not None:
            found.add(tag)
    return found


# --- which files are lessons, and which pack a lesson belongs to -------------------------------

_pack_cache: dict[Path, tuple[float, Pack | None]] = {}


def pack_of(folder: Path) -> Pack | None:
    """The pack `folder` is (None when it has no pack.toml or it is broken), cached by mtime."""
    path = folder / PACK_FILE
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    cached = _pack_cache.get(path)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    pack, _ = read_pack(folder)
    _pack_cache[path] = (mtime, pack)
    return pack


def pack_folders(folder: Path) -> list[Path]:
    """`folder` and the folders under it that have a pack.toml (hidden folders skipped), in order."""
    if not folder.is_dir():
        return []
    return sorted(path.parent for path in folder.rglob(PACK_FILE)
                  if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts))


# --- archives -------------------------------------------------------------------------------


def archive_name(pack: Pack) -> str:
    return f"{pack.name}-{pack.version}.zip"


def write_archive(pack: Pack, target: Path) -> Path:
    """Write the pack as one zip (reproducible: fixed times and order) to `target` (a file or a folder)."""
    out = target / archive_name(pack) if target.is_dir() else target
    members = [PACK_FILE, *pack.lessons]
    tmp = out.with_name(out.name + ".part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in members:
            info = zipfile.ZipInfo(f"{pack.name}/{name}", date_time=_ARCHIVE_TIME)
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (pack.folder / name).read_bytes())
    os.replace(tmp, out)
    return out


class ArchiveError(Exception):
    """An archive that cannot be installed: `where` (the archive, or its pack.toml) and, in English and Japanese
    (`localized`), why and what to do."""

    def __init__(self, where: object, message: LocalText) -> None:
        self.where, self.message = where, message
        super().__init__(f"{where}: {message.en}")

    def localized(self, lang: str) -> str:
        return f"{self.where}: {self.message.get(lang)}"


@dataclass(frozen=True)
class Archive:
    """A pack archive whose every member was vetted: `name` (its one folder, the same as pack.toml's
    `name`) and the members' bytes by their path inside that folder. Nothing is on disk yet."""

    name: str
    contents: dict[str, bytes]

    def unpack(self, into: Path) -> Path:
        """Write the members into a new hidden folder under `into` (on the same file system as the
        pack's final place, so that moving it there is one rename); returns that folder."""
        import tempfile

        into.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{self.name}-", dir=into))
        for relative, data in self.contents.items():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "xb") as file:
                file.write(data)
        staging.chmod(0o755)
        return staging


def read_archive(path: Path) -> Archive:
    """Vet a pack archive without writing anything or starting any worker: its size, member count and
    names, each member's kind, size and compression ratio, the deflate streams themselves and pack.toml's
    `name`. Every problem is an `ArchiveError` naming the archive (and member) and what is wrong."""
    try:
        size = path.stat().st_size
        declared = _declared_members(path)
    except OSError as error:
        raise ArchiveError(path, say("archive_unreadable", reason=error.strerror or error)) from None
    if size > MAX_ARCHIVE_BYTES:
        raise ArchiveError(path, say("archive_too_big", size=f"{size / 1e6:.1f}", limit=MAX_ARCHIVE_BYTES // 1_000_000))
    if declared is None:
        raise ArchiveError(path, say("archive_cut_off" if _starts_as_zip(path) else "archive_not_zip"))
    if declared > MAX_MEMBERS:  # checked before zipfile reads the whole directory into memory
        count = LocalText("more than 65534", "65534 超") if declared == 0xFFFF else declared
        raise ArchiveError(path, say("archive_too_many", count=count, limit=MAX_MEMBERS))
    try:
        with zipfile.ZipFile(path) as archive:
            files = _checked_members(path, archive.infolist())
            contents = {relative: _member_bytes(path, archive, info) for info, relative in files.items()}
    except UnicodeDecodeError:
        raise ArchiveError(path, say("archive_bad_name_encoding")) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, zlib.error, ValueError) as error:
        raise ArchiveError(path, say("archive_damaged", error=error)) from None
    name = PurePosixPath(next(iter(files)).filename).parts[0]
    _check_pack_toml(path, name, contents)
    return Archive(name, contents)


def open_archive(path: Path, into: Path) -> Path:
    """`read_archive(path).unpack(into)`: the vetted pack unpacked into a new hidden folder under `into`."""
    return read_archive(path).unpack(into)


def _declared_members(path: Path) -> int | None:
    """The member count the zip's end record declares (0xFFFF for a zip64 one), or None when the file has
    no end record: it is not a zip. Read from the last 64 KiB, before zipfile parses the directory."""
    with open(path, "rb") as file:
        file.seek(0, os.SEEK_END)
        file.seek(max(0, file.tell() - _END_RECORD_REACH))
        tail = file.read()
    at = tail.rfind(_END_RECORD)
    if at < 0 or len(tail) - at < 22:
        return None
    return int.from_bytes(tail[at + 10:at + 12], "little")


def _starts_as_zip(path: Path) -> bool:
    """Whether the file begins with a zip's first member header: one without an end record is then a zip cut
    off (a download or copy that stopped), not some other file."""
    with open(path, "rb") as file:
        return file.read(4) == b"PK\x03\x04"


def _member_bytes(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    with archive.open(info) as member:  # zipfile stops at the declared size and checks the CRC at the end
        data = member.read(MAX_LESSON_BYTES + 1)
    if len(data) > MAX_LESSON_BYTES:
        raise ArchiveError(path, say("archive_member_large", name=repr(info.filename), limit=MAX_LESSON_BYTES // 1_000_000))
    return data


def _check_pack_toml(path: Path, name: str, contents: dict[str, bytes]) -> None:
    """pack.toml is there, parses, names the archive's folder exactly and lists every other member."""
    from lessons.tomlhelp import TomlError, loads

    if PACK_FILE not in contents:
        raise ArchiveError(path, say("archive_no_pack_file", name=name, file=PACK_FILE))
    where = f"{path}!/{PACK_FILE}"
    try:
        data = loads(contents[PACK_FILE].decode("utf-8"))
    except UnicodeDecodeError:
        raise ArchiveError(where, say("archive_not_utf8")) from None
    except TomlError as error:
        line = f":{error.line}" if error.line is not None else ""
        raise ArchiveError(f"{where}{line}", say("archive_toml", message=LocalText(error.message, error.ja))) from None
    declared = data.get("name")
    if isinstance(declared, str) and declared != name:
        raise ArchiveError(path, say("archive_name_mismatch", folder=repr(name), declared=repr(declared)))
    listed = data.get("lessons", [])
    listed = {item for item in listed if isinstance(item, str)} if isinstance(listed, list) else set()
    for relative in contents:
        if relative != PACK_FILE and relative not in listed:
            raise ArchiveError(path, say("archive_unlisted", name=name, relative=relative))


def _checked_members(path: Path, infos: list[zipfile.ZipInfo]) -> dict[zipfile.ZipInfo, str]:
    """The archive's files (directories skipped), each with its path inside the pack's one folder."""
    if not infos:
        raise ArchiveError(path, say("archive_empty"))
    if len(infos) > MAX_MEMBERS:
        raise ArchiveError(path, say("archive_too_many", count=len(infos), limit=MAX_MEMBERS))
    files: dict[zipfile.ZipInfo, str] = {}
    seen: set[str] = set()
    top = None
    total = 0
    for info in infos:
        name = info.filename
        mode = info.external_attr >> 16
        is_dir = name.endswith("/")  # (ZipInfo.is_dir fails on an empty name)
        parts = name.split("/")[:-1] if is_dir else name.split("/")
        if name.startswith("/") or "\\" in name or ".." in parts or (parts and ":" in parts[0]):
            raise ArchiveError(path, say("archive_outside", name=repr(name)))
        if not parts or any(part in ("", ".") for part in parts) or _CONTROL.search(name):
            raise ArchiveError(path, say("archive_not_plain", name=repr(name)))
        if stat.S_ISLNK(mode):
            raise ArchiveError(path, say("archive_link", name=repr(name)))
        if is_dir:
            continue
        if stat.S_IFMT(mode) and not stat.S_ISREG(mode):  # no type bits (0o600): a plain file
            raise ArchiveError(path, say("archive_not_regular", name=repr(name)))
        if len(parts) < 2:
            raise ArchiveError(path, say("archive_not_in_folder", name=repr(name)))
        if top is None:
            top = parts[0]
        elif parts[0] != top:
            raise ArchiveError(path, say("archive_two_folders", top=repr(top), other=repr(parts[0])))
        relative = "/".join(parts[1:])
        if not relative.endswith(".toml") or any(part.startswith(".") for part in parts):
            raise ArchiveError(path, say("archive_not_lesson", name=repr(name)))
        if info.flag_bits & 0x1:
            raise ArchiveError(path, say("archive_encrypted", name=repr(name)))
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ArchiveError(path, say("archive_compression", name=repr(name), method=info.compress_type))
        if info.file_size > MAX_LESSON_BYTES:
            raise ArchiveError(path, say("archive_member_size", name=repr(name), size=f"{info.file_size / 1e6:.1f}",
                                         limit=MAX_LESSON_BYTES // 1_000_000))
        if info.file_size > _RATIO_FLOOR and info.file_size > MAX_RATIO * info.compress_size:
            raise ArchiveError(path, say("archive_bomb", name=repr(name), ratio=info.file_size // max(info.compress_size, 1),
                                         limit=MAX_RATIO))
        total += info.file_size
        if total > MAX_ARCHIVE_BYTES:
            raise ArchiveError(path, say("archive_unpacks_big", limit=MAX_ARCHIVE_BYTES // 1_000_000))
        if relative in seen:
            raise ArchiveError(path, say("archive_twice", name=repr(name)))
        seen.add(relative)
        files[info] = relative
    if not files:
        raise ArchiveError(path, say("archive_no_files"))
    from lessons.schema import ID_PATTERN

    if not ID_PATTERN.match(top):
        raise ArchiveError(path, say("archive_folder_name", folder=repr(top)))
    return files
