"""The options given before the subcommand (`autograd-tutor --lang ja --data-dir D grade …`).

Several subcommands also take `--lang`, `--data-dir` or `--lessons` themselves; what the user typed after the
subcommand wins, else what they typed before it. One lookup for every subcommand, so that an option given at the
top reaches all of them (nested ones like `class view` too), not only those that remembered to look.
"""
from __future__ import annotations

import click


def given(ctx: click.Context, name: str, value=None):
    """`value` when the subcommand was given it, else the top-level option `name` (None when neither was)."""
    if value:
        return value
    return ctx.find_root().params.get(name) or None


def language(ctx: click.Context, lang: str | None = None) -> str:
    """The language of a subcommand's messages: its own `--lang`, else the top-level one, else the locale's."""
    from tutor.i18n import default_language

    return given(ctx, "lang", lang) or default_language()


def lesson_dirs(ctx: click.Context, own: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The extra lesson folders: those given at the top and those given to the subcommand (both load)."""
    return (*(ctx.find_root().params.get("lesson_dirs") or ()), *own)
