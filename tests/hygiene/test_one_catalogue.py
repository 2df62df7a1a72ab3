"""One catalogue of words (`wording`): every table registers in it, a key defined twice is refused, and the
interface's and the engine's `t` are the one lookup with one set of rules."""
import ast
from pathlib import Path

import pytest

import engine.explain.messages as messages
import tutor.i18n as i18n
import wording

ROOT = Path(__file__).resolve().parents[2]


def test_every_table_registers_together_and_each_key_says_its_own_table_s_words():
    assert messages.t is i18n.t is wording.t
    for key, entry in messages.MESSAGES.items():
        assert all(messages.t(key, lang) == template for lang, template in entry.items()), key
    for lang, table in i18n.STRINGS.items():
        assert all(i18n.t(key, lang) == template for key, template in table.items()), (lang, key)


def test_a_key_another_table_holds_is_refused_and_nothing_of_the_refused_table_is_kept():
    """The merge that gave both tables an `error_at_line` (with different parameters) is refused."""
    with pytest.raises(wording.DuplicateKey, match=r"error_at_line \(in engine\.explain\.messages\)"):
        wording.register("tests.clash", {"error_at_line_fresh": {"en": "fresh"},
                                         "error_at_line": {"en": "Error at line {number}"}})
    assert wording.t("error_at_line_fresh") == "error_at_line_fresh"
    assert wording.t("error_at_line", "en", line=3) == "line 3: "


def test_the_lookup_rules_hold_for_the_engine_s_words_too():
    assert messages.t("no_such_key_anywhere", "ja") == "no_such_key_anywhere"   # visible, not a KeyError
    assert messages.t("call_title", "fr", index=1, line=2) == "backward call 1 (line 2)"   # English fallback
    assert i18n.t("steps_count", "en", count=1) == "1 step" and i18n.t("steps_count", "en", count=2) == "2 steps"
    assert i18n.t("steps_count", "ja", count=1) == i18n.STRINGS["ja"]["steps_count"].format(count=1)
    assert i18n.t("due_days", "en", n=1) == i18n.STRINGS["en"]["due_days_one"].format(n=1)


def test_a_table_registered_again_by_its_own_module_replaces_its_keys():
    wording.register("tests.reloaded", {"reloaded_word": {"en": "old", "ja": "古い"}})
    wording.register("tests.reloaded", {"reloaded_word": {"en": "new"}})
    assert (wording.t("reloaded_word", "en"), wording.t("reloaded_word", "ja")) == ("new", "new")
    wording.register("tests.reloaded", {})
    assert wording.t("reloaded_word") == "reloaded_word"


def test_every_key_the_code_names_is_in_the_catalogue():
    """An unknown key shows itself rather than crash, so a key renamed in a table but not at a call site would
    show the learner its name: every literal key given to `t`, `reason` or a worded error must be registered."""
    named = []
    for path in [*ROOT.joinpath("tutor").rglob("*.py"), *ROOT.joinpath("engine").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name in ("t", "reason", "WordedError", "AnswerFormatError") and isinstance(node.args[0].value, str):
                    named.append((node.args[0].value, f"{path.relative_to(ROOT)}:{node.lineno}"))
    assert len(named) > 500
    registered = {*messages.MESSAGES, *i18n.STRINGS["en"]}
    assert [(key, where) for key, where in named if key not in registered] == []
