"""Regenerate reveal-eye5.svg: the explanation view of the `torch.eye(5)` step, exported by the app.

    .venv/bin/python docs/screenshots/make_reveal_eye5.py

Drives the real app headless: opens the bundled lesson on non-scalar outputs, answers the eye(5)
step with one wrong cell, opens the explanation and waits for the symbolic Jacobian.
"""
import asyncio
import tempfile
from pathlib import Path

from tutor.app import TutorApp

LESSON, STEP = "tensor-gradient-jacobian", "eye-first-call"
TARGET = Path(__file__).with_name("reveal-eye5.svg")


async def main() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        app = TutorApp(lang="en", data_dir=data_dir, theme="dark")
        async with app.run_test(size=(100, 44)) as pilot:
            app.open_lesson(LESSON, STEP)
            await pilot.pause()
            rows = [["4" if r == c else "2" for c in range(5)] for r in range(5)]
            rows[1][2] = "3"
            await pilot.press(*(key for row in rows for cell in row for key in (cell, "tab")), "enter")
            await pilot.press("escape", "e")
            await app.workers.wait_for_complete()
            await pilot.press("2")
            await pilot.pause()
            TARGET.write_text(app.export_screenshot(title="autograd-tutor: why inp.grad is what it is"), encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    asyncio.run(main())
