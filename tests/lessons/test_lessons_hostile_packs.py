"""Hostile pack archives: each gets its own `not installed: …` message (never a traceback), nothing is
written, and no sandbox worker starts before the archive is vetted. `--replace` never deletes a folder
that `install` did not make, and a pack's folder must be its pack.toml's name exactly."""
from __future__ import annotations

import re
import stat
import zipfile
from pathlib import Path

import pytest
from test_lessons_packs import PACK_TOML, _good_members, _zip, pack_dir  # noqa: F401 (a fixture)


@pytest.fixture
def no_worker(monkeypatch):
    """Vetting must refuse before any sandbox worker is asked for."""
    import engine.sandbox

    def refuse(*args, **kwargs):
        raise AssertionError("a sandbox worker was started before the archive was vetted")

    monkeypatch.setattr(engine.sandbox, "worker", refuse)


def _nothing_installed() -> bool:
    from tutor.paths import lessons_dir

    return not lessons_dir().exists() or not any(lessons_dir().iterdir())


def _patched(archive: Path, old: bytes, new: bytes) -> Path:
    data = archive.read_bytes()
    assert old in data and len(old) == len(new)
    archive.write_bytes(data.replace(old, new))
    return archive


def _deflated(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return path


def _hostile(name: str, pack_dir: Path, tmp_path: Path) -> Path:
    good = _good_members(pack_dir)
    archive = tmp_path / f"{name}.zip"
    if name in ("dot", "empty", "dot_slash", "dot_part", "double_slash", "escape_name"):
        member = {"dot": ".", "empty": "", "dot_slash": "./", "dot_part": "intro/./first2.toml",
                  "double_slash": "intro//first2.toml", "escape_name": "intro/\x1b]0;pwned\x07.toml"}[name]
        return _zip(archive, good + [(member, b"x", None)])
    if name == "non_utf8_name":
        _zip(archive, good + [("intro/é.toml", b"x", None)])  # a non-ASCII name is stored as flagged UTF-8
        return _patched(archive, "é".encode("utf-8"), b"\xff\xfe")
    if name == "too_many_members":
        return _zip(archive, good + [(f"intro/l{i}.toml", b"", None) for i in range(300)])
    if name == "bomb_ratio":
        return _deflated(archive, [(n, d) for n, d, _ in good] + [("intro/big.toml", b"#" * 900_000)])
    if name == "damaged_deflate":
        _deflated(archive, [(n, d) for n, d, _ in good])
        with zipfile.ZipFile(archive) as z:
            info = z.getinfo("intro/first.toml")
        data = bytearray(archive.read_bytes())
        start = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2
        data[start:start + 16] = bytes(b ^ 0x5A for b in data[start:start + 16])
        archive.write_bytes(bytes(data))
        return archive
    if name == "cut_off":  # a download that stopped half-way
        data = _deflated(archive, [(n, d) for n, d, _ in good]).read_bytes()
        archive.write_bytes(data[:len(data) // 2])
        return archive
    if name == "deep_pack_toml":
        deep = PACK_TOML.encode() + b"glossary = " + b"[" * 100_000 + b"\n"
        return _zip(archive, [("intro/pack.toml", deep, None), *good[1:]])
    if name == "encrypted":  # the "encrypted" bit set in every local and central header
        data = bytearray(_zip(archive, good).read_bytes())
        for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            at = data.find(signature)
            while at >= 0:
                data[at + flags_at] |= 0x1
                at = data.find(signature, at + 4)
        archive.write_bytes(bytes(data))
        return archive
    if name == "prefix_named":
        return _zip(archive, [(member.replace("intro/", "intro-x/"), data, mode) for member, data, mode in good])
    raise AssertionError(name)


HOSTILE = {
    "dot": "is not a plain path inside the pack folder",
    "empty": "is not a plain path inside the pack folder",
    "dot_slash": "is not a plain path inside the pack folder",
    "dot_part": "is not a plain path inside the pack folder",
    "double_slash": "is not a plain path inside the pack folder",
    "escape_name": "a control character",
    "non_utf8_name": "is not the UTF-8 it is marked as",
    "too_many_members": "a pack may have at most 200",
    "bomb_ratio": "refusing a zip bomb",
    "damaged_deflate": "the archive is damaged: copy or download it again",
    "cut_off": "the archive is cut off (it starts as a zip, its end is missing): copy or download it again",
    "deep_pack_toml": "pack.toml:7: arrays and tables are nested more than 16 deep",
    "encrypted": "is encrypted",
    "prefix_named": "the pack's folder is 'intro-x' but its pack.toml says name = 'intro'",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_archive_has_its_message_and_no_worker_starts(cli, pack_dir, tmp_path, no_worker, name):
    archive = _hostile(name, pack_dir, tmp_path)
    result = cli("install", archive)
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"not installed: {archive}") and HOSTILE[name] in result.output, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert _nothing_installed()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_archive_is_refused_in_japanese(cli, pack_dir, tmp_path, no_worker, name):
    """The same refusals with `--lang ja`: the archive named, the problem and the fix in Japanese (a damaged
    stream's own words from zlib, in parentheses, excepted)."""
    from test_commands_in_japanese import english_sentences

    archive = _hostile(name, pack_dir, tmp_path)
    result = cli("--lang", "ja", "install", archive)
    assert result.exit_code == 1 and result.output.startswith(f"インストールしていません: {archive}"), result.output
    assert english_sentences(re.sub(r"（[^（）]*）$", "", result.output.strip())) == [], result.output


def test_the_damaged_stream_is_found_while_vetting(pack_dir, tmp_path):
    from lessons.packs import ArchiveError, read_archive

    with pytest.raises(ArchiveError, match="damaged"):
        read_archive(_hostile("damaged_deflate", pack_dir, tmp_path))


def test_replace_never_deletes_a_folder_install_did_not_make(cli, pack_dir, tmp_path):
    from tutor.paths import lessons_dir

    archive = _zip(tmp_path / "intro.zip", _good_members(pack_dir))
    mine = lessons_dir() / "intro"
    mine.mkdir(parents=True)
    (mine / "my-own.toml").write_text("# my notes\n", encoding="utf-8")
    for args in (("install", archive), ("install", "--replace", archive)):
        result = cli(*args)
        assert result.exit_code == 1 and "was not made by `autograd-tutor install`" in result.output, result.output
        assert (mine / "my-own.toml").read_text(encoding="utf-8") == "# my notes\n"
        assert sorted(p.name for p in lessons_dir().iterdir()) == ["intro"]  # no staging left behind

    (mine / "my-own.toml").unlink()
    mine.rmdir()
    assert cli("install", archive).exit_code == 0
    assert (mine / ".autograd-tutor-installed").is_file()
    again = cli("install", "--replace", archive)
    assert again.exit_code == 0 and "Installed intro 1.0.0" in again.output


def test_a_pack_folder_that_only_starts_with_the_name_is_refused(pack_dir, tmp_path):
    from lessons.packs import ArchiveError, read_archive

    archive = _hostile("prefix_named", pack_dir, tmp_path)
    with pytest.raises(ArchiveError, match="must be the same"):
        read_archive(archive)
    good = read_archive(_zip(tmp_path / "good.zip", _good_members(pack_dir)))
    assert good.name == "intro" and sorted(good.contents) == ["first.toml", "pack.toml", "second.toml"]


def test_a_link_member_is_refused_whatever_its_name(pack_dir, tmp_path):
    from lessons.packs import ArchiveError, read_archive

    archive = _zip(tmp_path / "link.zip", _good_members(pack_dir) + [("intro/x/", b"", stat.S_IFLNK | 0o777)])
    with pytest.raises(ArchiveError, match="symbolic link"):
        read_archive(archive)
