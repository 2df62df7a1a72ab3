"""Click's own words — its usage frame ("Usage:", "Try ... for help.", "Error: ...") and its errors ("No such option",
"Missing argument", an invalid value) — in the command's language.

Click asks gettext for each of them (`_`, `ngettext` in its modules), and no translation of click exists, so while a
command runs in Japanese those modules are given the tutor's catalogue instead (`tutor.i18n`: click's own message is
the key, as Textual's key descriptions are); the language is the one the command line asks for (`--lang`), else the
locale's, since the words are needed before click has parsed anything (an unknown option fails the parse).
"""
from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator, Sequence

# the click modules that word something a learner or teacher sees on a usage error
_MODULES = ("click.core", "click.exceptions", "click.parser", "click.types", "click.formatting")


def asked_language(args: Sequence[str]) -> str:
    """The language `args` ask for (`--lang ja`, `--lang=ja`, at the top or on a subcommand), else the locale's."""
    from tutor.i18n import LANGUAGES, default_language

    for index, arg in enumerate(args):
        value = arg.partition("=")[2] if arg.startswith("--lang=") else (
            args[index + 1] if arg == "--lang" and index + 1 < len(args) else None)
        if value in LANGUAGES:
            return value
    return default_language()


@contextlib.contextmanager
def click_speaks(lang: str) -> Iterator[None]:
    """Within the block click words its frame and errors in `lang` (English: click's own words, untouched)."""
    if lang == "en":
        yield
        return
    from tutor.i18n import t

    def said(message: str) -> str:
        return t(message, lang)

    def said_counted(singular: str, plural: str, count: int) -> str:
        return t(singular if count == 1 else plural, lang)

    modules = [importlib.import_module(name) for name in _MODULES]
    kept = [(module, name, getattr(module, name)) for module in modules for name in ("_", "ngettext")
            if hasattr(module, name)]
    for module, name, _ in kept:
        setattr(module, name, said if name == "_" else said_counted)
    try:
        yield
    finally:
        for module, name, original in kept:
            setattr(module, name, original)
