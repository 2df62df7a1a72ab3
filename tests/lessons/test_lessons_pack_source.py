"""The pack author's loop (issue 26, item 4): after installing their own pack, `check` and `--open` on the
pack's source folder use the source, not the installed copy, and say that the source shadows it."""
from __future__ import annotations

from test_lessons_packs import pack_dir  # noqa: F401 (a fixture)


def _install_own_pack(cli, pack_dir, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    assert cli("pack", pack_dir, "-o", out).exit_code == 0
    assert cli("install", out / "intro-1.0.0.zip").exit_code == 0
    first = pack_dir / "first.toml"
    text = first.read_text(encoding="utf-8")
    assert 'title = { en = "' in text
    first.write_text(text.replace('title = { en = "', 'title = { en = "Edited', 1), encoding="utf-8")


def test_check_on_the_source_uses_it_and_says_it_shadows_the_installed_copy(cli, pack_dir, tmp_path):
    from tutor.paths import lessons_dir

    _install_own_pack(cli, pack_dir, tmp_path)
    result = cli("check", pack_dir)
    assert result.exit_code == 0, result.output
    assert "another id" not in result.output and "2 lessons checked, 0 problems" in result.output
    assert f"note: {pack_dir.resolve()} is used instead of the installed pack intro ({lessons_dir() / 'intro'})." \
        in result.output
    one = cli("check", pack_dir / "first.toml")
    assert one.exit_code == 0 and "another id" not in one.output, one.output


def test_a_loose_lesson_still_collides_with_an_installed_pack(cli, pack_dir, tmp_path):
    _install_own_pack(cli, pack_dir, tmp_path)
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "intro").mkdir()
    copy = tmp_path / "loose" / "intro" / "first.toml"
    copy.write_text((pack_dir / "first.toml").read_text(encoding="utf-8"), encoding="utf-8")
    result = cli("check", copy)
    assert result.exit_code == 0 and "note:" not in result.output, result.output  # no pack: its own id


def test_open_on_the_source_opens_the_source(cli, pack_dir, tmp_path, monkeypatch):
    from lessons.course import load_course
    from tutor.app import TutorApp
    from tutor.paths import lessons_dir

    _install_own_pack(cli, pack_dir, tmp_path)
    opened = {}
    monkeypatch.setattr(TutorApp, "run", lambda app: opened.update(open_at=app.open_at, dirs=app.extra_dirs))
    result = cli("--lessons", pack_dir, "--open", "intro/first")
    assert result.exit_code == 0, result.output
    assert opened["open_at"] == ("intro/first", None)
    assert f"note: {pack_dir.resolve()} is used instead of the installed pack intro ({lessons_dir() / 'intro'})." \
        in result.output  # the words `check` uses
    japanese = cli("--lang", "ja", "--lessons", pack_dir, "--open", "intro/first")
    assert japanese.exit_code == 0 and f"注: インストール済みのパック intro（{lessons_dir() / 'intro'}）の代わりに、" \
        f"{pack_dir.resolve()} を使います。" in japanese.output, japanese.output
    course = load_course(opened["dirs"], user_dir=lessons_dir())  # what the app loads
    assert course.lesson("intro/first").path.parent == pack_dir and course.lesson("intro/first").title.en.startswith("Edited")
    assert not course.broken and [shadow.name for shadow in course.shadowed] == ["intro"]
    plain = load_course([], user_dir=lessons_dir())  # without the source, the installed copy is the course's
    assert plain.lesson("intro/first").path.parent == lessons_dir() / "intro" and not plain.shadowed
