"""Lessons written by `autograd-tutor new`, as an author finishes them (its own module: `from conftest import …`
finds whichever conftest came first)."""
from __future__ import annotations

from pathlib import Path


def write_japanese(path: Path) -> None:
    """What an author does to a lesson `autograd-tutor new` wrote before a Japanese pack may ship it: the
    Japanese title (a copy of the English), summary and credit (`<…>` placeholders) written."""
    text = path.read_text("utf-8")
    title = next(line for line in text.splitlines() if line.startswith("title = "))
    written = text.replace(title, 'title = { en = "A lesson", ja = "レッスン" }').replace(
        "<学習者が理解できるようになることを一文で>", "スカラーの損失から勾配が流れる仕組みがわかります。").replace("<あなた>", "山田 花子")
    path.write_text(written, "utf-8")
