"""Every problem `check` reports exists in English and Japanese (`lessons/messages.py`).

Three ways in: the catalogue itself (each kind in both languages, with the same fields); the code (no
message is written as an English string where a problem is raised, and every kind named exists); and
`check --lang ja` on the broken files under tests/lessons, whose every reported line is Japanese.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lessons.glossary import term_variants
from lessons.messages import MESSAGES, TERMS, fields_of, say

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# where problems are raised: lessons/ and the check command
SOURCES = sorted((ROOT / "lessons").glob("*.py")) + [ROOT / "tutor" / "commands" / "check.py"]
# the calls that take a problem's message
RAISERS = {"LessonError", "AnswerError", "TomlError", "UnsupportedValue", "add", "error", "warn"}


@pytest.mark.parametrize("kind", sorted(MESSAGES))
def test_every_kind_has_both_languages_with_the_same_fields(kind):
    en, ja = MESSAGES[kind]
    assert en.strip() and ja.strip(), kind
    assert fields_of(en) == fields_of(ja), kind
    assert JAPANESE.search(ja), f"{kind}: the Japanese is not Japanese: {ja!r}"
    assert not JAPANESE.search(en), f"{kind}: the English has Japanese in it: {en!r}"
    assert not list(term_variants(ja)), f"{kind}: not the course's terms (lessons/terms.toml): {ja!r}"


@pytest.mark.parametrize("name", sorted(TERMS))
def test_every_term_has_both_languages(name):
    en, ja = TERMS[name]
    assert JAPANESE.search(ja) and not JAPANESE.search(en), name


def test_a_value_in_both_languages_is_filled_in_the_sentences_language():
    text = say("unknown_key", key="expresion", hint=say("did_you_mean", close="expression"))
    assert text.en == "unknown key 'expresion' — did you mean 'expression'?"
    assert text.ja == "不明なキー 'expresion' です。'expression' のことではありませんか？"


def _calls():
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
                yield path, node, name


def _literal_text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value for part in node.values if isinstance(part, ast.Constant))
    if isinstance(node, ast.BinOp):
        return _literal_text(node.left) + _literal_text(node.right)
    return ""


def test_no_problem_is_written_as_an_english_string():
    """A message is a sentence (it has a space); key paths, ids and file names have none."""
    found = [f"{path.relative_to(ROOT)}:{node.lineno}: {name}({_literal_text(arg)[:50]!r}…)"
             for path, node, name in _calls() if name in RAISERS
             for arg in node.args if " " in _literal_text(arg)]
    assert not found, "write these through lessons.messages.say:\n" + "\n".join(found)


def test_every_kind_named_in_the_code_exists_and_every_kind_is_used():
    named = {node.args[0].value for _, node, name in _calls()
             if name in ("say", "term") and node.args and isinstance(node.args[0], ast.Constant)}
    source = "\n".join(path.read_text(encoding="utf-8") for path in SOURCES)
    assert named - set(MESSAGES) - set(TERMS) == set()
    unused = [kind for kind in [*MESSAGES, *TERMS] if f'"{kind}"' not in source.replace(f'"{kind}": (', "")]
    assert not unused, unused


def test_check_in_japanese_says_every_problem_in_japanese(cli):
    folders = [HERE / "malformed", HERE / "lint"]
    english = cli("--lang", "en", "check", "--strict", "--require-lang", "ja", *folders)
    japanese = cli("--lang", "ja", "check", "--strict", "--require-lang", "ja", *folders)
    reported = [line for line in japanese.output.splitlines() if line.startswith(str(HERE))]
    assert len(reported) >= 60, japanese.output  # every malformed file says something
    assert len(reported) == len([line for line in english.output.splitlines() if line.startswith(str(HERE))])
    for line in reported:
        where, _, message = line.partition(".toml")
        assert JAPANESE.search(message), line
    for line in english.output.splitlines():
        if line.startswith(str(HERE)) and "unclosed_string" not in line:
            assert not JAPANESE.search(line), line


def test_a_broken_pack_is_reported_in_japanese(cli, tmp_path):
    folder = tmp_path / "mypack"
    folder.mkdir()
    (folder / "pack.toml").write_text('format_version = 1\nname = "mypack"\nversion = "one"\n'
                                      'languages = ["en", "fr"]\nlessons = ["missing.toml", "../x.toml"]\n',
                                      encoding="utf-8")
    result = cli("--lang", "ja", "check", folder)
    reported = [line for line in result.output.splitlines() if line.startswith(str(folder))]
    assert len(reported) >= 4, result.output
    for line in reported:
        assert JAPANESE.search(line[len(str(folder)):]), line
