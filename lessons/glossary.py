"""The glossary of concept tags (`lessons/glossary.toml`), and checking a lesson's tags against it.

A tag close to a known one is almost always a typo and splits the learner's record, so it is a
problem with a did-you-mean; a tag that is simply new is a warning (the pedagogy lint), since an
author may introduce a concept — a pack declares its new ones in pack.toml's `[glossary]`.
"""
from __future__ import annotations

import difflib
import functools
import tomllib
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
