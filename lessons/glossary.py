"""The glossary of concept tags (`lessons/glossary.toml`) and of the course's terms (`lessons/terms.toml`).

A tag close to a known one is almost always a typo and splits the learner's record, so it is a
problem with a did-you-mean; a tag that is simply new is a warning (the pedagogy lint), since an
author may introduce a concept — a pack declares its new ones in pack.toml's `[glossary]`.

The terms give each technical word one Japanese rendering; `term_variants` finds the variants a
Japanese text should not use (the lint warns about them), so lessons, app and panels speak alike.
"""
from __future__ import annotations

import difflib
import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

TYPO_CUTOFF = 0.85


@functools.cache
def glossary() -> dict[str, dict[str, str]]:
    with open(Path(__file__).with_name("glossary.toml"), "rb") as file:
        return tomllib.load(file)


def typo_of(tag: str, extra: frozenset[str] = frozenset()) -> str | None:
    """The known tag `tag` is probably a misspelling of, or None (known, or new and not close to any)."""
    known = set(glossary()) | set(extra)
    if tag in known:
        return None
    close = difflib.get_close_matches(tag, sorted(known), n=1, cutoff=TYPO_CUTOFF)
    return close[0] if close else None


def is_known(tag: str, extra: frozenset[str] = frozenset()) -> bool:
    return tag in glossary() or tag in extra


def concept_name(tag: str, lang: str) -> str:
    """The glossary's name of a concept tag in `lang`, or the tag itself when the glossary lacks it."""
    entry = glossary().get(tag)
    return entry.get(lang) or entry["en"] if entry else tag


def concept_label(tag: str, lang: str) -> str:
    """How the app names a concept: the tag in English (what the course filter and quizzes name), the glossary's
    name in another language (a learner reading Japanese should not meet English tags)."""
    return tag if lang == "en" else concept_name(tag, lang)


@dataclass(frozen=True)
class Term:
    en: str
    ja: str
    avoid: tuple[re.Pattern[str], ...]  # Japanese variants not to use


@functools.cache
def terms() -> tuple[Term, ...]:
    with open(Path(__file__).with_name("terms.toml"), "rb") as file:
        table = tomllib.load(file)
    return tuple(Term(entry["en"], entry["ja"], tuple(re.compile(p) for p in entry.get("avoid", ())))
                 for entry in table["term"])


_CODE_SPAN = re.compile(r"`[^`\n]+`")


def term_variants(ja_text: str) -> list[tuple[str, Term]]:
    """(variant found, term to use instead) for each avoided variant in a Japanese text; inline code
    spans are skipped (code is not Japanese prose). One entry per distinct variant and term."""
    prose = _CODE_SPAN.sub(" ", ja_text)
    found: dict[tuple[str, str], Term] = {}
    for term in terms():
        for pattern in term.avoid:
            for match in pattern.finditer(prose):
                found.setdefault((match.group(0), term.ja), term)
    return [(variant, term) for (variant, _), term in found.items()]
