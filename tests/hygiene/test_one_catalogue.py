"""One catalogue of words (`engine.wording`): every table registers in it, a key defined twice is refused, and the
interface's and the engine's `t` are the one lookup with one set of rules."""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import engine.explain.messages as messages
import engine.wording as wording
import tutor.i18n as i18n

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


def test_words_within_words_are_said_in_the_same_language_in_both_forms_they_travel():
    """The app's errors carry a cause as a (key, params) pair, the runner's reasons as {"key", "params"} (JSON,
    through the sandbox's pipe): one `said` fills both, to any depth; any other dict is a plain value."""
    wording.register("tests.nested", {"outer_word": {"en": "outer: {cause}", "ja": "外: {cause}"},
                                      "inner_word": {"en": "inner {n}", "ja": "内 {n}"}})
    try:
        assert wording.said("outer_word", {"cause": ("inner_word", {"n": 2})}, "ja") == "外: 内 2"
        assert wording.said("outer_word", {"cause": {"key": "outer_word", "params": {
            "cause": {"key": "inner_word", "params": {"n": 3}}}}}, "ja") == "外: 外: 内 3"
        assert wording.said("outer_word", {"cause": {"n": 4}}, "en") == "outer: {'n': 4}"
        assert i18n.WordedError("outer_word", cause=("inner_word", {"n": 5})).said("ja") == "外: 内 5"
    finally:
        wording.register("tests.nested", {})


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


def test_the_engine_names_the_catalogue_only_by_from_engine_wording_import():
    """`from engine import wording` and `engine.wording.x` ask the package `engine` for the name, which the app's
    loader (`tutor.i18n._catalogue`) never sets on it: only `from engine.wording import ...` works either way."""
    offending = [f"{path.relative_to(ROOT)}:{number}"
                 for path in ROOT.joinpath("engine").rglob("*.py")
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if "engine.wording." in line or re.search(r"from engine import .*\bwording\b", line)]
    assert offending == []


def test_the_catalogue_imports_nothing_but_the_standard_library():
    tree = ast.parse(ROOT.joinpath("engine", "wording.py").read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
    assert imported and imported <= sys.stdlib_module_names


ONE_REGISTRY = """
import sys
{first}
{second}
import engine.explain.messages, tutor.i18n
catalogue = sys.modules["engine.wording"]   # not `engine.wording`: the app's loader sets no attribute on `engine`
assert tutor.i18n.t is engine.explain.messages.t is catalogue.t
assert tutor.i18n._wording is catalogue and "numpy" in sys.modules
assert tutor.i18n.t("course_title", "ja") == tutor.i18n.STRINGS["ja"]["course_title"]
assert engine.explain.messages.t("call_title", "en", index=1, line=2) == "backward call 1 (line 2)"
"""


@pytest.mark.parametrize(("first", "second"), [
    ("import tutor.i18n; assert 'numpy' not in sys.modules and 'engine' not in sys.modules", "import engine"),
    ("import engine", "import tutor.i18n"),
], ids=["app-first", "engine-first"])
def test_the_app_and_the_engine_share_one_registry_whichever_imports_it_first(first, second):
    """The app loads `engine/wording.py` without the engine package; the engine, imported later (or earlier),
    must find that same module, or one side's keys would be missing from the other's `t`."""
    code = ONE_REGISTRY.format(first=first, second=second)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
