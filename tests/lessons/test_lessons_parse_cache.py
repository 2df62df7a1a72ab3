"""The parse cache: the same lessons with or without it, rebuilt when damaged, refreshed when a file changes."""
import datetime
import json

from lessons.course import load_course
from lessons.folders import bundled_dir
from lessons.parse_cache import ParseCache


def test_cached_course_equals_a_fresh_parse(tmp_path):
    cache = tmp_path / "cache" / "lessons.json"
    fresh = load_course(user_dir=tmp_path / "none")
    first = load_course(user_dir=tmp_path / "none", cache_path=cache)
    assert cache.is_file() and len(json.loads(cache.read_text())["entries"]) == len(fresh.lessons)
    second = load_course(user_dir=tmp_path / "none", cache_path=cache)  # now served from the cache
    assert fresh.lessons == first.lessons == second.lessons
    assert [step.line for step in second.lessons[1].steps] == [step.line for step in fresh.lessons[1].steps]


def test_a_damaged_cache_is_ignored_and_rewritten(tmp_path):
    cache = tmp_path / "lessons.json"
    for damage in (b"\x00\xff not json", b'{"version": 1, "entries": {"abc": 3}}', b"[1, 2]"):
        cache.write_bytes(damage)
        course = load_course(user_dir=tmp_path / "none", cache_path=cache)
        assert len(course.lessons) == len(load_course(user_dir=tmp_path / "none").lessons)
        assert json.loads(cache.read_text())["version"] == 1


def test_an_edited_lesson_is_parsed_again(tmp_path):
    user = tmp_path / "lessons"
    user.mkdir()
    source = sorted(bundled_dir().glob("*.toml"))[0]
    target = user / "mine.toml"
    target.write_text(source.read_text(encoding="utf-8").replace('id = "', 'id = "mine-', 1), encoding="utf-8")
    cache = tmp_path / "lessons.json"
    load_course(user_dir=user, include_bundled=False, cache_path=cache)
    target.write_text(target.read_text(encoding="utf-8").replace('id = "mine-', 'id = "edited-', 1), encoding="utf-8")
    course = load_course(user_dir=user, include_bundled=False, cache_path=cache)
    assert [lesson.id for lesson in course.lessons] == ["edited-" + course.lessons[0].id.removeprefix("edited-")]
    assert len(json.loads(cache.read_text())["entries"]) == 1  # the stale entry is dropped


def test_values_json_cannot_hold_are_parsed_every_time(tmp_path):
    cache = ParseCache(tmp_path / "lessons.json")
    cache.put("text", {"when": datetime.date(2026, 1, 1)}, {})
    assert cache.get("text") is None


def test_an_unwritable_cache_folder_costs_nothing_but_speed(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    course = load_course(user_dir=tmp_path / "none", cache_path=blocker / "lessons.json")
    assert course.lessons and not course.broken


def test_a_process_parses_each_text_once_and_never_shares_a_dict(tmp_path, monkeypatch):
    """What a classroom zygote relies on: after one load, a load into a new data folder parses nothing."""
    import lessons.parse_cache
    import lessons.tomlhelp

    monkeypatch.setattr(lessons.parse_cache, "_in_process", {})
    parsed = []
    real = lessons.tomlhelp.tomllib.loads
    monkeypatch.setattr(lessons.tomlhelp.tomllib, "loads", lambda text: parsed.append(text) or real(text))
    first = load_course(user_dir=None)
    assert len(parsed) == len(first.lessons)
    cache = ParseCache(None)
    data, _lines = cache.get(sorted(bundled_dir().glob("*.toml"))[0].read_text(encoding="utf-8"))
    data["title"] = "changed by one load"
    second = load_course(user_dir=None, cache_path=tmp_path / "new data" / "lessons.json")
    assert len(parsed) == len(first.lessons)  # nothing parsed again
    assert second.lessons == first.lessons  # and the change above reached no other load
    assert len(json.loads((tmp_path / "new data" / "lessons.json").read_text())["entries"]) == len(first.lessons)


def test_the_process_keeps_a_bounded_number_of_parses(monkeypatch):
    import lessons.parse_cache

    monkeypatch.setattr(lessons.parse_cache, "_in_process", {})
    cache = ParseCache(None)
    for i in range(lessons.parse_cache.KEEP_IN_PROCESS + 10):
        cache.put(f"text {i}", {"i": i}, {})
    assert len(lessons.parse_cache._in_process) == lessons.parse_cache.KEEP_IN_PROCESS
    assert ParseCache(None).get("text 0") is None and ParseCache(None).get(f"text {i}") == ({"i": i}, {})


def test_a_process_builds_each_lesson_once_and_an_edit_is_read_again(tmp_path):
    """A classroom zygote builds the class's lessons once: a later load (a student's tutor, another data folder)
    gets the same immutable lessons; a file edited since is read again, never served stale."""
    user = tmp_path / "lessons"
    user.mkdir()
    source = sorted(bundled_dir().glob("*.toml"))[0]
    target = user / "mine.toml"
    target.write_text(source.read_text(encoding="utf-8").replace('id = "', 'id = "mine-', 1), encoding="utf-8")
    first = load_course(user_dir=user, include_bundled=False, cache_path=tmp_path / "a.json")
    again = load_course(user_dir=user, include_bundled=False, cache_path=tmp_path / "b.json")
    assert again.lessons[0] is first.lessons[0]
    assert len(json.loads((tmp_path / "b.json").read_text())["entries"]) == 1  # still kept in the file cache
    target.write_text(target.read_text(encoding="utf-8").replace('id = "mine-', 'id = "edited-', 1), encoding="utf-8")
    edited = load_course(user_dir=user, include_bundled=False, cache_path=tmp_path / "b.json")
    assert edited.lessons[0].id.startswith("edited-")
