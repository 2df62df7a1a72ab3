"""Lesson packs (issue 16, item 5): pack.toml, `pack DIR` writes one archive, `install FILE` unpacks it safely."""
from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest
from new_lessons import write_japanese

PACK_TOML = '''\
name = "intro"
version = "1.0.0"
authors = ["Ada Lovelace <ada@example.org>"]
languages = ["en", "ja"]
licence = "CC-BY-4.0"
lessons = ["first.toml", "second.toml"]
'''


@pytest.fixture
def pack_dir(cli, tmp_path) -> Path:
    folder = tmp_path / "intro"
    folder.mkdir()
    for name in ("first", "second"):
        assert cli("new", name, "--dir", folder).exit_code == 0
        write_japanese(folder / f"{name}.toml")  # the pack's languages include "ja"
    (folder / "pack.toml").write_text(PACK_TOML, "utf-8")
    return folder


def test_pack_writes_one_reproducible_archive_and_install_unpacks_it(cli, pack_dir, tmp_path):
    from tutor.paths import lessons_dir

    out = tmp_path / "out"
    out.mkdir()
    result = cli("pack", pack_dir, "-o", out)
    assert result.exit_code == 0, result.output
    archive = out / "intro-1.0.0.zip"
    assert f"Wrote {archive} (intro 1.0.0, 2 lessons)" in result.output
    with zipfile.ZipFile(archive) as z:
        assert z.namelist() == ["intro/pack.toml", "intro/first.toml", "intro/second.toml"]
    first_bytes = archive.read_bytes()
    assert cli("pack", pack_dir, "-o", out).exit_code == 0
    assert archive.read_bytes() == first_bytes  # reproducible

    installed = cli("install", archive)
    assert installed.exit_code == 0, installed.output
    target = lessons_dir() / "intro"
    assert sorted(p.name for p in target.iterdir()) == [".autograd-tutor-installed", "first.toml", "pack.toml",
                                                        "second.toml"]
    assert not [p for p in lessons_dir().iterdir() if p.name.startswith(".")]  # no staging left behind
    again = cli("install", archive)
    assert again.exit_code == 1 and "already installed" in again.output and "--replace" in again.output
    assert cli("install", "--replace", archive).exit_code == 0


def test_pack_lessons_are_namespaced_so_ids_cannot_collide(cli, pack_dir, tmp_path):
    from lessons.course import load_course
    from lessons.loader import load_lesson

    # a pack lesson may use a bundled id: it is "intro/chain-rule" in the course
    text = (pack_dir / "first.toml").read_text("utf-8").replace('id = "first"', 'id = "chain-rule"')
    (pack_dir / "first.toml").write_text(text, "utf-8")
    lesson = load_lesson(pack_dir / "first.toml")
    assert lesson.id == "intro/chain-rule" and lesson.pack == "intro" and lesson.file_id == "chain-rule"
    other = tmp_path / "other"
    other.mkdir()
    for name in ("first.toml", "second.toml"):
        (other / name).write_text((pack_dir / name).read_text("utf-8"), "utf-8")
    (other / "pack.toml").write_text(PACK_TOML.replace('"intro"', '"other"'), "utf-8")
    course = load_course([pack_dir, other], user_dir=tmp_path / "none")
    ids = {lesson.id for lesson in course.lessons}
    assert {"chain-rule", "intro/chain-rule", "other/chain-rule", "intro/second", "other/second"} <= ids
    assert course.broken == []
    result = cli("check", pack_dir, other)
    assert result.exit_code == 0, result.output


def test_pack_toml_takes_license_spelled_either_way(cli, pack_dir):
    from lessons.packs import read_pack

    (pack_dir / "pack.toml").write_text(PACK_TOML.replace("licence", "license"), "utf-8")
    pack, problems = read_pack(pack_dir)
    assert problems == [] and pack.licence == "CC-BY-4.0"


@pytest.mark.parametrize("edit, expected", [
    (lambda t: t.replace('licence = "CC-BY-4.0"\n', ""), "pack.toml: missing required key 'licence'"),
    (lambda t: t.replace('licence = "CC-BY-4.0"\n', 'licence = "CC-BY-4.0"\nlicense = "MIT"\n'),
     "pack.toml:6: license: give the licence once: `licence` or `license`, not both"),
    (lambda t: t.replace('"ja"]', '"jp"]'), "pack.toml:4: languages[1]: 'jp' is not a language the tutor has"),
    (lambda t: t.replace('"1.0.0"', '"one"'), "pack.toml:2: version: 'one' is not a version"),
    (lambda t: t.replace('"second.toml"]', '"third.toml"]'), "pack.toml:6: lessons[1]: 'third.toml' is listed but there is no such file"),
    (lambda t: t.replace('"second.toml"]', '"../second.toml"]'), "pack.toml:6: lessons[1]: '../second.toml' must be a lesson file inside the pack folder"),
    (lambda t: t.replace(', "second.toml"]', ']'), "pack.toml:6: lessons: second.toml is in the pack folder but not listed in `lessons`"),
    (lambda t: t.replace('name = "intro"', 'name = "Intro Pack"'), "pack.toml:1: name: 'Intro Pack' is not a valid id"),
])
def test_pack_toml_problems_name_file_line_and_fix(cli, pack_dir, edit, expected):
    (pack_dir / "pack.toml").write_text(edit(PACK_TOML), "utf-8")
    result = cli("pack", pack_dir, "-o", pack_dir.parent)
    assert result.exit_code == 1
    assert f"{pack_dir / expected}" in result.output, result.output
    assert "not packed" in result.output
    assert not list(pack_dir.parent.glob("*.zip"))


