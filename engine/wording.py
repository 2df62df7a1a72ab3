"""The one catalogue of the project's words in English and Japanese, and the one way to look them up (`t`).

Each table of words registers its keys here when its module is imported: the interface's
(`tutor.i18n.STRINGS`, written language by language) and the explanations' and the runner's
(`engine.explain.messages.MESSAGES`, written key by key). It imports nothing but the standard library:
the engine imports it as `from engine.wording import ...`, and the app (whose course view must open
without loading numpy or the engine core) loads this file without running `engine/__init__.py`
(`tutor.i18n._catalogue`), under the same name in `sys.modules`, so the process has one registry.

Where a new string goes: in the table of the layer that says it (the interface's words in `tutor.i18n`,
the engine's in `engine.explain.messages`), under a key new to the WHOLE catalogue: `register` refuses a
key another table already holds (two tables once both had `error_at_line`, with different parameters).

Lookup rules, the same for every table:
- a language without the entry says it in English;
- a key missing from the catalogue shows itself, so a missing string is visible rather than a crash
  (and a plain English sentence given as a key still reads);
- `<key>_one` is the singular form, used when the count (`count`, or the parameter the table names for
  the key) is 1; it is looked up in the language's own entry only (Japanese counters do not change);
- the template is filled (`str.format`) only when parameters are given, so a parameterless string may
  hold literal braces.
"""
from __future__ import annotations

from collections.abc import Mapping

LANGUAGES = ("en", "ja")

_ENTRIES: dict[str, dict[str, str]] = {}   # key -> language -> template
_OWNERS: dict[str, str] = {}               # key -> the module whose table holds it
_COUNTED_BY: dict[str, str] = {}           # key -> the parameter that chooses its `_one` form


class DuplicateKey(ValueError):
    """A table brought a key another table already holds: one of them must be renamed."""


def register(owner: str, entries: Mapping[str, Mapping[str, str]], counted_by: Mapping[str, str] | None = None) -> None:
    """Add `owner`'s table (key -> language -> template) to the catalogue; refuse it whole if any key is taken.

    The same owner registering again (a reloaded module) replaces its own keys.
    """
    taken = sorted(key for key in entries if _OWNERS.get(key, owner) != owner)
    if taken:
        raise DuplicateKey(f"{owner} defines keys the catalogue already holds: "
                           + ", ".join(f"{key} (in {_OWNERS[key]})" for key in taken))
    for key in [key for key, holder in _OWNERS.items() if holder == owner]:
        del _ENTRIES[key], _OWNERS[key]
        _COUNTED_BY.pop(key, None)
    for key, entry in entries.items():
        _ENTRIES[key], _OWNERS[key] = dict(entry), owner
    _COUNTED_BY.update(counted_by or {})


def by_key(tables: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    """A table written language by language (language -> key -> template) as `register` takes it."""
    entries: dict[str, dict[str, str]] = {}
    for lang, table in tables.items():
        for key, template in table.items():
            entries.setdefault(key, {})[lang] = template
    return entries


def t(key: str, lang: str = "en", **params: object) -> str:
    """The string `key` in `lang`, with `params` filled in, by the rules in this module's docstring."""
    if params.get(_COUNTED_BY.get(key, "count")) == 1 and lang in _ENTRIES.get(f"{key}_one", {}):
        key = f"{key}_one"
    entry = _ENTRIES.get(key, {})
    template = entry.get(lang) or entry.get("en", key)
    return template.format(**params) if params else template


def said(key: str, params: Mapping[str, object], lang: str = "en") -> str:
    """`key` in `lang` with `params`, where a parameter may itself be words of the catalogue (a cause, the problem
    inside a place), said in `lang` too: a `(key, params)` pair as the app writes it, or `{"key", "params"}` as
    a reason comes through the sandbox's JSON."""
    return t(key, lang, **{name: _said_within(value, lang) for name, value in params.items()})


def _said_within(value: object, lang: str) -> object:
    if type(value) is tuple:
        return said(value[0], value[1], lang)
    if isinstance(value, dict) and value.keys() == {"key", "params"}:
        return said(value["key"], value["params"], lang)
    return value
