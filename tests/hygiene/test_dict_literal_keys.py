"""No dict literal in the product repeats a key.

A repeated key in a literal is silent in Python (the last one wins): in `tutor/i18n.py` the key
`close` once meant both the palette's "Close" and the "close, but not equal" verdict, so the palette
showed the verdict. The catalogues (`tutor/i18n.py`, `engine/explain/messages.py`) are the main
place this hides, so the check parses every module's source, where the duplicate is still visible.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(path for package in ("engine", "lessons", "tutor") for path in (ROOT / package).rglob("*.py"))


def repeated_keys(source: str) -> list[tuple[int, object]]:
    """(line, key) for each constant key that occurs a second time in the same dict literal."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            seen: set[object] = set()
            for key in node.keys:
                if isinstance(key, ast.Constant):
                    if key.value in seen:
                        found.append((key.lineno, key.value))
                    seen.add(key.value)
    return found


def test_the_check_finds_a_repeated_key_and_only_that():
    source = 'STRINGS = {"en": {"close": "Close",\n "yes": "Yes",\n "close": "Close — almost"}, "ja": {"close": "閉じる"}}'
    assert repeated_keys(source) == [(3, "close")]


def test_the_catalogues_are_among_the_modules_checked():
    assert {ROOT / "tutor/i18n.py", ROOT / "engine/explain/messages.py"} <= set(MODULES)


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_dict_literal_repeats_a_key(path):
    assert repeated_keys(path.read_text(encoding="utf-8")) == [], f"{path}: a key repeated in one dict literal"
