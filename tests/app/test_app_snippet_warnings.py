"""A cell's warnings are shown as a notebook shows them: PyTorch writes a UserWarning (reading a non-leaf's
.grad) to stderr, so the cell shows it after what the code printed — a lesson that speaks of the warning
must not leave the learner looking for it. An earlier cell's warning stays with that cell."""
from pathlib import Path

LESSON = '''format_version = 1
id = "fixture-warnings"
order = 1
title = { en = "Warnings", ja = "警告" }
summary = { en = "A cell that warns.", ja = "警告を出すセル。" }
concepts = ["leaf-tensor"]

[[steps]]
id = "make"
kind = "read"
text = { en = "A non-leaf.", ja = "非葉テンソル。" }
snippet = """
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
print(y.grad)
"""

[[steps]]
id = "again"
kind = "read"
continues = true
text = { en = "Nothing new.", ja = "新しいことはありません。" }
snippet = """
print("done")
"""
'''


async def test_a_cells_warning_is_shown_after_its_printout(data_dir, tmp_path):
    from tutor.app import TutorApp

    folder = Path(tmp_path) / "lessons"
    folder.mkdir()
    (folder / "warnings.toml").write_text(LESSON, encoding="utf-8")
    app = TutorApp(lang="en", extra_dirs=[folder], data_dir=data_dir, include_bundled=False)
    async with app.run_test(size=(120, 40)) as pilot:
        app.open_lesson("fixture-warnings")
        await pilot.pause()
        shown = " ".join(str(w.render()) for w in app.screen.query("#snippet .output"))
        assert "None" in shown and "UserWarning: The .grad attribute of a Tensor that is not a leaf" in shown
        assert shown.index("None") < shown.index("UserWarning")          # after what it printed
        await pilot.press("enter")                                       # the next cell continues this one
        await pilot.pause()
        shown = " ".join(str(w.render()) for w in app.screen.query("#snippet .output"))
        assert "done" in shown and "UserWarning" not in shown            # the earlier cell's warning is its own
