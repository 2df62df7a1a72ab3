"""Students' names and folders: one student per name up to case and Unicode normalisation, never a path trick."""
import pytest

from tutor.classroom.folder import ClassFolder
from tutor.classroom.names import InvalidName, display_name, folder_name, student_key


@pytest.mark.parametrize("spelling", ["Alice", "alice", "ALICE", "  alice ", "Ａｌｉｃｅ", "ａｌｉｃｅ"])
def test_case_width_and_spaces_are_one_student(spelling):
    assert student_key(spelling) == "alice"
    assert folder_name(spelling) == "alice"


def test_composed_and_decomposed_accents_are_one_student():
    assert folder_name("Chlo\u00e9") == folder_name("Chloe\u0301") == folder_name("CHLOÉ")
    assert student_key("Straße") == student_key("STRASSE")  # case folding, as a case-insensitive disk would


@pytest.mark.parametrize("name", ["..", ".", "../../etc/passwd", "a/b", "a\\b", "C:", "~root", "名前/../x", "con",
                                  "NUL", "lpt1", "a b", "x.y", "-rf", "%2e%2e"])
def test_folder_names_are_plain_and_distinct(name):
    folder = folder_name(name)
    assert folder and all(char.isalnum() or char in "_~" for char in folder)
    assert folder.lower() not in {"con", "nul", "lpt1", ".", ".."}
    assert len(folder.encode()) < 255


def test_distinct_names_never_share_a_folder():
    names = ["a b", "a_b", "a~b", "a~00005fb", "a.b", "ab", "a-b", "a--b", "田中", "田中 太郎", "田中_太郎", "con", "~000063on",
             "Chloé", "Chloe", "x" * 32, "."*32, "お名前"]
    folders = [folder_name(name) for name in names]
    assert len(set(folders)) == len(names)


@pytest.mark.parametrize("name, reason", [
    ("", "name_empty"), ("   ", "name_empty"), ("x" * 33, "name_too_long"), ("bad\x00name", "name_bad_character"),
    ("a\u200bb", "name_bad_character"), ("a\nb", "name_empty" if False else "name_bad_character"),
    ("rtl\u202eevil", "name_bad_character"),
])
def test_unusable_names_are_refused(name, reason):
    if name == "a\nb":  # a newline is white space: collapsed to one space, so the name is fine
        assert display_name(name) == "a b"
        return
    with pytest.raises(InvalidName) as caught:
        student_key(name)
    assert caught.value.reason == reason


def test_first_spelling_is_kept_and_students_are_listed(tmp_path):
    folder = ClassFolder(tmp_path)
    alice = folder.student("Alice", create=True)
    again = folder.student("ａｌｉｃｅ", create=True)
    assert again == alice and again.name == "Alice"
    folder.student("田中 太郎", create=True)
    assert [s.name for s in folder.students()] == ["Alice", "田中 太郎"]
    assert alice.database == tmp_path / "students" / "alice" / "progress.sqlite3"
    assert all(s.folder.parent == tmp_path / "students" for s in folder.students())


def test_roster(tmp_path):
    (tmp_path / "roster.txt").write_text("\ufeff# class 3B\nAlice\n  bob  \nALICE\n\n田中 太郎  # new\n" + "x" * 40 + "\n",
                                         encoding="utf-8")
    assert ClassFolder(tmp_path).roster() == ["Alice", "bob", "田中 太郎"]
    assert ClassFolder(tmp_path / "none").roster() == []


@pytest.mark.parametrize("spelling", ["ＡＬＩＣＥ", "\u0410lice", "A1ice", "ａｌｉｃｅ", "𝐀𝐥𝐢𝐜𝐞", "Al\u0456ce"])
def test_look_alikes_are_one_student(spelling, tmp_path):
    """NFKC and Unicode's confusables (UTS #39): full-width, Cyrillic А and і, mathematical bold…"""
    from tutor.classroom.names import skeleton

    assert skeleton(spelling) == skeleton("alice")
    folder = ClassFolder(tmp_path)
    alice = folder.student("Alice", create=True)
    assert folder.student(spelling, create=True) == alice and len(folder.students()) == 1


def test_different_names_stay_different():
    from tutor.classroom.names import skeleton

    names = ["alice", "alicia", "bob", "b0b", "田中 太郎", "田中 次郎", "chloé", "chloe", "ann", "anne"]
    assert len({skeleton(name) for name in names}) == len(names)


@pytest.mark.parametrize("name, code", [
    ("\u3164", "U+3164"), ("a\u3164b", "U+3164"), ("\u115f", "U+115F"), ("\u115fAlice", "U+115F"), ("\u2800", "U+2800"),
    ("Al\u034fice", "U+034F"), ("Al\u200dice", "U+200D"), ("Alice\ufe0f", "U+FE0F"), ("\u00adAlice", "U+00AD"),
    ("\u0301", "U+0301"), ("Ali\U000e0041ce", "U+E0041"), ("\uffa0", "U+FFA0"),
])
def test_invisible_characters_are_refused(name, code):
    with pytest.raises(InvalidName) as caught:
        student_key(name)
    assert caught.value.reason == "name_bad_character" and caught.value.params["code"] == code


def test_a_students_secret(tmp_path):
    folder = ClassFolder(tmp_path)
    alice = folder.student("Alice", create=True)
    assert not folder.has_secret(alice) and not folder.check_secret(alice, token="x", code="y")
    token, code = folder.new_secret(alice)
    assert len(code) == 9 and code[4] == "-" and token not in (tmp_path / "students" / "alice" / "student.json").read_text()
    assert folder.check_secret(alice, token=token) and folder.check_secret(alice, code=code.lower().replace("-", " "))
    assert not folder.check_secret(alice, token=token[:-1] + "x") and not folder.check_secret(alice, code="")
    assert folder.reset_secret(alice) and not folder.has_secret(alice) and not folder.check_secret(alice, token=token)


def test_reset_student_command(tmp_path):
    from click.testing import CliRunner

    from tutor.cli import main

    folder = ClassFolder(tmp_path)
    alice = folder.student("Alice", create=True)
    folder.new_secret(alice)
    result = CliRunner().invoke(main, ["class", "reset-student", "--class-dir", str(tmp_path), "ＡＬＩＣＥ", "--lang", "en"])
    assert result.exit_code == 0 and "Alice can join again" in result.output and not folder.has_secret(alice)
    result = CliRunner().invoke(main, ["class", "reset-student", "--class-dir", str(tmp_path), "Bob", "--lang", "ja"])
    assert result.exit_code == 2 and "Bob という生徒はいません" in result.output and "Alice" in result.output
