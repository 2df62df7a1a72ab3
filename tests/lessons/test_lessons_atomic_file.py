"""write_atomically: the whole new text or the old file, never half, and no temporary file left behind."""
import pytest

from lessons.atomic_file import write_atomically


def test_it_creates_the_folder_and_replaces_the_file(tmp_path):
    target = tmp_path / "a" / "b" / "file.json"
    write_atomically(target, "first")
    write_atomically(target, "second ✓")
    assert target.read_text(encoding="utf-8") == "second ✓"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "file.json"
    write_atomically(target, "old")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(target, "\ud800 not encodable")  # fails while writing the temporary file
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.json"]


def test_a_failed_replace_leaves_no_temporary(tmp_path):
    occupied = tmp_path / "occupied"  # a folder with a file in it cannot be replaced by a file
    (occupied / "inside").mkdir(parents=True)
    with pytest.raises(OSError):
        write_atomically(occupied, "text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["occupied"]