def test_a_pack_in_japanese_requires_japanese_texts(cli, pack_dir):
    text = (pack_dir / "first.toml").read_text("utf-8")
    (pack_dir / "first.toml").write_text(text.replace(', ja = "`x.grad` を予想してください。"', "", 1), "utf-8")
    result = cli("check", pack_dir)
    assert result.exit_code == 1 and "no Japanese text" in result.output
    (pack_dir / "pack.toml").write_text(PACK_TOML.replace(', "ja"]', "]"), "utf-8")
    assert cli("check", pack_dir).exit_code == 0


def test_a_pack_glossary_declares_new_concepts(cli, pack_dir):
    text = (pack_dir / "first.toml").read_text("utf-8").replace('concepts = ["chain-rule"]',
                                                              'concepts = ["chain-rules"]')
    (pack_dir / "first.toml").write_text(text, "utf-8")
    assert "unknown concept 'chain-rules'" in cli("check", pack_dir).output
    (pack_dir / "pack.toml").write_text(PACK_TOML + '[glossary]\nchain-rules = "The chain rule, first look"\n',
                                        "utf-8")
    result = cli("check", "--strict", pack_dir)
    assert result.exit_code == 0, result.output


def test_pack_refuses_a_broken_lesson(cli, pack_dir):
    text = (pack_dir / "second.toml").read_text("utf-8").replace('expect = "2 * x"', 'expect = "3 * x"')
    (pack_dir / "second.toml").write_text(text, "utf-8")
    result = cli("pack", pack_dir, "-o", pack_dir.parent)
    assert result.exit_code == 1 and "steps[1].expect: the engine computes" in result.output


@pytest.mark.parametrize("lang, says", [
    ("en", "cannot write the archive into {target}: No such file or directory; give -o a folder you can write to"),
    ("ja", "{target} にアーカイブを書き込めません: No such file or directory。-o には書き込めるフォルダー"),
])
def test_an_archive_that_cannot_be_written_says_the_place_and_the_fix(cli, pack_dir, tmp_path, lang, says):
    target = tmp_path / "no-such-folder" / "intro.zip"
    result = cli("--lang", lang, "pack", pack_dir, "-o", target)
    assert result.exit_code == 1 and says.format(target=target) in result.output, result.output


def test_pack_needs_a_pack_toml(cli, tmp_path):
    result = cli("pack", tmp_path)
    assert result.exit_code == 2 and "has no pack.toml" in result.output


def _zip(path: Path, members: list[tuple[str, bytes, int | None]]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            if mode is not None:
                info.external_attr = mode << 16
            z.writestr(info, data)
    return path


def _good_members(pack_dir: Path) -> list[tuple[str, bytes, int | None]]:
    return [(f"intro/{name}", (pack_dir / name).read_bytes(), stat.S_IFREG | 0o644)
            for name in ("pack.toml", "first.toml", "second.toml")]


@pytest.mark.parametrize("extra, expected", [
    (("intro/../../evil.toml", b"x", None), "points outside the pack folder"),
    (("/etc/evil.toml", b"x", None), "points outside the pack folder"),
    (("intro/link.toml", b"/etc/passwd", stat.S_IFLNK | 0o777), "is a symbolic link"),
    (("intro/run.sh", b"rm -rf /", None), "is not a lesson file"),
    (("intro/notes.toml", b'title = "x"', None), "is not a lesson listed in pack.toml"),
    (("other/first.toml", b"x", None), "members are in two folders"),
    (("intro/huge.toml", b"#" * 1_000_001, None), "lesson files may be at most 1 MB"),
])
def test_install_refuses_unsafe_archives_before_writing(cli, pack_dir, tmp_path, extra, expected):
    from tutor.paths import lessons_dir

    archive = _zip(tmp_path / "bad.zip", _good_members(pack_dir) + [extra])
    result = cli("install", archive)
    assert result.exit_code == 1 and expected in result.output, result.output
    assert not lessons_dir().exists() or not any(lessons_dir().iterdir())


def test_install_refuses_a_zip_bomb_member(cli, pack_dir, tmp_path, monkeypatch):
    # a member whose header understates its size is cut at the lesson limit while reading
    from lessons import packs

    monkeypatch.setattr(packs, "MAX_LESSON_BYTES", 10_000)
    archive = _zip(tmp_path / "bomb.zip", _good_members(pack_dir)[:2] +
                   [("intro/second.toml", b"#" * 50_000, None)])
    result = cli("install", archive)
    assert result.exit_code == 1 and "MB" in result.output


def test_install_refuses_non_archives_and_broken_packs(cli, pack_dir, tmp_path):
    not_zip = tmp_path / "x.zip"
    not_zip.write_text("hello", "utf-8")
    result = cli("install", not_zip)
    assert result.exit_code == 1 and "not a pack archive" in result.output
    members = _good_members(pack_dir)
    broken = members[:2] + [("intro/second.toml", members[2][1].replace(b'expect = "2 * x"', b'expect = "3 * x"'), None)]
    result = cli("install", _zip(tmp_path / "broken.zip", broken))
    assert result.exit_code == 1 and "the pack has problems" in result.output
    assert "broken.zip!/second.toml" in result.output and "steps[1].expect" in result.output
